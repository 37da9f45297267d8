"""A Drain3-compatible facade: ``from logtk.drain3 import TemplateMiner``.

``add_log_message()`` returns Drain3's dict (change_type "cluster_created",
"cluster_template_changed" or "none", cluster_id, cluster_size, template_mined,
cluster_count); ``match()`` returns a LogCluster (cluster_id, size,
log_template_tokens, get_template()) or None; ``extract_parameters()`` returns a list of
ExtractedParameter(value, mask_name) or None; ``drain.clusters`` lists the clusters; a
persistence handler with save_state(bytes)/load_state() keeps the state (logtk's snapshot
bytes, not Drain3's JSON).  The algorithm is logtk's Drain (Drain3's defaults: similarity
threshold 0.4, depth 4, 100 children; a Drain3 config's drain_sim_th, drain_depth,
drain_max_children and masking_instructions are applied) unless ``parser=`` names
another, such as logtk's own "fuse".
"""
from collections import namedtuple
from ctypes import c_size_t, byref

from . import _lib
from ._lib import lib
from .parser import Parser, _bytes, _str

__all__ = ["TemplateMiner", "LogCluster", "ExtractedParameter"]

ExtractedParameter = namedtuple("ExtractedParameter", ["value", "mask_name"])

_CHANGE = ("none", "cluster_created", "cluster_template_changed")


class LogCluster:
    """A cluster as Drain3 shows it."""
    __slots__ = ("log_template_tokens", "cluster_id", "size")

    def __init__(self, log_template_tokens, cluster_id, size=1):
        self.log_template_tokens = tuple(log_template_tokens)
        self.cluster_id = cluster_id
        self.size = size

    def get_template(self):
        return " ".join(self.log_template_tokens)

    def __str__(self):
        return "ID={:<5} : size={:<10}: {}".format(self.cluster_id, self.size,
                                                   self.get_template())

    __repr__ = __str__


class _DrainView:
    """``template_miner.drain``: the clusters, read from the library when asked."""

    def __init__(self, miner):
        self._miner = miner

    @property
    def clusters(self):
        m = self._miner
        return [LogCluster(t.text.split(" "), t.id, m._sizes[t.id] if t.id < len(m._sizes)
                           else t.count) for t in m.parser.templates()]

    @property
    def id_to_cluster(self):
        return {c.cluster_id: c for c in self.clusters}


class TemplateMiner:
    """Drain3's TemplateMiner over logtk: ``TemplateMiner(persistence_handler=None,
    config=None, parser="drain", masks=(), format=None)``."""

    def __init__(self, persistence_handler=None, config=None, parser="drain", masks=(),
                 format=None):
        masks = list(masks)
        params = {}
        if config is not None:
            for mi in getattr(config, "masking_instructions", ()) or ():
                masks.append((mi.mask_with, mi.regex_pattern if hasattr(mi, "regex_pattern")
                              else mi.pattern, "<*>"))
            if parser == "drain":
                for ours, theirs in (("st", "drain_sim_th"), ("depth", "drain_depth"),
                                     ("max_children", "drain_max_children")):
                    if getattr(config, theirs, None) is not None:
                        params[ours] = getattr(config, theirs)
        self.config = config
        self.persistence_handler = persistence_handler
        self.parser = Parser(parser=parser, masks=masks, params=params, format=format)
        self._sizes = [0]
        if persistence_handler is not None:
            state = persistence_handler.load_state()
            if state:
                self.parser.load(state)
                self._sizes = [0] + [t.count for t in self.parser.templates()]
        self._ncluster = len(self.parser)
        self.drain = _DrainView(self)
        # the per-line path: bound C function, one reused event
        self._feed = lib.logtk_parser_feed
        self._handle = self.parser._handle
        self._event = self.parser._event
        self._ev_ref = self.parser._ev_ref
        self._texts = self.parser._texts

    def add_log_message(self, log_message):
        """Learns from one message; returns Drain3's result dict."""
        raw = log_message.encode("utf-8", "surrogateescape") if isinstance(log_message, str) \
            else log_message
        p = self.parser
        if p._format is None:
            rc = self._feed(self._handle, raw, len(raw), self._ev_ref)
        else:
            ptr, n = p._content(raw)
            rc = self._feed(self._handle, ptr, n, self._ev_ref)
        if rc < 0 and rc != _lib.ERR_LIMIT:
            p._check(rc)
        ev = self._event
        tid = ev.template_id
        sizes = self._sizes
        if ev.created:
            change = "cluster_created"
            self._ncluster = len(p)
            while len(sizes) <= tid:
                sizes.append(0)
        elif ev.changed:
            change = "cluster_template_changed"
        else:
            change = "none"
        sizes[tid] += 1
        text = self._texts.get(tid)
        if text is None:
            text = p.template_text(tid)
        if change != "none" and self.persistence_handler is not None:
            self.save_state(change)
        return {"change_type": change, "cluster_id": tid, "cluster_size": sizes[tid],
                "template_mined": text, "cluster_count": self._ncluster}

    def match(self, log_message, full_search_strategy="never"):
        """The cluster the message belongs to, without learning, or None."""
        ev = self.parser.match(log_message)
        if ev is None:
            return None
        tid = ev.template_id
        return LogCluster(ev.template.split(" "), tid,
                          self._sizes[tid] if tid < len(self._sizes) else 0)

    def extract_parameters(self, log_template, log_message, exact_matching=True):
        """The parameters of ``log_message`` under ``log_template`` (each "<*>" gives one),
        as ExtractedParameter(value, mask_name), or None when it does not match."""
        t, m = _bytes(log_template), _bytes(log_message)
        n = c_size_t()
        rc = lib.logtk_template_match(t, len(t), m, len(m), None, 0, byref(n))
        if rc != _lib.OK:
            return None
        slices = (_lib.Slice * max(n.value, 1))()
        lib.logtk_template_match(t, len(t), m, len(m), slices, n.value, byref(n))
        from ctypes import string_at
        return [ExtractedParameter(_str(string_at(s.ptr, s.len)) if s.len else "", "*")
                for s in slices[:n.value]]

    def get_parameter_list(self, log_template, log_message):
        found = self.extract_parameters(log_template, log_message)
        return [] if found is None else [p.value for p in found]

    def save_state(self, snapshot_reason="manual"):
        if self.persistence_handler is not None:
            self.persistence_handler.save_state(self.parser.save())

    def load_state(self):
        if self.persistence_handler is not None:
            state = self.persistence_handler.load_state()
            if state:
                self.parser.load(state)
