"""Parsing accuracy as Loghub-2.0 defines it (GA, PA, FGA, FTA), and the errors behind it.

    import logtk
    m = logtk.evaluate(parsed, truth)          # one template string per message, both sides
    print(m.ga, m.pa, m.fga, m.fta)
    for e in logtk.evaluate_errors(parsed, truth):
        print(e.kind, e.lines, e.first, e.truth, e.parsed)

Both call the library (logtk_evaluate(), logtk_evaluate_errors()), so the figures are those
of ``logtk bench parse`` and its ``--errors`` file.
"""
from collections import namedtuple
from ctypes import byref, c_char, cast, c_void_p

from . import _lib
from ._lib import lib
from .errors import error

Metrics = namedtuple("Metrics", "messages true_templates parsed_templates ga pa fga fta")
Metrics.__doc__ = """GA, PA, FGA and FTA of ``messages`` messages (see logtk-bench(1))."""

GroupError = namedtuple("GroupError", "kind lines first truth parsed")
GroupError.__doc__ = """A true and a parsed template sharing ``lines`` messages without being one
correct group written alike.  ``kind``: "split", "merged", "split+merged" or "text";
``first``: the index of the first of those messages."""

_KINDS = {1: "split", 2: "merged", 3: "split+merged", 4: "text"}


def _texts(values, side):
    """values as UTF-8 bytes, one buffer and its slices (the buffer must outlive them)."""
    encoded = []
    for i, v in enumerate(values):
        if isinstance(v, str):
            v = v.encode("utf-8", "surrogateescape")
        elif not isinstance(v, (bytes, bytearray)):
            raise TypeError("%s[%d]: a template must be str or bytes, not %s"
                            % (side, i, type(v).__name__))
        encoded.append(bytes(v))
    data = b"".join(encoded)
    buf = (c_char * max(len(data), 1)).from_buffer_copy(data or b"\0")
    base = cast(buf, c_void_p).value
    slices = (_lib.Slice * max(len(encoded), 1))()
    at = 0
    for i, v in enumerate(encoded):
        slices[i].ptr = base + at
        slices[i].len = len(v)
        at += len(v)
    return buf, slices


def _inputs(parsed, truth):
    parsed, truth = list(parsed), list(truth)
    if len(parsed) != len(truth):
        raise ValueError("%d parsed templates for %d true ones: one of each per message"
                         % (len(parsed), len(truth)))
    if not parsed:
        raise ValueError("no messages to evaluate")
    return len(parsed), _texts(parsed, "parsed"), _texts(truth, "truth")


def evaluate(parsed, truth):
    """GA, PA, FGA and FTA of the parsed template strings against the true ones (one of
    each per message, in the same order; str or bytes).  Returns a Metrics."""
    n, (pbuf, pslices), (tbuf, tslices) = _inputs(parsed, truth)
    m = _lib.ParseMetrics()
    rc = lib.logtk_evaluate(n, pslices, tslices, byref(m))
    if rc != _lib.OK:
        raise error(rc)
    del pbuf, tbuf
    return Metrics(m.messages, m.true_templates, m.parsed_templates, m.ga, m.pa, m.fga, m.fta)


def evaluate_errors(parsed, truth):
    """The pairs of a true and a parsed template that cost GA, PA, FGA or FTA, as a list of
    GroupError in the order of ``logtk bench parse --errors``: by the first message of the
    true template, then of the pair.  The messages of the pairs that are not "text" are the
    ones GA misses.  Templates come back as str (bytes that are not UTF-8 as surrogate
    escapes)."""
    if not _lib.HAVE_EVALUATE_ERRORS:
        raise NotImplementedError("this liblogtk has no logtk_evaluate_errors()")
    n, (pbuf, pslices), (tbuf, tslices) = _inputs(parsed, truth)
    found = []

    def text(s):
        raw = (c_char * s.len).from_address(s.ptr).raw if s.len else b""
        return raw.decode("utf-8", "surrogateescape")

    def on_error(_arg, e):
        e = e.contents
        found.append(GroupError(_KINDS.get(e.kind, str(e.kind)), e.messages, e.first,
                                text(e.truth), text(e.parsed)))
        return 0

    callback = _lib.GROUP_ERROR_CALLBACK(on_error)
    rc = lib.logtk_evaluate_errors(n, pslices, tslices, callback, None)
    if rc != _lib.OK:
        raise error(rc)
    del pbuf, tbuf
    return found
