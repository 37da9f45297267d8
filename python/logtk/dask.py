"""logtk.dask: parse, compress and grep many files on a Dask ``distributed.Client``.

Work is cut into shards: a plain file into byte ranges of about ``shard_bytes`` that end at
a newline, a compressed file or archive whole.  The shards depend on the input and
``shard_bytes`` only, never on the number of workers, and every step below is a function
of the shards, so the output is byte-identical for any number of workers (or none:
``client=None`` runs the same steps in this process).

parse() runs four steps, as one learn task and one classify task per worker (each over
the worker's share of the shards, shard by shard: Dask's cost per task, paid on the cores
the work runs on, does not grow with the number of shards):

1. learn: each shard is parsed by its own fresh parser (logtk_parser_feed_reader), which
   returns its saved state and keeps each line's template id (on the worker);
2. merge: each classify task merges the states of all shards by logtk_parser_merge()
   (templates united by text, counts summed, folded through a fresh parser; the library
   promises, and ``check_merge_order`` checks, that the result does not depend on their
   order), once per worker and job, so no merge task stands between the two steps;
3. classify: each shard's lines are given, without learning, what matching them against
   the merged templates gives (logtk_parser_rematch_reader, from the learn step's ids: a
   line's shard template settles most of it, and only the few templates that could take
   the line first are tried), so every line of every shard is named by the same
   template set; templates of equal text are one (the lowest id), as `logtk parse` does;
   each task returns its shard's distinct ids in first-seen order and their counts
   (and, when asked for, the ids: 1 to 4 bytes a line, the narrowest type that holds
   them, counted and relabelled with numpy when it is installed; the client never loops
   over lines in Python);
4. relabel and write: templates are numbered 1, 2, ... in first-seen order over the whole
   input (shard order, line order), the order in which a sequential run creates them and
   the way `logtk parse` numbers its EventIds (without the gaps of merged ids), and each
   shard writes its rows (logtk_rows_write: `logtk parse`'s TSV, CSV or JSON Lines, with
   global line ids); the parts are joined in order into one file.

What equals `logtk parse` on the whole input: the row layout, line ids, header fields,
contents and, for every line whose merged template has the text a sequential run gives
it, the template text, parameters and EventId; the template list too when every line
does.  The merged templates can differ from a sequential run's where the order of lines
decides a template (an online parser sees other lines first in each shard);
``compare_rows`` counts those lines.  On the 16 Loghub-2k logs in 4 shards none does:
rows and template lists are byte-identical (tests/python_dask.sh checks it).  In 3
shards, 7 of OpenSSH's 2,000 lines do: a shard that saw only two user names after
``user=`` keeps them as words, where one process saw enough names to make the field
``<*>``, and the merge sees templates, not the words that made them.  With one
shard (shard_bytes larger than the input) step 2 is skipped and step 3 uses the learn
step's own ids, so the rows equal `logtk parse`'s.
"""
import array
import collections
import json
import mmap
import os
import time

try:  # optional (Debian's python3-numpy): per-line counting and relabelling in C
    import numpy as _np
except ImportError:  # pragma: no cover - the pure-Python paths below do the same
    _np = None

from . import _lib
from .archive import Archive
from .parser import Parser, _bytes

__all__ = ["plan_shards", "parse", "compress", "grep", "ParseResult", "compare_rows",
           "check_merge_order"]

