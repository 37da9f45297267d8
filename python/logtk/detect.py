"""logtk.Detector and logtk.Sessions: anomaly detection on sequences of events."""
from ctypes import byref, c_double, c_size_t, c_uint8, c_void_p, string_at

from . import _lib
from ._lib import lib
from .errors import error
from .parser import _bytes

__all__ = ["Detector", "Sessions", "LABELS"]

LABELS = {None: -1, -1: -1, 0: 0, 1: 1, False: 0, True: 1, "Normal": 0, "Anomaly": 1}


class Sessions:
    """A session set: per session an id, a sequence of event names and a label (0 normal,
    1 anomaly, None unknown).  Build it from Python (``append``, or the constructor's
    ``{id: [events]}`` / list of event lists) or from loglizer's CSV (``Sessions.load``)."""

    def __init__(self, sessions=None, labels=None):
        h = c_void_p()
        rc = lib.logtk_sessions_new(byref(h))
        if rc:
            raise error(rc)
        self._handle = h
        if sessions is not None:
            items = sessions.items() if isinstance(sessions, dict) else \
                ((str(i), events) for i, events in enumerate(sessions))
            labels_seq = labels if labels is not None else None
            for k, (sid, events) in enumerate(items):
                label = None
                if labels_seq is not None:
                    label = labels_seq[sid] if isinstance(labels_seq, dict) else labels_seq[k]
                self.append(sid, events, label)

    def __del__(self):
        if getattr(self, "_handle", None):
            lib.logtk_sessions_free(self._handle)
            self._handle = None

    def _check(self, rc):
        if rc < 0:
            raise error(rc, lib.logtk_sessions_errmsg(self._handle))

    @classmethod
    def load(cls, path, labels=None):
        """Sessions from a CSV with an id column, optional Label and EventSequence
        (loglizer's layout); ``labels`` an "Id,Label" CSV applied to them."""
        s = cls()
        s._check(lib.logtk_sessions_load(s._handle, _bytes(str(path))))
        if labels is not None:
            s._check(lib.logtk_sessions_load_labels(s._handle, _bytes(str(labels)), None))
        return s

    def append(self, sid, events, label=None):
        """Appends events (names: str, or ints written in decimal) to session ``sid``."""
        sid_b = _bytes(str(sid))
        h = self._handle
        for e in events:
            eb = _bytes(e if isinstance(e, (str, bytes)) else str(e))
            self._check(lib.logtk_sessions_append(h, sid_b, len(sid_b), eb, len(eb)))
        if label is not None:
            self._check(lib.logtk_sessions_set_label(h, sid_b, len(sid_b), LABELS[label]))

    def __len__(self):
        return lib.logtk_sessions_count(self._handle)

    def ids(self):
        out = []
        for i in range(len(self)):
            s = lib.logtk_sessions_id(self._handle, i)
            out.append(string_at(s.ptr, s.len).decode("utf-8", "surrogateescape"))
        return out

    def labels(self):
        return [{-1: None}.get(v, v) for v in
                (lib.logtk_sessions_label(self._handle, i) for i in range(len(self)))]


def _as_sessions(sessions, labels=None):
    return sessions if isinstance(sessions, Sessions) else Sessions(sessions, labels)


def _rows(rows):
    if rows is None:
        return None, 0
    rows = list(rows)
    return (c_size_t * len(rows))(*rows), len(rows)


class Detector:
    """One anomaly-detection model (logtk-detect(1)): "pca", "invariants",
    "logclustering", "iforest", "ocsvm", "novelty" (unsupervised) or "lr", "dtree", "svm"
    (supervised).  ``train(sessions, labels=None)``, ``predict(sessions)`` ->
    (scores, verdicts), ``eval(train, test)`` -> metrics dict; ``save()``/``load()``."""

    def __init__(self, model=None, **params):
        h = c_void_p()
        rc = lib.logtk_detector_new(byref(h), None if model is None else _bytes(model))
        if rc:
            raise error(rc, "unknown model '%s'" % model if rc == _lib.ERR_NOT_FOUND else None)
        self._handle = h
        for name, value in params.items():
            self._check(lib.logtk_detector_set_option(h, _bytes(name), _bytes(str(value))))

    def __del__(self):
        if getattr(self, "_handle", None):
            lib.logtk_detector_free(self._handle)
            self._handle = None

    def _check(self, rc):
        if rc < 0:
            raise error(rc, lib.logtk_detector_errmsg(self._handle))

    def train(self, sessions, labels=None, rows=None):
        """Trains on ``sessions`` (a Sessions, a list of event lists or {id: events});
        ``labels`` (0/1 per session) for supervised models."""
        s = _as_sessions(sessions, labels)
        r, n = _rows(rows)
        self._check(lib.logtk_detector_train(self._handle, s._handle, r, n))
        self._trained_on = s
        return self

    def predict(self, sessions, rows=None):
        """(scores, verdicts): per session a score (higher = more anomalous) and 1/0."""
        s = _as_sessions(sessions)
        r, n = _rows(rows)
        n = n if r is not None else len(s)
        scores = (c_double * n)()
        verdicts = (c_uint8 * n)()
        self._check(lib.logtk_detector_score(self._handle, s._handle, r, n if r else 0,
                                             scores, verdicts))
        return list(scores), list(verdicts)

    def eval(self, train, test, train_labels=None, test_labels=None):
        """Trains on ``train`` and scores ``test`` against its labels: a dict of tp, fp,
        fn, tn, unlabeled, precision, recall, f1."""
        self.train(train, train_labels)
        s = _as_sessions(test, test_labels)
        _, verdicts = self.predict(s)
        v = (c_uint8 * len(verdicts))(*verdicts)
        m = _lib.DetectMetrics()
        rc = lib.logtk_detect_evaluate(s._handle, None, len(verdicts), v, byref(m))
        if rc:
            raise error(rc)
        return {k: getattr(m, k) for k, _ in _lib.DetectMetrics._fields_}

    @property
    def threshold(self):
        return lib.logtk_detector_threshold(self._handle)

    def save(self):
        """The trained model as bytes (a logtk-model(5) image)."""
        buf, n = c_void_p(), c_size_t()
        self._check(lib.logtk_detector_save(self._handle, byref(buf), byref(n)))
        try:
            return string_at(buf, n.value)
        finally:
            lib.logtk_free(buf)

    def load(self, data):
        self._check(lib.logtk_detector_load(self._handle, bytes(data), len(data)))
        return self
