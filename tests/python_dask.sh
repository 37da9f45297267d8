#!/bin/sh
# logtk.dask on a real cluster: a dask-scheduler and dask-workers on 127.0.0.1
# (free ports, no dashboard, local directories in a temporary folder, all
# stopped on EXIT).  The same job runs with 1, 2 and 4 workers; their outputs
# (rows and template lists of the 16 Loghub-2k logs in 4 shards each, the
# scale-up's template list, per-line template ids and grep output) must be
# byte-identical, and the one-worker run is compared with `logtk parse` on the
# whole input (python/tests/dask_job.py says what is compared).
# LOGTK_DASK_LINES sets the scale-up's size (default 2000000 lines of HDFS;
# without LOGTK_LOGHUB, the repository's sample log repeated).
# Skipped (77) without python3-distributed or without a shared library.
PY=${LOGTK_PYTHON:-/usr/bin/python3}
src=${LOGTK_SRCDIR:-.}
build=$(cd "$(dirname "${LOGTK:-./logtk}")" && pwd)
lib=$build/.libs/liblogtk.so
lines=${LOGTK_DASK_LINES:-2000000}
if ! [ -x "$PY" ] || ! "$PY" -c 'import distributed' 2>/dev/null; then
    echo "SKIP: $PY without distributed (Debian's python3-distributed)"
    exit 77
fi
if ! command -v dask-scheduler >/dev/null || ! command -v dask-worker >/dev/null; then
    echo "SKIP: dask-scheduler or dask-worker not installed"
    exit 77
fi
if [ ! -f "$lib" ]; then
    echo "SKIP: no shared library ($lib): built with --disable-shared"
    exit 77
fi
export LOGTK_LIBRARY="$lib" PYTHONPATH="$src/python" PYTHONDONTWRITEBYTECODE=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/logtk-dask.XXXXXX") || exit 1
pids=
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null; done
    # a worker whose scheduler went first may sit out SIGTERM (seen once in
    # CI: 11 minutes): give them 10 s, then SIGKILL, so the test never hangs
    for i in $(seq 50); do
        alive=
        for p in $pids; do kill -0 "$p" 2>/dev/null && alive=1; done
        [ -z "$alive" ] && break
        sleep 0.2
    done
    for p in $pids; do kill -9 "$p" 2>/dev/null; done
    for p in $pids; do wait "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

port=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export DASK_TEMPORARY_DIRECTORY="$tmp"
(cd "$tmp" && exec dask-scheduler --host 127.0.0.1 --port "$port" --no-dashboard --no-show) \
    > "$tmp/scheduler.log" 2>&1 &
pids="$pids $!"
start_worker() {
    dask-worker "tcp://127.0.0.1:$port" --host 127.0.0.1 --nthreads 1 --no-nanny \
        --no-dashboard --name "w$1" --local-directory "$tmp/w$1" > "$tmp/w$1.log" 2>&1 &
    pids="$pids $!"
}

# the scale-up input: whole copies of a real log
if [ -n "$LOGTK_LOGHUB" ] && [ -f "$LOGTK_LOGHUB/HDFS/HDFS_2k.log" ]; then
    seed=$LOGTK_LOGHUB/HDFS/HDFS_2k.log
    export SCALE_DATASET=HDFS GREP_FOR=blk_-1030832046197982436
else
    echo "LOGTK_LOGHUB not set: the 16 Loghub logs are left out; the scale-up repeats tests/data/sample.log"
    seed=$src/tests/data/sample.log
    export SCALE_FORMAT='<Date> <Time> <Level> <Component>: <Content>' GREP_FOR=ERROR
fi
n=$(wc -l < "$seed")
copies=$(( (lines + n - 1) / n ))
i=0
while [ $i -lt $copies ]; do cat "$seed"; i=$((i + 1)); done | head -n "$lines" > "$tmp/scaleup.input"

status=0
run() { # run WORKERS [--check-cli LOGTK]
    w=$1
    shift
    "$PY" "$src/python/tests/dask_job.py" "tcp://127.0.0.1:$port" "$w" "$tmp/run$w" \
        "$tmp/scaleup.input" "$@" && return 0
    echo "FAIL: the job with $w workers; scheduler and worker logs:"
    tail -n 20 "$tmp"/*.log
    exit 1
}
start_worker 1
run 1 --check-cli "$build/logtk"
start_worker 2
run 2
start_worker 3
start_worker 4
run 4
for w in 2 4; do
    if ! diff -r "$tmp/run1" "$tmp/run$w" > "$tmp/diff$w"; then
        echo "FAIL: 1 and $w workers give different outputs:"
        head -n 20 "$tmp/diff$w"
        status=1
    fi
done
[ $status -eq 0 ] && echo "1, 2 and 4 workers: byte-identical outputs ($(ls "$tmp/run1" | wc -l) files)"
for w in 1 2 4; do cat "$tmp/timings-$w.json" 2>/dev/null | tr -d '\n '; echo; done
# the speed-up of the scale-up's parse (wall clock: a figure for a quiet machine;
# python/tests/dask_bench.py repeats the runs and gives CPU times)
"$PY" - "$tmp" <<'EOF'
import json, sys
wall = {w: json.load(open("%s/timings-%d.json" % (sys.argv[1], w)))["parse_wall"] for w in (1, 2)}
print("parse of the scale-up: 1 worker %.2f s, 2 workers %.2f s: %.2fx"
      % (wall[1], wall[2], wall[1] / wall[2]))
EOF
exit $status
