"""logtk.Parser: log lines in, templates and parameters out (liblogtk's parsers)."""
import array
import ctypes
import os
import tempfile
from ctypes import byref, c_char_p, c_size_t, c_uint32, c_uint64, c_void_p, string_at

from . import _lib
from ._lib import lib
from .errors import InvalidError, LogtkError, NotFoundError, error

__all__ = ["Parser", "Event", "Template", "algorithms"]

_BLOCK_LINES = 1 << 16  # ids handed back per bulk call


def _bytes(text):
    if isinstance(text, bytes):
        return text
    if isinstance(text, (bytearray, memoryview)):
        return bytes(text)
    return text.encode("utf-8", "surrogateescape")


def _str(raw):
    return raw.decode("utf-8", "surrogateescape")


def _cstr(text):
    return None if text is None else _bytes(text)


def algorithms():
    """The names of the parsing algorithms of the library ("fuse", "drain", ...)."""
    names, i = [], 0
    while True:
        name = lib.logtk_parser_algorithm_name(i)
        if name is None:
            return names
        names.append(name.decode())
        i += 1


class Event:
    """What one line gave: its template id, the template's text and content key as they
    are now, the line's parameters (its own text at each "<*>"), and whether this line
    created or changed the template.  ``param_names`` names each parameter's mask where
    the library reports it (empty strings otherwise)."""
    __slots__ = ("template_id", "template", "key", "params", "created", "changed",
                 "param_names")

    def __init__(self, template_id, template, key, params, created, changed, param_names):
        self.template_id = template_id
        self.template = template
        self.key = key
        self.params = params
        self.created = created
        self.changed = changed
        self.param_names = param_names

    def __repr__(self):
        return ("Event(template_id=%d, template=%r, params=%r, created=%s, changed=%s)"
                % (self.template_id, self.template, self.params, self.created, self.changed))


class Template(tuple):
    """One template: (id, text, count, key); key is the content hash as 16 hex digits."""
    __slots__ = ()

    def __new__(cls, id, text, count, key):
        return tuple.__new__(cls, (id, text, count, key))

    id = property(lambda self: self[0])
    text = property(lambda self: self[1])
    count = property(lambda self: self[2])
    key = property(lambda self: self[3])

    def __repr__(self):
        return "Template(id=%d, text=%r, count=%d, key=%r)" % self


class _Format:
    """A compiled log format (logtk_format)."""

    def __init__(self, spec):
        h = c_void_p()
        rc = lib.logtk_format_new(byref(h))
        if rc:
            raise error(rc)
        self.handle = h
        self.spec = spec
        if spec is not None:
            rc = lib.logtk_format_compile(h, _bytes(spec))
            if rc:
                raise error(rc, lib.logtk_format_errmsg(h))
        self.record = _lib.Record()

    def fields(self):
        n = lib.logtk_format_field_count(self.handle)
        return [lib.logtk_format_field_name(self.handle, i).decode() for i in range(n)]

    def __del__(self):
        if getattr(self, "handle", None):
            lib.logtk_format_free(self.handle)
            self.handle = None


