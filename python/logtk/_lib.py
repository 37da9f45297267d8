"""Loading liblogtk and declaring the C functions the package calls (ctypes, ABI mode).

The library is found through, in order: the LOGTK_LIBRARY environment variable
(a path to liblogtk.so), ``pkg-config --variable=libdir logtk`` (the installed
library), then ctypes.util.find_library("logtk").  Nothing is compiled: every
declaration below mirrors include/logtk.h.
"""
import ctypes
import ctypes.util
import glob
import os
import subprocess
from ctypes import (CFUNCTYPE, POINTER, Structure, c_char_p, c_double, c_int, c_size_t,
                    c_uint, c_uint8, c_uint32, c_uint64, c_void_p)


def _find_library():
    path = os.environ.get("LOGTK_LIBRARY")
    if path:
        return path
    try:
        libdir = subprocess.run(["pkg-config", "--variable=libdir", "logtk"], check=True,
                                capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        libdir = ""
    if libdir:
        found = sorted(glob.glob(os.path.join(libdir, "liblogtk.so*")), key=len)
        if found:
            return found[0]
    name = ctypes.util.find_library("logtk")
    if name:
        return name
    raise ImportError("liblogtk not found: set LOGTK_LIBRARY to the path of liblogtk.so, "
                      "or install logtk so that pkg-config finds it")


LIBRARY_PATH = _find_library()
lib = ctypes.CDLL(LIBRARY_PATH)


class Slice(Structure):
    _fields_ = [("ptr", c_void_p), ("len", c_size_t)]


class Event(Structure):
    # logtk_event; the two fields after params exist only in libraries that have
    # logtk_parser_match() (see HAVE_MATCH), and are read only then
    _fields_ = [("template_id", c_uint32), ("created", c_int), ("changed", c_int),
                ("nparams", c_size_t), ("params", POINTER(Slice)),
                ("template_text", Slice), ("param_names", POINTER(Slice))]


MAX_FIELDS = 32


class Record(Structure):
    _fields_ = [("matched", c_int), ("nfields", c_size_t), ("fields", Slice * MAX_FIELDS),
                ("content", Slice)]


class Line(Structure):
    _fields_ = [("data", c_void_p), ("len", c_size_t), ("eol_len", c_size_t),
                ("number", c_uint64), ("source", c_char_p)]


class ArchiveBlock(Structure):
    _fields_ = [("index", c_uint64), ("first_line", c_uint64), ("nlines", c_uint64),
                ("raw_bytes", c_uint64), ("stored_bytes", c_uint64), ("templates", c_uint32),
                ("damaged", c_int), ("text", Slice)]


class ParseMetrics(Structure):
    _fields_ = [("messages", c_size_t), ("true_templates", c_size_t),
                ("parsed_templates", c_size_t), ("ga", c_double), ("pa", c_double),
                ("fga", c_double), ("fta", c_double)]


class GroupError(Structure):
    _fields_ = [("truth", Slice), ("parsed", Slice), ("messages", c_size_t),
                ("first", c_size_t), ("kind", c_uint)]


class DetectMetrics(Structure):
    _fields_ = [("tp", c_uint64), ("fp", c_uint64), ("fn", c_uint64), ("tn", c_uint64),
                ("unlabeled", c_uint64), ("precision", c_double), ("recall", c_double),
                ("f1", c_double)]


TEMPLATE_CALLBACK = CFUNCTYPE(None, c_void_p, c_int, c_uint32, c_void_p, c_size_t)
WRITE_CALLBACK = CFUNCTYPE(c_int, c_void_p, c_void_p, c_size_t)
GROUP_ERROR_CALLBACK = CFUNCTYPE(c_int, c_void_p, POINTER(GroupError))

P = c_void_p
PP = POINTER(c_void_p)
_DECLS = {
    # name: (restype, argtypes)
    "logtk_strerror": (c_char_p, [c_int]),
    "logtk_version": (c_char_p, []),
    "logtk_free": (None, [c_void_p]),
    "logtk_reader_new": (c_int, [PP]),
    "logtk_reader_open_path": (c_int, [P, c_char_p]),
    "logtk_reader_open_memory": (c_int, [P, c_void_p, c_size_t, c_char_p]),
    "logtk_reader_next": (c_int, [P, POINTER(Line)]),
    "logtk_reader_close": (c_int, [P]),
    "logtk_reader_errmsg": (c_char_p, [P]),
    "logtk_reader_free": (None, [P]),
    "logtk_format_new": (c_int, [PP]),
    "logtk_format_compile": (c_int, [P, c_char_p]),
    "logtk_format_field_count": (c_size_t, [P]),
    "logtk_format_field_name": (c_char_p, [P, c_size_t]),
    "logtk_format_match": (c_int, [P, c_void_p, c_size_t, POINTER(Record)]),
    "logtk_format_errmsg": (c_char_p, [P]),
    "logtk_format_free": (None, [P]),
    "logtk_parser_new": (c_int, [PP, c_char_p]),
    "logtk_parser_algorithm_name": (c_char_p, [c_size_t]),
    "logtk_parser_algorithm": (c_char_p, [P]),
    "logtk_parser_set_option": (c_int, [P, c_char_p, c_char_p]),
    "logtk_parser_add_mask": (c_int, [P, c_char_p, c_char_p]),
    "logtk_parser_set_callback": (c_int, [P, TEMPLATE_CALLBACK, c_void_p]),
    "logtk_parser_feed": (c_int, [P, c_void_p, c_size_t, POINTER(Event)]),
    "logtk_parser_finish": (c_int, [P]),
    "logtk_parser_line_count": (c_uint64, [P]),
    "logtk_parser_assignment": (c_int, [P, c_uint64, POINTER(c_uint32)]),
    "logtk_parser_template_count": (c_uint32, [P]),
    "logtk_parser_template": (c_int, [P, c_uint32, POINTER(Slice), POINTER(c_uint64)]),
    "logtk_parser_template_key": (c_int, [P, c_uint32, POINTER(c_uint64)]),
    "logtk_parser_extract": (c_int, [P, c_uint32, c_char_p, c_size_t, POINTER(Event)]),
    "logtk_template_match": (c_int, [c_char_p, c_size_t, c_char_p, c_size_t, POINTER(Slice),
                                     c_size_t, POINTER(c_size_t)]),
    "logtk_parser_save": (c_int, [P, PP, POINTER(c_size_t)]),
    "logtk_parser_load": (c_int, [P, c_char_p, c_size_t]),
    "logtk_parser_snapshot_algorithm": (c_int, [c_char_p, c_size_t, POINTER(c_char_p)]),
    "logtk_parser_merge": (c_int, [PP, c_size_t, POINTER(c_char_p), POINTER(c_size_t),
                                   POINTER(c_char_p)]),
    "logtk_parser_errmsg": (c_char_p, [P]),
    "logtk_parser_free": (None, [P]),
    "logtk_parser_feed_reader": (c_int, [P, P, P, c_size_t, POINTER(c_uint32),
                                         POINTER(c_size_t)]),
    "logtk_rows_write": (c_int, [P, P, P, c_uint64, POINTER(c_uint32), c_size_t, POINTER(Slice),
                                 c_size_t, POINTER(c_size_t)]),
    "logtk_dataset_find": (c_void_p, [c_char_p]),
    "logtk_dataset_format": (c_char_p, [c_void_p]),
    "logtk_dataset_configure": (c_int, [c_void_p, P]),
    "logtk_sink_new": (c_int, [PP, c_char_p, c_char_p, P]),
    "logtk_sink_write_template": (c_int, [P, c_uint32, Slice, c_uint64]),
    "logtk_sink_close": (c_int, [P]),
    "logtk_sink_errmsg": (c_char_p, [P]),
    "logtk_sink_free": (None, [P]),
    "logtk_archive_writer_new": (c_int, [PP]),
    "logtk_archive_writer_set_option": (c_int, [P, c_char_p, c_char_p]),
    "logtk_archive_writer_open_path": (c_int, [P, c_char_p]),
    "logtk_archive_writer_write": (c_int, [P, c_char_p, c_size_t]),
    "logtk_archive_writer_close": (c_int, [P]),
    "logtk_archive_writer_errmsg": (c_char_p, [P]),
    "logtk_archive_writer_free": (None, [P]),
    "logtk_archive_reader_new": (c_int, [PP]),
    "logtk_archive_reader_open_path": (c_int, [P, c_char_p]),
    "logtk_archive_reader_next": (c_int, [P, POINTER(ArchiveBlock)]),
    "logtk_archive_reader_seek_line": (c_int, [P, c_uint64]),
    "logtk_archive_reader_totals": (c_int, [P, POINTER(c_uint64), POINTER(c_uint64),
                                            POINTER(c_uint64)]),
    "logtk_archive_reader_errmsg": (c_char_p, [P]),
    "logtk_archive_reader_free": (None, [P]),
    "logtk_grep_new": (c_int, [PP, c_char_p, c_int]),
    "logtk_grep_next_block": (c_int, [P, P, POINTER(ArchiveBlock), WRITE_CALLBACK, c_void_p,
                                      POINTER(c_uint64)]),
    "logtk_grep_set_threads": (c_int, [P, c_int]),
    "logtk_grep_errmsg": (c_char_p, [P]),
    "logtk_grep_free": (None, [P]),
    "logtk_sessions_new": (c_int, [PP]),
    "logtk_sessions_load": (c_int, [P, c_char_p]),
    "logtk_sessions_append": (c_int, [P, c_char_p, c_size_t, c_char_p, c_size_t]),
    "logtk_sessions_set_label": (c_int, [P, c_char_p, c_size_t, c_int]),
    "logtk_sessions_load_labels": (c_int, [P, c_char_p, c_void_p]),
    "logtk_sessions_count": (c_size_t, [P]),
    "logtk_sessions_label": (c_int, [P, c_size_t]),
    "logtk_sessions_id": (Slice, [P, c_size_t]),
    "logtk_sessions_errmsg": (c_char_p, [P]),
    "logtk_sessions_free": (None, [P]),
    "logtk_detector_new": (c_int, [PP, c_char_p]),
    "logtk_detector_set_option": (c_int, [P, c_char_p, c_char_p]),
    "logtk_detector_train": (c_int, [P, P, POINTER(c_size_t), c_size_t]),
    "logtk_detector_score": (c_int, [P, P, POINTER(c_size_t), c_size_t, POINTER(c_double),
                                     POINTER(c_uint8)]),
    "logtk_detector_threshold": (c_double, [P]),
    "logtk_detector_save": (c_int, [P, PP, POINTER(c_size_t)]),
    "logtk_detector_load": (c_int, [P, c_char_p, c_size_t]),
    "logtk_detector_errmsg": (c_char_p, [P]),
    "logtk_detector_free": (None, [P]),
    "logtk_detect_evaluate": (c_int, [P, POINTER(c_size_t), c_size_t, POINTER(c_uint8),
                                      POINTER(DetectMetrics)]),
    "logtk_evaluate": (c_int, [c_size_t, POINTER(Slice), POINTER(Slice), POINTER(ParseMetrics)]),
}
for _name, (_res, _args) in _DECLS.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args

# Functions of newer libraries, used when present.
HAVE_MATCH = hasattr(lib, "logtk_parser_match")
if HAVE_MATCH:
    lib.logtk_parser_match.restype = c_int
    lib.logtk_parser_match.argtypes = [P, c_void_p, c_size_t, POINTER(Event)]
HAVE_MATCH_READER = hasattr(lib, "logtk_parser_match_reader")
if HAVE_MATCH_READER:
    lib.logtk_parser_match_reader.restype = c_int
    lib.logtk_parser_match_reader.argtypes = [P, P, P, c_size_t, POINTER(c_uint32),
                                              POINTER(c_size_t)]
HAVE_REMATCH_READER = hasattr(lib, "logtk_parser_rematch_reader")
if HAVE_REMATCH_READER:
    lib.logtk_parser_rematch_reader.restype = c_int
    lib.logtk_parser_rematch_reader.argtypes = [P, P, P, P, c_size_t, POINTER(c_uint32),
                                                POINTER(c_size_t)]
HAVE_EVALUATE_ERRORS = hasattr(lib, "logtk_evaluate_errors")
if HAVE_EVALUATE_ERRORS:
    lib.logtk_evaluate_errors.restype = c_int
    lib.logtk_evaluate_errors.argtypes = [c_size_t, POINTER(Slice), POINTER(Slice),
                                          GROUP_ERROR_CALLBACK, c_void_p]
HAVE_NAMED_MASK = hasattr(lib, "logtk_parser_add_named_mask")
if HAVE_NAMED_MASK:
    lib.logtk_parser_add_named_mask.restype = c_int
    lib.logtk_parser_add_named_mask.argtypes = [P, c_char_p, c_char_p, c_char_p]

OK, DONE = 0, 1
ERR_NOMEM, ERR_IO, ERR_INVALID, ERR_SYNTAX, ERR_DATA = -1, -2, -3, -4, -5
ERR_LINE_TOO_LONG, ERR_ARCHIVE, ERR_STATE, ERR_NOT_FOUND, ERR_LIMIT, ERR_UNSUPPORTED = \
    -6, -7, -8, -9, -10, -11
