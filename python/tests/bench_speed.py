"""Speed figures of the Python package (not run by make check).

usage: LOGTK_LIBRARY=.libs/liblogtk.so PYTHONPATH=python /usr/bin/python3 \\
           python/tests/bench_speed.py FILE [--dask]

FILE is an HDFS log, e.g. the scale-up of the issue:
    for i in $(seq 1000); do cat $LOGTK_LOGHUB/HDFS/HDFS_2k.log; done > hdfs2m.log
Prints lines per second of CPU time (best of 3; CPU time, because a shared machine's
wall clock says more about its other users) for parse_file, add_many, the Drain3
facade and Parser.add; with --dask, runs logtk.dask.parse on a LocalCluster of 1 and
2 worker processes and prints each process's CPU time.
"""
import resource
import sys
import time

import logtk
import logtk.dask as ldask
from logtk.drain3 import TemplateMiner


def best(f, n=3):
    times = []
    for _ in range(n):
        t = time.process_time()
        r = f()
        times.append(time.process_time() - t)
    return min(times), r


def speeds(path):
    t, ids = best(lambda: logtk.Parser(dataset="HDFS").parse_file(path))
    print("parse_file (HDFS preset): %d lines, %.0f lines/s" % (len(ids), len(ids) / t))
    with open(path, "rb") as f:
        lines = f.read().split(b"\n")[:-1]
    t, ids = best(lambda: logtk.Parser(dataset="HDFS").add_many(lines))
    print("add_many (HDFS preset): %d lines, %.0f lines/s" % (len(ids), len(ids) / t))
    text = [l.decode() for l in lines[:400000]]

    def per_line():
        m = TemplateMiner()
        for l in text:
            m.add_log_message(l)
    t, _ = best(per_line, 2)
    print("TemplateMiner.add_log_message (Drain3 defaults): %d lines, %.0f lines/s"
          % (len(text), len(text) / t))

    some = text[:200000]

    def add():
        p = logtk.Parser(dataset="HDFS")
        for l in some:
            p.add(l)
    t, _ = best(add, 2)
    print("Parser.add (HDFS preset): %d lines, %.0f lines/s" % (len(some), len(some) / t))


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def dask_cpu(path):
    from distributed import Client, LocalCluster
    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as c:
            ldask.parse(c, [path], dataset="HDFS", shard_bytes=16 << 20)  # warm up
            before, here = c.run(cpu), cpu()
            t = time.perf_counter()
            r = ldask.parse(c, [path], dataset="HDFS", shard_bytes=16 << 20)
            wall = time.perf_counter() - t
            after, here2 = c.run(cpu), cpu()
            print("%d workers: %d lines, %d shards, wall %.2f s, worker CPU %s s, "
                  "scheduler+client CPU %.2f s, merge %.4f s over %d bytes of states"
                  % (workers, r.lines, len(r.shards), wall,
                     [round(after[k] - before[k], 3) for k in after], here2 - here,
                     r.timings["merge_cpu"], r.timings["state_bytes"]))


if __name__ == "__main__":
    speeds(sys.argv[1])
    if "--dask" in sys.argv:
        dask_cpu(sys.argv[1])