_COMPRESSED_MAGIC = (b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00", b"\x28\xb5\x2f\xfd", b"PK\x03\x04")


def _whole_file(path):
    with open(path, "rb") as f:
        head = f.read(512)
    return head.startswith(_COMPRESSED_MAGIC) or head[257:262] == b"ustar"


def plan_shards(paths, shard_bytes=64 << 20):
    """The shards of ``paths``: a list of (path, start, end) byte ranges, end None for a
    whole (compressed) file.  A plain file larger than ``shard_bytes`` is cut into
    ceil(size / shard_bytes) ranges of nearly equal size (no small last shard to wait for
    at each step); cuts fall just after a newline, so no line is split."""
    shards = []
    for path in paths:
        path = os.fspath(path)
        size = os.path.getsize(path)
        if _whole_file(path) or size <= shard_bytes:
            shards.append((path, 0, None if _whole_file(path) else size))
            continue
        count = -(-size // shard_bytes)
        with open(path, "rb") as f:
            start, k = 0, 0
            while start < size:
                k += 1
                cut = max(start + 1, size * k // count)
                if cut >= size:
                    cut = size
                else:
                    f.seek(cut)
                    while True:
                        window = f.read(1 << 16)
                        if not window:
                            cut = size
                            break
                        nl = window.find(b"\n")
                        if nl >= 0:
                            cut += nl + 1
                            break
                        cut += len(window)
                shards.append((path, start, cut))
                start = cut
    return shards


def _with_shard_reader(shard, fn):
    """fn(reader) with a library reader opened on the shard's lines, freed after."""
    from ctypes import byref, c_void_p
    lib = _lib.lib

    def run(opener):
        r = c_void_p()
        lib.logtk_reader_new(byref(r))
        try:
            rc = opener(r)
            if rc:
                raise _err(rc, lib.logtk_reader_errmsg(r))
            return fn(r)
        finally:
            lib.logtk_reader_free(r)
    return _open_shard(None, shard, run)


def _open_shard(parser, shard, fn):
    """Runs fn(reader-open function) over the shard's lines.  A byte range is read where
    it lies in the page cache (a private mapping of the file), not copied into Python."""
    import ctypes
    path, start, end = shard
    if end is None:
        return fn(lambda r: _lib.lib.logtk_reader_open_path(r, os.fsencode(path)))
    name = ("%s:%d-%d" % (path, start, end)).encode()
    if end == start:
        return fn(lambda r: _lib.lib.logtk_reader_open_memory(r, b"", 0, name))
    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size < end:
            raise _err(_lib.ERR_DATA, "%s: changed while being parsed (shorter than %d bytes)"
                       % (path, end))
        # ACCESS_COPY: writable to ctypes (from_buffer), never written, never copied.
        # A file cut shorter while mapped would fault (SIGBUS): logs are appended to,
        # not cut, and the size was checked just above.
        base = start - start % mmap.ALLOCATIONGRANULARITY
        m = mmap.mmap(f.fileno(), end - base, access=mmap.ACCESS_COPY, offset=base)
    try:
        view = (ctypes.c_char * (end - start)).from_buffer(m, start - base)
        try:
            return fn(lambda r: _lib.lib.logtk_reader_open_memory(r, view, end - start, name))
        finally:
            view = None  # the mapping closes only once no buffer points into it
    finally:
        m.close()


def _new_parser(cfg):
    return Parser(dataset=cfg.get("dataset"), format=cfg.get("format"),
                  parser=cfg.get("parser"), masks=cfg.get("masks", ()),
                  params=cfg.get("params"))


# Per worker process: the learn step's per-line ids of the shards learned here, until their
# classify task takes them.  The learn result carries only a token, so the states travel
# alone (to the client, for the merge: never every shard's ids to one place); the classify
# task of a shard depends on that learn result, so Dask runs it here.  A classify task that
# finds no ids (moved to another worker, run twice, or the ids dropped to bound memory)
# matches its lines against the merged templates instead: the same answers, slower.
_kept_ids = collections.OrderedDict()
_KEPT_MAX_BYTES = 1 << 30


def _keep_ids(ids):
    import uuid
    token = uuid.uuid4().hex
    _kept_ids[token] = ids
    total = sum(len(x) * getattr(x, "itemsize", 4) for x in _kept_ids.values())
    while total > _KEPT_MAX_BYTES and len(_kept_ids) > 1:
        _, dropped = _kept_ids.popitem(last=False)
        total -= len(dropped) * getattr(dropped, "itemsize", 4)
    return token


def _learn(shard, cfg, keep_ids, single):
    """Learns a shard with a fresh parser: its state, and each line's template id, kept on
    this worker for the classify step (with one shard, in the result: they are final)."""
    p = _new_parser(cfg)
    t = time.process_time()
    ids = _open_shard(p, shard, lambda opener: p._with_reader(opener, keep_ids or single))
    p.finish()
    lines = len(ids) if keep_ids or single else ids
    return {"state": p.save(), "ids": _compact(ids) if single else None,
            "kept": _keep_ids(_compact(ids)) if keep_ids and not single else None,
            "lines": lines, "cpu": time.process_time() - t, "end": time.time()}


def _merge_learned(cfg, learned):
    """The merge task: the merged state of the learn results, with the learn step's figures."""
    started = time.time()
    merged = _merge(cfg, [d["state"] for d in learned])
    merged.update(started=started, ended=time.time(),
                  learn_end=max(d["end"] for d in learned),
                  learn_cpu=sum(d["cpu"] for d in learned),
                  state_bytes=sum(len(d["state"]) for d in learned))
    return merged


def _merge(cfg, states):
    t = time.process_time()
    if len(states) == 1:
        state = states[0]
    else:
        state = Parser.merged(states).save()
    return {"state": state, "cpu": time.process_time() - t}


def _ids_np(ids):
    """The ids as a numpy array (array('I') viewed, not copied)."""
    return ids if isinstance(ids, _np.ndarray) else _np.frombuffer(ids, dtype=_np.uint32)


def _first_seen(ids):
    """The distinct ids in order of their first line."""
    if _np is not None and len(ids):
        ids_np = _ids_np(ids)
        distinct, first = _np.unique(ids_np, return_index=True)
        return distinct[_np.argsort(first, kind="stable")].tolist()
    return list(dict.fromkeys(ids))  # insertion-ordered: C speed, no Python loop per line


def _compact(ids):
    """The ids in the narrowest unsigned type that holds them (numpy; HDFS: 1 byte a
    line instead of 4), so that less travels from the workers and less is unpickled."""
    if _np is None or not len(ids):
        return ids
    ids_np = _ids_np(ids)
    top = int(ids_np.max())
    for kind in (_np.uint8, _np.uint16):
        if top <= _np.iinfo(kind).max:
            return ids_np.astype(kind)
    return ids_np


def _counts(ids):
    """{id: lines} of the ids."""
    if _np is not None and len(ids):
        per_id = _np.bincount(_ids_np(ids))
        used = _np.flatnonzero(per_id)
        return dict(zip(used.tolist(), per_id[used].tolist()))
    return dict(collections.Counter(ids))


def _relabelled(ids, relabel, out=None):
    """array('I') of relabel[id] for each id (a table lookup per line, in C with numpy);
    with ``out`` (a numpy uint32 array as long as ids), written there instead."""
    if _np is not None and len(ids):
        table = _np.asarray(relabel, dtype=_np.uint32)
        if out is not None:
            # every id is one of the merged parser's, so within the table: "clip" only
            # spares the bounds check (a third of the time)
            _np.take(table, _ids_np(ids), out=out, mode="clip")
            return out
        result = array.array("I")
        result.frombytes(table[_ids_np(ids)].tobytes())
        return result
    return array.array("I", map(relabel.__getitem__, ids))


_merged_cache = {}  # per worker process: the merged parser of the last job, loaded once


def _merged_parser(cfg, state):
    key = (state, _format_of(cfg))
    if _merged_cache.get("key") != key:
        _merged_cache.clear()
        _merged_cache["parser"] = Parser.from_state(state, format=key[1])
        _merged_cache["key"] = key
    return _merged_cache["parser"]


_job_merge = {}  # per worker process: the merged state of the job its classify task is for


def _merged_for(job, cfg, learned):
    """The merged state of the learn results ``learned`` of job ``job``, made once in this
    process for the job: each worker merges the states itself (0.7 ms for 18 HDFS states)
    rather than waiting for one merge task's result to be sent it (a round trip through
    the scheduler and one more transfer between workers)."""
    if _job_merge.get("job") != job:
        merged = _merge_learned(cfg, learned)
        _job_merge.clear()
        _job_merge.update(job=job, merged=merged)
    return _job_merge["merged"]


def _learn_shards(shards, cfg, keep_ids, single):
    """The learn task of one worker: _learn of each of its shards, in turn."""
    return [_learn(shard, cfg, keep_ids, single) for shard in shards]


def _classify_shards(shards, learned, cfg, job, everyone, where, single, summary_only, report):
    """The classify task of one worker: the merged state of every shard's learn result
    (``everyone``: the learn tasks' results, ``where``: the shard numbers of each), then
    _classify of each of this worker's shards (``learned``: its own learn task's result);
    with ``report``, the merged state and the learn step's figures go with the result."""
    flat = [None] * sum(len(x) for x in where)
    for results, numbers in zip(everyone, where):
        for d, k in zip(results, numbers):
            flat[k] = d
    merged = _merged_for(job, cfg, flat)
    return {"shards": [_classify(shard, d, cfg, merged, single, summary_only)
                       for shard, d in zip(shards, learned)],
            "merged": merged if report else None}


def _classify(shard, learned, cfg, merged, single=False, summary_only=False):
    t = time.process_time()
    if single:  # one shard: the learn step's own ids are the sequential ones
        ids = learned["ids"]
    else:
        p = _merged_parser(cfg, merged["state"])
        kept = _kept_ids.pop(learned["kept"], None) if learned["kept"] else None
        if kept is not None:
            ids = _rematch(p, Parser.from_state(learned["state"]), shard, kept)
        else:
            ids = _open_shard(p, shard, lambda opener: p._with_reader(opener, True, match=True))
    ids = _compact(ids)  # also makes the counting below cheaper (a third, for one byte)
    return {"ids": None if summary_only else ids, "first_seen": _first_seen(ids),
            "counts": _counts(ids), "lines": len(ids), "cpu": time.process_time() - t}


_REMATCH = True  # classify with the learn step's ids (False: match every line; tests)


def _rematch(p, local, shard, learned_ids):
    """The merged parser's ids of a shard's lines, from their ids in the shard's own parser
    (logtk_parser_rematch_reader: most lines need no match, the others few templates)."""
    from ctypes import byref, c_size_t, c_uint32
    lib = _lib.lib
    ids = array.array("I", learned_ids if _np is None else b"")
    if _np is not None:
        ids.frombytes(_ids_np(learned_ids).astype(_np.uint32).tobytes())
    n = len(ids)
    ids_c = (c_uint32 * n).from_buffer(ids) if n else None
    fmt = p._format.handle if p._format else None
    got = c_size_t()

    def rematch(r):
        rc = lib.logtk_parser_rematch_reader(p._handle, local._handle, fmt, r, n, ids_c,
                                             byref(got))
        if rc < 0:
            raise _err(rc, lib.logtk_reader_errmsg(r) or lib.logtk_parser_errmsg(p._handle))
    _with_shard_reader(shard, rematch)
    if got.value != n:
        raise _err(_lib.ERR_DATA, "%s: changed while being parsed (%d lines, then %d)"
                   % (shard[0], n, got.value))
    ids_c = None
    return ids


def _summary(classified):
    """A classify task's result without the per-line ids (they stay on the worker)."""
    keys = ("first_seen", "counts", "lines", "cpu")
    return {"shards": [{k: d[k] for k in keys} for d in classified["shards"]],
            "merged": classified["merged"]}


def _format_of(cfg):
    if cfg.get("format") is not None:
        return cfg["format"]
    if cfg.get("dataset") is not None:
        d = _lib.lib.logtk_dataset_find(_bytes(cfg["dataset"]))
        return _lib.lib.logtk_dataset_format(d).decode() if d else None
    return None


def _write_rows(shard, classified, first_line_id, out_path, cfg, relabel, texts, kind):
    """Writes one shard's rows: ids relabelled, texts indexed by final id."""
    from ctypes import byref, c_size_t, c_uint32, c_void_p
    t = time.process_time()
    lib = _lib.lib
    from ctypes import cast, c_char_p
    final = _relabelled(classified["ids"], relabel)
    ids_c = (c_uint32 * len(final)).from_buffer(final) if len(final) else None
    raw = [_bytes(x) for x in texts]  # kept alive while the slices point into them
    slices = (_lib.Slice * len(raw))()
    for k, b in enumerate(raw):
        slices[k].ptr = cast(c_char_p(b), c_void_p).value if b else None
        slices[k].len = len(b)
    fmt = _FormatHolder(_format_of(cfg))
    sink = c_void_p()
    rc = lib.logtk_sink_new(byref(sink), kind.encode(), os.fsencode(out_path), fmt.handle)
    if rc:
        msg = lib.logtk_sink_errmsg(sink) if sink else None
        lib.logtk_sink_free(sink)
        raise _err(rc, msg)
    written = c_size_t()
    try:
        def write(r):
            rc = lib.logtk_rows_write(sink, fmt.handle, r, first_line_id, ids_c, len(final),
                                      slices, len(raw), byref(written))
            if rc:
                raise _err(rc, lib.logtk_sink_errmsg(sink) or lib.logtk_reader_errmsg(r))
        _with_shard_reader(shard, write)
        if written.value != len(final):
            raise _err(_lib.ERR_DATA, "%s: changed while being parsed (%d lines, then %d)"
                       % (shard[0], len(final), written.value))
        rc = lib.logtk_sink_close(sink)
        if rc:
            raise _err(rc, lib.logtk_sink_errmsg(sink))
    finally:
        lib.logtk_sink_free(sink)
    return {"rows": written.value, "cpu": time.process_time() - t}


def _write_rows_shards(shards, classified, first_line_ids, out_paths, cfg, relabel, texts,
                       kind):
    """The write task of one worker: _write_rows of each of its shards."""
    return [_write_rows(shard, d, first, path, cfg, relabel, texts, kind)
            for shard, d, first, path in zip(shards, classified["shards"], first_line_ids,
                                             out_paths)]


def _err(rc, msg):
    from .errors import error
    return error(rc, msg)


class _FormatHolder:
    def __init__(self, spec):
        from .parser import _Format
        self._f = _Format(spec) if spec is not None else None
        self.handle = self._f.handle if self._f else None


class ParseResult:
    """What parse() found: ``templates`` (list of (id, text, count, key) in final id
    order), ``ids`` (array('I') of every line's final id, when asked for), ``lines``,
    ``shards``, ``rows`` (the path of the rows file, when written) and ``timings``
    (wall seconds per step, and the CPU seconds the workers spent)."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def templates_tsv(self):
        """The template list as `logtk parse --templates` writes it."""
        out = ["EventId\tEventTemplate\tOccurrences\tEventKey\n"]
        for tid, text, count, key in self.templates:
            out.append("E%d\t%s\t%d\t%s\n" % (tid, _tsv_escape(text), count, key))
        return "".join(out)


def _tsv_escape(s):
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def _fnv1a64(text):
    h = 0xcbf29ce484222325
    for byte in _bytes(text):
        h = ((h ^ byte) * 0x100000001b3) & 0xffffffffffffffff
    return "%016x" % h


class _Local:
    """client=None: the same steps, in this process."""

    class _Done:
        def __init__(self, value):
            self._value = value

        def result(self):
            return self._value

    def submit(self, fn, *args, **kw):
        kw.pop("pure", None)
        kw.pop("key", None)
        args = [a.result() if isinstance(a, _Local._Done) else a for a in args]
        args = [[x.result() if isinstance(x, _Local._Done) else x for x in a]
                if isinstance(a, list) else a for a in args]
        return _Local._Done(fn(*args))

    def map(self, fn, *iterables, **kw):
        kw.pop("pure", None)
        kw = {k: [x.result() for x in v] if isinstance(v, list) and v and
              isinstance(v[0], _Local._Done) else v.result() if isinstance(v, _Local._Done)
              else v for k, v in kw.items()}
        return [self.submit(lambda *a: fn(*a, **kw), *args) for args in zip(*iterables)]

    def gather(self, futures):
        return [f.result() for f in futures]

    def scatter(self, value, broadcast=False):
        return _Local._Done(value)


def parse(client, paths, out=None, kind="tsv", templates=None, dataset=None, format=None,
          parser=None, masks=(), params=None, shard_bytes=64 << 20, shards=None,
          return_ids=False):
    """Parses ``paths`` on ``client`` (None: in this process).  ``out``: write the rows
    there (``kind`` tsv, csv or jsonl; parts written next to it, then joined in order);
    ``templates``: write the template list there.  Returns a ParseResult."""
    client = client if client is not None else _Local()
    cfg = {"dataset": dataset, "format": format, "parser": parser, "masks": list(masks),
           "params": params}
    shards = shards if shards is not None else plan_shards(paths, shard_bytes)
    timings = {}
    cpu0 = time.process_time()
    t0 = time.perf_counter()
    # One learn and one classify task per worker, all sent in one graph (see
    # _submit_steps): worker w learns and classifies shards w, w + n, w + 2n, ... in
    # turn, so it goes on from learn to classify without a round trip through the client,
    # and classifies each shard where its learn ids are; each classify task merges the
    # states (kilobytes: each shard's line ids stay on its worker) itself.  The client
    # receives the merged state and the classify results: summaries and, when asked for,
    # the per-line ids (1 to 4 bytes a line); it never loops over lines in Python.
    single = len(shards) == 1
    need_ids = out is not None or return_ids
    rematch = _REMATCH and _lib.HAVE_REMATCH_READER
    wall0 = time.time()
    classified, where = _submit_steps(client, shards, cfg, rematch, single,
                                      summary_only=not need_ids)
    if return_ids or not need_ids:
        done = _gather(client, classified)  # with the ids when asked for
    else:  # the rows are written where the ids are
        done = _gather(client, _tasks(client, _summary, classified))
    merged = done[0]["merged"]  # the first worker's task reports the merge
    summaries = [None] * len(shards)
    for result, numbers in zip(done, where):
        for d, k in zip(result["shards"], numbers):
            summaries[k] = d
    timings["learn"] = merged["learn_end"] - wall0
    timings["merge"] = merged["ended"] - merged["started"]
    timings["merge_cpu"] = merged["cpu"]
    timings["state_bytes"] = merged["state_bytes"]
    timings["classify"] = time.perf_counter() - t0 - timings["learn"] - timings["merge"]
    learn_cpu = merged["learn_cpu"]

    m = Parser.from_state(merged["state"], format=_format_of(cfg))
    # relabel: equal texts are one template (the lowest id), numbered 1, 2, ... in order of
    # their first line over the whole input (shard order, line order): the order in which a
    # sequential run creates them, and how `logtk parse` numbers its EventIds (no gaps)
    texts = {t.id: t.text for t in m.templates()}
    canonical, by_text = {}, {}
    for tid in sorted(texts):
        canonical[tid] = by_text.setdefault(texts[tid], tid)
    canonical[0] = 0
    order, seen = [], set()
    counts = {}
    for s in summaries:
        for tid in s["first_seen"]:
            c = canonical[tid]
            if c and c not in seen:
                seen.add(c)
                order.append(c)
        for tid, n in s["counts"].items():
            counts[canonical[tid]] = counts.get(canonical[tid], 0) + n
    if single:  # the sequential run's own templates, in id order, as `logtk parse` lists them
        order = sorted(set(canonical[tid] for tid in texts))
    final_of = {c: k + 1 for k, c in enumerate(order)}
    relabel = [0] * (max(texts) + 1 if texts else 1)
    for tid in texts:
        relabel[tid] = final_of.get(canonical[tid], 0)
    final_texts = [""] + [texts[c] for c in order]
    result_templates = [(final_of[c], texts[c], counts.get(c, 0), _fnv1a64(texts[c]))
                        for c in order]
    nlines = sum(s["lines"] for s in summaries)

    rows_path = None
    if out is not None:
        t = time.perf_counter()
        first, parts, jobs = 1, [], []
        for k, s in enumerate(shards):
            part = "%s.part%05d" % (out, k)
            parts.append(part)
            jobs.append(first)
            first += summaries[k]["lines"]
        per_worker = lambda items: [[items[k] for k in numbers] for numbers in where]  # noqa: E731
        written = []
        for x in client.gather(_tasks(client, _write_rows_shards, per_worker(shards), classified,
                                      per_worker(jobs), per_worker(parts), cfg=cfg,
                                      relabel=relabel, texts=final_texts, kind=kind)):
            written.extend(x)
        _join_parts(parts, out, header=kind in ("tsv", "csv"))
        timings["write"] = time.perf_counter() - t
        timings["write_cpu"] = sum(w["cpu"] for w in written)
        rows_path = out
    ids = None
    if return_ids:
        ids = array.array("I")
        if _np is not None and nlines:
            # one buffer, the result's own, each shard relabelled into its place
            ids = array.array("I", [0]) * nlines
            final = _np.frombuffer(ids, dtype=_np.uint32)
            at = 0
            for s in summaries:
                _relabelled(s["ids"], relabel, out=final[at:at + s["lines"]])
                at += s["lines"]
            del final  # the array can grow again once no view is left
        else:
            for s in summaries:
                ids.extend(_relabelled(s["ids"], relabel))
    timings["total"] = time.perf_counter() - t0
    timings["client_cpu"] = time.process_time() - cpu0
    timings["learn_cpu"] = learn_cpu
    timings["classify_cpu"] = sum(s["cpu"] for s in summaries)
    result = ParseResult(templates=result_templates, ids=ids, lines=nlines, shards=shards,
                         rows=rows_path, timings=timings, unmatched=counts.get(0, 0))
    if templates is not None:
        _write_text(templates, result.templates_tsv().encode("utf-8", "surrogateescape"))
    return result


def _submit_steps(client, shards, cfg, keep_ids, single, summary_only):
    """The learn and classify tasks of parse(), sent to the scheduler as one graph (one
    message; one look at the caller's source by distributed's client, 4 ms a call, which
    five client.map calls paid before): one learn task and one classify task per worker
    (as many as there are shards at most), worker w taking shards w, w + n, w + 2n, ...
    Returns the classify tasks' futures and, for each, the numbers of its shards.

    A task a worker and not a shard: the work per shard does not depend on the number of
    workers, but Dask's cost per task does, and on 2 cores it is paid on the cores the
    tasks run on (2M HDFS lines in 18 shards as 37 tasks, one a shard and step: the
    scheduler, the client and the workers outside their tasks spent ~150 ms of CPU per
    job, against ~650 ms in the tasks; as 4 tasks, ~50 ms).  Each task is placed on its worker (any other takes it when
    that one is gone): learn and classify of a shard so run in one place without the
    client in between, and the shards are spread evenly (handed out as workers asked,
    one worker took 10 of 18 shards and ended 57 ms after the other)."""
    import uuid
    job = uuid.uuid4().hex  # the keys of this job alone (pure=False)
    workers = sorted(client.scheduler_info()["workers"]) if hasattr(client,
                                                                    "scheduler_info") else []
    if not workers:  # in this process (_Local): one worker
        learned = client.submit(_learn_shards, shards, cfg, keep_ids, single)
        where = [list(range(len(shards)))]
        return [client.submit(_classify_shards, shards, learned, cfg, job, [learned], where,
                              single, summary_only, True)], where
    from dask.highlevelgraph import HighLevelGraph, MaterializedLayer
    n = min(len(workers), len(shards))
    where = [list(range(w, len(shards), n)) for w in range(n)]
    learn = [("logtk-learn-" + job, w) for w in range(n)]
    classify = [("logtk-classify-" + job, w) for w in range(n)]
    # a layer per task, its place as the layer's annotation; the arguments are
    # positional, since Dask finds the keys a task needs in lists, not in keywords
    layers, deps = {}, {}
    for w in range(n):
        place = {"workers": [workers[w]], "allow_other_workers": True}
        mine = [shards[k] for k in where[w]]
        layers["learn-%d" % w] = MaterializedLayer(
            {learn[w]: (_learn_shards, mine, cfg, keep_ids, single)}, annotations=place)
        deps["learn-%d" % w] = set()
        layers["classify-%d" % w] = MaterializedLayer(
            {classify[w]: (_classify_shards, mine, learn[w], cfg, job, list(learn), where,
                           single, summary_only, w == 0)}, annotations=place)
    for w in range(n):
        deps["classify-%d" % w] = {"learn-%d" % v for v in range(n)}
    return _send_graph(client, HighLevelGraph(layers, deps), classify), where


def _send_graph(client, graph, keys):
    """client.get of the graph, from a function of three lines: distributed's client reads
    and tokenizes the source of the function that submits (for its dashboard) at every
    call, ~1 ms for _submit_steps."""
    return client.get(graph, keys, sync=False)


def _gather(client, futures):
    """The futures' results, fetched by this client from the workers that hold them
    (through the scheduler, the default, the per-line ids made one more hop), each batch
    as soon as it is done: while the workers run the last tasks, the client already has
    the others' results (2M HDFS lines, 2 workers, a task a shard as parse() sent them
    then: 9-10 ms from the last task to the client's result instead of 12-13)."""
    if isinstance(client, _Local):
        return client.gather(futures)
    from distributed import as_completed
    got = {}
    # the client's own loop: as_completed() takes the default client's (the newest one
    # made in this process), and tracked on another client's loop these futures were
    # seen done about a second late
    for batch in as_completed(futures, loop=client.loop).batches():
        got.update(zip((f.key for f in batch), client.gather(batch, direct=True)))
    return [got[f.key] for f in futures]


def _tasks(client, fn, *items, **kw):
    """fn(item, **kw) for each item, as tasks: one graph update for all of them, sent from
    this small function because distributed's client reads the source of the function that
    submits (for its dashboard) at every call: 4 ms a task when that was parse()."""
    return client.map(fn, *items, pure=False, **kw)


def _join_parts(parts, out, header):
    from .parser import _write_atomically  # noqa: F401 (same temporary-file rule)
    import shutil
    import tempfile
    d = os.path.dirname(os.path.abspath(out))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".logtk-")
    try:
        with os.fdopen(fd, "wb") as dst:
            for k, part in enumerate(parts):
                with open(part, "rb") as src:
                    if header and k:
                        src.readline()
                    shutil.copyfileobj(src, dst, 1 << 20)
        os.replace(tmp, out)
    except BaseException:
        os.unlink(tmp)
        raise
    finally:
        for part in parts:
            try:
                os.unlink(part)
            except OSError:
                pass


def _write_text(path, data):
    from .parser import _write_atomically
    _write_atomically(path, data)


def compare_rows(a, b):
    """Compares two TSV row files of `logtk parse`: returns (lines, lines whose template
    text or parameters differ, whether the EventIds agree up to renaming)."""
    diff = lines = 0
    ids_a, ids_b = {}, {}
    renaming = True
    with open(a, "rb") as fa, open(b, "rb") as fb:
        fa.readline()
        fb.readline()
        for la, lb in zip(fa, fb):
            lines += 1
            xa = la.rstrip(b"\n").split(b"\t")
            xb = lb.rstrip(b"\n").split(b"\t")
            if xa[:-3] != xb[:-3]:
                raise ValueError("%s and %s hold other lines (line %d)" % (a, b, lines))
            if xa[-2:] != xb[-2:]:
                diff += 1
            if ids_a.setdefault(xa[-3], xb[-3]) != xb[-3] or \
                    ids_b.setdefault(xb[-3], xa[-3]) != xa[-3]:
                renaming = False
    return lines, diff, renaming


def check_merge_order(states):
    """True when merging the snapshots in the given and in the reversed order (and a
    rotation) saves byte-identical states."""
    first = Parser.merged(states).save()
    orders = [list(reversed(states)), states[1:] + states[:1]]
    return all(Parser.merged(o).save() == first for o in orders)


# ------------------------------------------------------------------ compress and grep

def _compress_shard(shard, path, level, fmt):
    t = time.process_time()
    src, start, end = shard
    if end is None:
        with open(src, "rb") as f:
            data = f.read()
    else:
        with open(src, "rb") as f:
            f.seek(start)
            data = f.read(end - start)
    Archive.compress(data, path, level=level, format=fmt)
    lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    return {"lines": lines, "bytes": len(data), "archive_bytes": os.path.getsize(path),
            "cpu": time.process_time() - t}


def compress(client, paths, out_dir, shard_bytes=64 << 20, level=None, dataset=None,
             format=None, shards=None):
    """Compresses ``paths`` into one archive per shard in ``out_dir`` plus
    ``out_dir/manifest.json`` (per archive: its source file, byte range, first line and
    line count in that file).  Compressed inputs are stored as their bytes (whole)."""
    client = client if client is not None else _Local()
    os.makedirs(out_dir, exist_ok=True)
    if dataset is not None and format is None:
        format = _format_of({"dataset": dataset})
    shards = shards if shards is not None else plan_shards(paths, shard_bytes)
    names = [os.path.join(out_dir, "part%05d.ltk" % k) for k in range(len(shards))]
    done = client.gather(_tasks(client, _compress_shard, shards, names, level=level,
                                fmt=format))
    entries, line_in_file = [], {}
    for k, (s, d) in enumerate(zip(shards, done)):
        first = line_in_file.get(s[0], 1)
        entries.append({"archive": "part%05d.ltk" % k, "source": s[0], "start": s[1],
                        "end": s[2], "first_line": first, "lines": d["lines"],
                        "bytes": d["bytes"], "archive_bytes": d["archive_bytes"]})
        line_in_file[s[0]] = first + d["lines"]
    manifest = {"version": 1, "archives": entries}
    _write_text(os.path.join(out_dir, "manifest.json"),
                json.dumps(manifest, indent=1).encode())
    return manifest


def _grep_archive(path, pattern, fixed, ignore_case, invert):
    return Archive(path).grep(pattern, fixed=fixed, ignore_case=ignore_case, invert=invert)


def grep(client, out_dir, pattern, fixed=False, ignore_case=False, invert=False):
    """Searches every archive of a compress() manifest: the matching lines (bytes with
    their terminators) in file order (manifest order, then line order)."""
    client = client if client is not None else _Local()
    with open(os.path.join(out_dir, "manifest.json")) as f:
        manifest = json.load(f)
    jobs = _tasks(client, _grep_archive, [os.path.join(out_dir, e["archive"])
                                          for e in manifest["archives"]],
                  pattern=pattern, fixed=fixed, ignore_case=ignore_case, invert=invert)
    found = []
    for lines in client.gather(jobs):
        found.extend(lines)
    return found
