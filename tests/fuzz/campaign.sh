#!/bin/sh
# A fuzzing campaign measured in CPU time: runs each libFuzzer target until it
# has used SECONDS of CPU (user + system, read from /proc, so a loaded machine
# gets the same amount of fuzzing as an idle one), then stops it with SIGINT so
# libFuzzer prints its final statistics. Prints one row per target:
#   target  cpu_s  execs  execs_per_cpu_s  corpus_files  outcome
# Findings (crash-*, leak-*, timeout-*, oom-*) are kept in WORKDIR/TARGET/.
#
# usage: tests/fuzz/campaign.sh BUILD_DIR SECONDS [TARGET ...]
#   BUILD_DIR  a build configured with --enable-fuzzing where `make fuzz` ran
#   SECONDS    CPU seconds per target (1800 for the half hour the project asks)
#   TARGET     fuzz_archive, fuzz_csv, ... (default: every target built)
# WORKDIR defaults to $TMPDIR/logtk-fuzz; corpora persist there between runs.
set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 BUILD_DIR SECONDS [TARGET ...]" >&2
    exit 2
fi
build=$(cd "$1" && pwd) || exit 2
budget=$2
shift 2
case $budget in '' | *[!0-9]*) echo "$0: SECONDS must be a whole number" >&2; exit 2 ;; esac
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
work=${WORKDIR:-${TMPDIR:-/tmp}/logtk-fuzz}
mkdir -p "$work" || exit 2
ticks=$(getconf CLK_TCK)

if [ $# -eq 0 ]; then
    set --
    for t in "$build"/tests/fuzz/fuzz_*; do
        [ -x "$t" ] && [ -f "$t" ] && set -- "$@" "$(basename "$t")"
    done
fi

# CPU seconds used so far by process $1 (utime + stime, fields 14 and 15 of
# /proc/PID/stat; the command name in field 2 has no blanks for our targets).
cpu_seconds() {
    awk -v t="$ticks" '{ printf "%d\n", ($14 + $15) / t }' "/proc/$1/stat" 2>/dev/null
}

status=0
printf 'target\tcpu_s\texecs\texecs_per_cpu_s\tcorpus_files\toutcome\n'
for name in "$@"; do
    bin=$build/tests/fuzz/$name
    if [ ! -x "$bin" ]; then
        echo "$0: $bin is not built (make fuzz)" >&2
        status=2
        continue
    fi
    dir=$work/$name
    mkdir -p "$dir/corpus"
    # Seed an empty corpus with the repository's own sample inputs.
    if [ -z "$(ls -A "$dir/corpus")" ]; then
        for f in "$srcdir"/tests/data/* "$srcdir"/tests/cases/*/stdin; do
            [ -f "$f" ] && head -c 4096 "$f" > "$dir/corpus/seed-$(echo "$f" | cksum | cut -d' ' -f1)"
        done
    fi
    # fuzz_archive without entropic scheduling: its bookkeeping of ~40,000
    # features per input took 80% of the time (see fuzz-smoke in Makefile.am)
    case $name in fuzz_archive) opts=-entropic=0 ;; *) opts= ;; esac
    (cd "$dir" && exec "$bin" -max_len=4096 -timeout=10 -rss_limit_mb=2048 $opts \
        -print_final_stats=1 -artifact_prefix="$dir/" corpus > "$dir/log" 2>&1) &
    pid=$!
    # The subshell execs the target, so $pid is the fuzzer itself.
    used=0
    while kill -0 "$pid" 2>/dev/null; do
        used=$(cpu_seconds "$pid")
        [ -n "$used" ] || break
        if [ "$used" -ge "$budget" ]; then
            kill -INT "$pid"
            break
        fi
        sleep 5
    done
    wait "$pid"
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -n 1)
    execs=${execs:-0}
    rate=0
    [ "$used" -gt 0 ] && rate=$((execs / used))
    files=$(ls "$dir/corpus" | wc -l)
    findings=$(ls "$dir" | grep -c -E '^(crash|leak|timeout|oom|slow-unit)-')
    if [ "$findings" -gt 0 ]; then
        outcome="FINDINGS:$findings"
        status=1
    elif [ "$rc" -ne 0 ] && [ "$rc" -ne 130 ] && ! grep -q 'stat::number_of_executed_units' "$dir/log"; then
        outcome="exit:$rc"
        status=1
    else
        outcome=ok
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$used" "$execs" "$rate" "$files" "$outcome"
done
exit $status