class Parser:
    """A log parser over liblogtk (logtk(3)).

    ``Parser(dataset=None, format=None, parser=None, masks=(), params=None)``:
    ``dataset`` a Loghub preset name ("HDFS": format, masks, parameters); ``format`` a
    log format such as ``"<Date> <Time> <Level> <Component>: <Content>"`` (lines are
    split by it and only the Content is parsed; default: the dataset's, or the whole
    line); ``parser`` an algorithm name (default the library's, fuse); ``masks`` regexes,
    (regex, replacement) pairs or (name, regex, replacement) triples; ``params`` a dict
    of algorithm parameters.

    A Parser is used by one thread at a time (the library releases the GIL while it
    works, so different parsers run in parallel in different threads).
    """

    def __init__(self, dataset=None, format=None, parser=None, masks=(), params=None,
                 _handle=None):
        self._handle = None
        d = None
        if dataset is not None:
            d = lib.logtk_dataset_find(_bytes(dataset))
            if not d:
                raise NotFoundError(_lib.ERR_NOT_FOUND, "unknown dataset '%s'" % dataset)
            if format is None:
                format = lib.logtk_dataset_format(d).decode()
        self._format = _Format(format) if format is not None else None
        if _handle is not None:
            self._handle = _handle
        else:
            h = c_void_p()
            rc = lib.logtk_parser_new(byref(h), _cstr(parser))
            if rc:
                raise error(rc, "unknown parser '%s'" % parser if rc == _lib.ERR_NOT_FOUND
                            else None)
            self._handle = h
            if d is not None:
                self._check(lib.logtk_dataset_configure(d, h))
            for name, value in (params or {}).items():
                self._check(lib.logtk_parser_set_option(h, _bytes(name), _bytes(str(value))))
            for mask in masks:
                self.add_mask(mask)
        self._event = _lib.Event()
        self._ev_ref = byref(self._event)
        self._texts = {}
        self._callback = _lib.TEMPLATE_CALLBACK(self._on_template)
        lib.logtk_parser_set_callback(self._handle, self._callback, None)

    # ------------------------------------------------------------ plumbing
    def _check(self, rc):
        if rc < 0:
            raise error(rc, lib.logtk_parser_errmsg(self._handle))
        return rc

    def _on_template(self, user, kind, template_id, text, length):
        # a template was created or its text changed: the cached text is stale
        self._texts.pop(template_id, None)

    def __del__(self):
        if getattr(self, "_handle", None):
            lib.logtk_parser_free(self._handle)
            self._handle = None

    def add_mask(self, mask):
        """Adds a masking rule: a regex, (regex, replacement) or (name, regex, replacement)."""
        h = self._handle
        if isinstance(mask, (str, bytes)):
            self._check(lib.logtk_parser_add_mask(h, _bytes(mask), None))
        elif len(mask) == 2:
            self._check(lib.logtk_parser_add_mask(h, _bytes(mask[0]), _cstr(mask[1])))
        elif len(mask) == 3 and _lib.HAVE_NAMED_MASK:
            self._check(lib.logtk_parser_add_named_mask(h, _bytes(mask[0]), _bytes(mask[1]),
                                                        _cstr(mask[2])))
        elif len(mask) == 3:
            self._check(lib.logtk_parser_add_mask(h, _bytes(mask[1]), _cstr(mask[2])))
        else:
            raise InvalidError(_lib.ERR_INVALID, "a mask is a regex, (regex, replacement) or "
                                                 "(name, regex, replacement): %r" % (mask,))

    @property
    def algorithm(self):
        return lib.logtk_parser_algorithm(self._handle).decode()

    @property
    def format(self):
        return self._format.spec if self._format else None

    def fields(self):
        """The header field names of the format (Content excluded)."""
        return self._format.fields() if self._format else []

    def template_text(self, template_id):
        """The text of template ``template_id`` as it is now."""
        text = self._texts.get(template_id)
        if text is None:
            s = _lib.Slice()
            self._check(lib.logtk_parser_template(self._handle, template_id, byref(s), None))
            text = self._texts[template_id] = _str(string_at(s.ptr, s.len)) if s.len else ""
        return text

    def template_key(self, template_id):
        k = c_uint64()
        self._check(lib.logtk_parser_template_key(self._handle, template_id, byref(k)))
        return "%016x" % k.value

    def _content(self, raw):
        """(pointer, length) of the content of a raw line under the format."""
        if self._format is None:
            return raw, len(raw)
        rec = self._format.record
        lib.logtk_format_match(self._format.handle, raw, len(raw), byref(rec))  # LIMIT: kept
        return rec.content.ptr, rec.content.len

    def _make_event(self, ev, created_changed=True):
        n = ev.nparams
        ps = ev.params
        params = [_str(string_at(ps[i].ptr, ps[i].len)) for i in range(n)]
        names = [""] * n
        if _lib.HAVE_MATCH and ev.param_names:
            pn = ev.param_names
            names = [_str(string_at(pn[i].ptr, pn[i].len)) for i in range(n)]
        tid = ev.template_id
        text = self.template_text(tid) if tid else ""
        return Event(tid, text, self.template_key(tid) if tid else "", params,
                     bool(ev.created), bool(ev.changed), names)

    # ------------------------------------------------------------ parsing
    def add(self, line):
        """Parses one line (str or bytes, no terminator) and learns from it; returns an Event."""
        raw = _bytes(line)
        ptr, n = self._content(raw)
        rc = lib.logtk_parser_feed(self._handle, ptr, n, self._ev_ref)
        if rc < 0 and rc != _lib.ERR_LIMIT:
            self._check(rc)
        return self._make_event(self._event)

    def match(self, line):
        """Classifies one line against the templates learned so far without learning from it;
        returns an Event (created and changed False) or None when no template matches."""
        if not _lib.HAVE_MATCH:
            raise LogtkError(_lib.ERR_UNSUPPORTED, "this liblogtk (%s) has no "
                             "logtk_parser_match()" % _lib.LIBRARY_PATH)
        raw = _bytes(line)
        ptr, n = self._content(raw)
        rc = lib.logtk_parser_match(self._handle, ptr, n, self._ev_ref)
        if rc == _lib.ERR_NOT_FOUND:
            return None
        if rc < 0 and rc != _lib.ERR_LIMIT:
            self._check(rc)
        return self._make_event(self._event)

    def _feed_reader(self, reader, collect, match=False):
        ids = array.array("I")
        block = (c_uint32 * _BLOCK_LINES)()
        n = c_size_t()
        fn = lib.logtk_parser_match_reader if match else lib.logtk_parser_feed_reader
        fmt = self._format.handle if self._format else None
        total = 0
        while True:
            rc = fn(self._handle, fmt, reader, _BLOCK_LINES, block if collect else None, byref(n))
            total += n.value
            if collect and n.value:
                ids.frombytes(memoryview(block).cast("B")[:4 * n.value])
            if rc == _lib.DONE:
                break
            if rc < 0:
                msg = lib.logtk_reader_errmsg(reader)
                if rc == _lib.ERR_NOMEM or not msg:
                    msg = lib.logtk_parser_errmsg(self._handle)
                raise error(rc, msg)
        self._texts.clear() if match else None
        return ids if collect else total

    def _with_reader(self, open_fn, collect, match=False):
        r = c_void_p()
        rc = lib.logtk_reader_new(byref(r))
        if rc:
            raise error(rc)
        try:
            rc = open_fn(r)
            if rc:
                raise error(rc, lib.logtk_reader_errmsg(r))
            return self._feed_reader(r, collect, match)
        finally:
            lib.logtk_reader_free(r)

    @staticmethod
    def _join(lines):
        if not lines:
            return b""
        try:
            data = b"\n".join(lines)
        except TypeError:
            try:
                data = "\n".join(lines).encode("utf-8", "surrogateescape")
            except TypeError:
                data = b"\n".join(_bytes(x) for x in lines)
        return data + b"\n"

    def add_many(self, lines, ids=True):
        """Parses and learns from many lines in one call into the library (the fast path);
        returns an array('I') of their template ids (as ``add`` would give them one by one),
        or the number of lines when ``ids`` is false.  A line holding a newline would count
        as two: that is refused."""
        lines = lines if isinstance(lines, (list, tuple)) else list(lines)
        data = self._join(lines)
        before = lib.logtk_parser_line_count(self._handle)
        result = self._with_reader(
            lambda r: lib.logtk_reader_open_memory(r, data, len(data), b"add_many"), ids)
        fed = lib.logtk_parser_line_count(self._handle) - before
        if fed != len(lines):
            raise InvalidError(_lib.ERR_INVALID, "add_many: %d lines given, %d parsed: a line "
                               "holds a newline" % (len(lines), fed))
        return result

    def match_many(self, lines):
        """Classifies many lines without learning; array('I') of template ids, 0 for none."""
        if not _lib.HAVE_MATCH_READER:
            return array.array("I", [(e.template_id if e else 0)
                                     for e in map(self.match, lines)])
        data = self._join(list(lines))
        return self._with_reader(
            lambda r: lib.logtk_reader_open_memory(r, data, len(data), b"match_many"), True,
            match=True)

    def parse_file(self, path, ids=True):
        """Parses and learns from every line of a file (plain, .gz .bz2 .xz .zst, or the
        members of a .tar/.zip) in C; returns an array('I') of the lines' template ids, or
        the number of lines when ``ids`` is false.  Errors name the file and line."""
        return self._with_reader(lambda r: lib.logtk_reader_open_path(r, os.fsencode(path)),
                                 ids)

    def match_file(self, path):
        """Classifies every line of a file without learning: array('I') of ids, 0 for none."""
        if not _lib.HAVE_MATCH_READER:
            raise LogtkError(_lib.ERR_UNSUPPORTED, "this liblogtk has no "
                             "logtk_parser_match_reader()")
        return self._with_reader(lambda r: lib.logtk_reader_open_path(r, os.fsencode(path)),
                                 True, match=True)

    def finish(self):
        """Ends the input (batch parsers compute their templates here)."""
        self._check(lib.logtk_parser_finish(self._handle))
        self._texts.clear()

    @property
    def line_count(self):
        return lib.logtk_parser_line_count(self._handle)

    def __len__(self):
        return lib.logtk_parser_template_count(self._handle)

    def templates(self):
        """Every template, ids 1..n, as Template(id, text, count, key)."""
        out = []
        s = _lib.Slice()
        count = c_uint64()
        for tid in range(1, lib.logtk_parser_template_count(self._handle) + 1):
            self._check(lib.logtk_parser_template(self._handle, tid, byref(s), byref(count)))
            text = _str(string_at(s.ptr, s.len)) if s.len else ""
            out.append(Template(tid, text, count.value, self.template_key(tid)))
        return out

    # ------------------------------------------------------------ state
    def save(self, path=None):
        """The learned state as bytes (an opaque, versioned snapshot); with ``path``, also
        written to that file atomically (a temporary file renamed into place)."""
        buf = c_void_p()
        n = c_size_t()
        self._check(lib.logtk_parser_save(self._handle, byref(buf), byref(n)))
        try:
            data = string_at(buf, n.value)
        finally:
            lib.logtk_free(buf)
        if path is not None:
            _write_atomically(path, data)
        return data

    def load(self, state):
        """Replaces the learned state with a snapshot: bytes, or the path of a file."""
        data = _read_state(state)
        self._check(lib.logtk_parser_load(self._handle, data, len(data)))
        self._texts.clear()

    @classmethod
    def from_state(cls, state, format=None):
        """A parser of the snapshot's own algorithm, loaded from it (bytes or a path)."""
        data = _read_state(state)
        name = c_char_p()
        rc = lib.logtk_parser_snapshot_algorithm(data, len(data), byref(name))
        if rc:
            raise error(rc, "not a logtk parser snapshot, or damaged")
        p = cls(parser=name.value.decode(), format=format)
        p.load(data)
        return p

    @classmethod
    def merged(cls, states, format=None, names=None):
        """One parser from the snapshots of several shards (logtk_parser_merge: templates
        united by text, counts summed; the result does not depend on their order)."""
        states = [_read_state(s) for s in states]
        n = len(states)
        bufs = (c_char_p * n)(*states)
        lens = (c_size_t * n)(*[len(s) for s in states])
        cnames = (c_char_p * n)(*[_cstr(x) for x in names]) if names else None
        h = c_void_p()
        rc = lib.logtk_parser_merge(byref(h), n, bufs, lens, cnames)
        if rc:
            msg = lib.logtk_parser_errmsg(h) if h else None
            lib.logtk_parser_free(h)
            raise error(rc, msg)
        return cls(format=format, _handle=h)

    def merge(self, *others):
        """Merges the state of other parsers (or snapshots) into this one."""
        states = [self.save()] + [o.save() if isinstance(o, Parser) else o for o in others]
        m = Parser.merged(states)
        lib.logtk_parser_set_callback(m._handle, _lib.TEMPLATE_CALLBACK(), None)
        old, self._handle = self._handle, m._handle
        m._handle = None
        lib.logtk_parser_free(old)
        lib.logtk_parser_set_callback(self._handle, self._callback, None)
        self._texts.clear()


def _read_state(state):
    if isinstance(state, (bytes, bytearray, memoryview)):
        return bytes(state)
    with open(state, "rb") as f:
        return f.read()


def _write_atomically(path, data):
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".logtk-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
