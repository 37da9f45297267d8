"""logtk: log parsing, lossless searchable archives and anomaly detection, over liblogtk.

    import logtk
    p = logtk.Parser(dataset="HDFS")
    ev = p.add("081109 203615 148 INFO dfs.DataNode$PacketResponder: Received block ...")
    ids = p.parse_file("HDFS.log")          # the whole file in C: an array of template ids
    for t in p.templates(): print(t.id, t.count, t.text)

See logtk-python(7), logtk.drain3 (a Drain3-compatible TemplateMiner), logtk.Archive,
logtk.Detector, logtk.dask (many files on a distributed.Client) and logtk.evaluate() /
logtk.evaluate_errors() (GA, PA, FGA, FTA and the errors behind them).
"""
from ._lib import LIBRARY_PATH, lib
from .errors import (ArchiveError, DataError, InvalidError, LimitError, LogtkError,
                     LogtkIOError, NoMemoryError, NotFoundError, PatternError, StateError,
                     UnsupportedError)
from .parser import Event, Parser, Template, algorithms
from .archive import Archive
from .detect import Detector, Sessions
from .metrics import GroupError, Metrics, evaluate, evaluate_errors

__version__ = lib.logtk_version().decode()
__all__ = ["Parser", "Event", "Template", "Archive", "Detector", "Sessions", "algorithms",
           "evaluate", "evaluate_errors", "Metrics", "GroupError",
           "LogtkError", "NoMemoryError", "LogtkIOError", "InvalidError", "PatternError",
           "DataError", "ArchiveError", "StateError", "NotFoundError", "LimitError",
           "UnsupportedError", "LIBRARY_PATH"]
