"""logtk.dask.parse with 1, 2 (or more) workers: wall time, the speed-up, and where the
time goes (not run by make check).

usage: LOGTK_LIBRARY=.libs/liblogtk.so PYTHONPATH=python /usr/bin/python3 \\
           python/tests/dask_bench.py FILE [RUNS] [SHARD_MB] [WORKERS]

FILE: an HDFS log, e.g. 2M lines: the scale-up of tests/python_dask.sh, or
    for i in $(seq 1000); do cat $LOGTK_LOGHUB/HDFS/HDFS_2k.log; done > hdfs2m.log
Starts a dask-scheduler and dask-workers (one thread each) on 127.0.0.1 for each count of
WORKERS (comma-separated, default 1,2), all at once (idle ones cost little), and runs the
job of tests/python_dask.sh (parse with every line's final id returned, shards of SHARD_MB
MiB, default 16) RUNS times (default 5) on each after a warm-up, the counts taking turns
run by run so that a machine shared with other work loads them alike.  Prints per worker
count the median wall time (and of its steps), the CPU seconds of the workers, the
scheduler and this process (the client), the summed busy time of the worker tasks (Dask's
task stream) over wall x workers, the parts that do not shrink with more workers (from
the call to the first task, from the last learn task to the first classify task, from the
last task to the result), and at the end the ratio of the medians (the first
count's over each other's).  On a machine shared with other work, CPU times and the
busy/wall ratio say more than the wall clock.
"""
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import logtk.dask as ldask


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Cluster:
    """A dask-scheduler and `workers` dask-workers (one thread each) on 127.0.0.1, as
    tests/python_dask.sh starts them, and a client; stop() ends them all."""

    def __init__(self, workers):
        from distributed import Client
        self.workers = workers
        self.tmp = tempfile.mkdtemp(prefix="logtk-dask-bench.")
        self.procs = []
        self.rows = []
        self.client = None
        port = _free_port()
        env = dict(os.environ, DASK_TEMPORARY_DIRECTORY=self.tmp)
        log = open(os.path.join(self.tmp, "cluster.log"), "wb")
        self.procs.append(subprocess.Popen(["dask-scheduler", "--host", "127.0.0.1", "--port",
                                            str(port), "--no-dashboard", "--no-show"],
                                           cwd=self.tmp, env=env, stdout=log, stderr=log))
        for w in range(workers):
            self.procs.append(subprocess.Popen(
                ["dask-worker", "tcp://127.0.0.1:%d" % port, "--host", "127.0.0.1",
                 "--nthreads", "1", "--no-nanny", "--no-dashboard", "--name", "w%d" % w,
                 "--local-directory", os.path.join(self.tmp, "w%d" % w)], env=env, stdout=log,
                stderr=log))
        self.client = Client("tcp://127.0.0.1:%d" % port, timeout=60)
        self.client.wait_for_workers(workers, timeout=120)

    def measure(self, path, shard_bytes):
        """One parse, with the CPU of every part and the workers' busy time."""
        c, workers = self.client, self.workers
        before, sched, here = c.run(cpu), c.run_on_scheduler(cpu), cpu()
        t0 = time.time()
        t = time.perf_counter()
        r = ldask.parse(c, [path], dataset="HDFS", shard_bytes=shard_bytes, return_ids=True)
        wall = time.perf_counter() - t
        after, sched2, here2 = c.run(cpu), c.run_on_scheduler(cpu), cpu()
        tasks = c.get_task_stream(start=t0)
        spans = {step: [s for task in tasks if step in str(task["key"])
                        for s in task["startstops"] if s["action"] == "compute"]
                 for step in ("learn", "classify")}
        busy = sum(s["stop"] - s["start"] for step in spans.values() for s in step)
        # what does not shrink with more workers: from the call to the first task, from the
        # last learn to the first classify, from the last task to the result
        fixed = ((min(s["start"] for s in spans["learn"]) - t0,
                  min(s["start"] for s in spans["classify"]) -
                  max(s["stop"] for s in spans["learn"]),
                  t0 + wall - max(s["stop"] for s in spans["classify"]))
                 if spans["learn"] and spans["classify"] else (0, 0, 0))
        self.rows.append((wall, busy / (wall * workers),
                          sum(after[k] - before[k] for k in after), sched2 - sched,
                          here2 - here, r.timings, fixed))
        return r

    def report(self, r):
        rows, workers = self.rows, self.workers
        walls = [x[0] for x in rows]
        med = lambda k: statistics.median(x[k] for x in rows)  # noqa: E731
        steps = {k: statistics.median(x[5][k] for x in rows)
                 for k in ("learn", "merge", "classify", "total")}
        fixed = [1e3 * statistics.median(x[6][k] for x in rows) for k in range(3)]
        print("%d worker%s: %d lines in %d shards: wall median %.3f s (min %.3f; learn %.3f, "
              "merge %.3f, classify and ids %.3f); CPU: workers %.2f s, scheduler %.2f s, "
              "client %.2f s; worker busy / (wall x workers) %.2f; call to first task %.1f ms, "
              "last learn to first classify %.1f ms, last task to result %.1f ms"
              % (workers, "s" if workers > 1 else "", r.lines, len(r.shards),
                 statistics.median(walls), min(walls), steps["learn"], steps["merge"],
                 steps["total"] - steps["learn"] - steps["merge"], med(2), med(3), med(4),
                 med(1), *fixed))
        sys.stdout.flush()
        return statistics.median(walls)

    def stop(self):
        if self.client is not None:
            self.client.close()
        for p in reversed(self.procs):
            p.terminate()
        for p in self.procs:  # a dask-worker may sit out SIGTERM (as in tests/python_dask.sh)
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)


if __name__ == "__main__":
    path = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    shard_bytes = int(float(sys.argv[3]) * (1 << 20)) if len(sys.argv) > 3 else 16 << 20
    counts = [int(x) for x in sys.argv[4].split(",")] if len(sys.argv) > 4 else [1, 2]
    clusters = []
    try:
        for w in counts:
            clusters.append(Cluster(w))
        last = {}
        for cl in clusters:  # warm-up: imports, page cache, the merged-parser cache
            ldask.parse(cl.client, [path], dataset="HDFS", shard_bytes=shard_bytes,
                        return_ids=True)
        # the worker counts take turns, run by run, so that a machine shared with other
        # work loads each alike
        for _ in range(runs):
            for cl in clusters:
                last[cl.workers] = cl.measure(path, shard_bytes)
        medians = {cl.workers: cl.report(last[cl.workers]) for cl in clusters}
    finally:
        for cl in clusters:
            cl.stop()
    for w in counts[1:]:
        print("speed-up, %d workers over %d: %.2fx (medians %.3f s / %.3f s)"
              % (w, counts[0], medians[counts[0]] / medians[w], medians[counts[0]], medians[w]))
