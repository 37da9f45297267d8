#!/bin/sh
# diff_bench.sh - the planted-fault benchmark of `logtk diff --peers` on the
# Loghub-2k logs, small (48 fault cases, 16 without), asserting its figures:
# P@1 and R@3 >= .95 on faults that change >= 20 lines.  False alarms: the
# no-fault cases deal each log round robin, and OpenSSH's log is periodic
# (its BREAK-IN lines fall on every fourth line), so its hosts truly differ
# and 1 in 16 no-fault cases is flagged; every other dataset's must be clean
# (<= 1/16 = .0625, and 0 with OpenSSH left out).
# Needs LOGTK_LOGHUB (skipped without it).
LOGTK=${LOGTK:-./logtk}
if [ -z "${LOGTK_LOGHUB:-}" ] || [ ! -d "$LOGTK_LOGHUB" ]; then
    echo "SKIP: LOGTK_LOGHUB is not set to the Loghub-2k folder"
    exit 77
fi
fail=0
$LOGTK bench diff --loghub "$LOGTK_LOGHUB" --cases 48 --no-fault 16 --check \
    --max-false-alarms 0.0625 --quiet || fail=1
others=HDFS,Hadoop,Spark,Zookeeper,BGL,HPC,Thunderbird,Windows,Linux,Android,HealthApp,Apache,Proxifier,OpenStack,Mac
$LOGTK bench diff --loghub "$LOGTK_LOGHUB" --dataset $others --cases 30 --no-fault 30 --check \
    --max-false-alarms 0 --quiet || fail=1
exit $fail
