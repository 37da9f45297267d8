#!/bin/sh
# report_screenshots.sh - the screenshots of `logtk report` in doc/, made by
# headless Chromium from data in this repository only, so CI can remake them:
#   report-parse.png, report-parse-narrow.png  a detect run over the sample log
#       with an error burst planted at its end (a parse page with its
#       anomalous window shaded and the new template marked);
#   report-diff.png, report-diff-narrow.png    `logtk diff --output jsonl` of
#       tests/data/diff_a.log against diff_b.log;
#   report-peers.png   `logtk diff --peers` over the hosts of tests/data/diff_hosts.log.
# Wide: 1280 px, narrow: 390 px (a phone).
#
# Usage: LOGTK=./logtk sh tests/report_screenshots.sh [OUTDIR]   (default: doc)
# Exit 77 when Chromium is not installed.
set -u
LOGTK=${LOGTK:-./logtk}
src=${LOGTK_SRCDIR:-$(dirname "$0")/..}
out=${1:-$src/doc}
chromium=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$chromium" ]; then
    echo "SKIP: chromium not installed"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/logtk-shots.XXXXXX") || exit 1
groups=""
trap 'for g in $groups; do kill -KILL -- "-$g" 2>/dev/null; done; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP
mkdir "$tmp/home"

# shoot PAGE PNG WIDTH HEIGHT
shoot() {
    HOME=$tmp/home setsid timeout 60 "$chromium" --headless --no-sandbox --disable-gpu \
        --no-first-run --hide-scrollbars --user-data-dir="$tmp/profile" \
        --window-size="$3,$4" --screenshot="$2" "file://$1" >/dev/null 2>&1 &
    pid=$!
    groups="$groups $pid"
    wait "$pid"
    kill -KILL -- "-$pid" 2>/dev/null
    [ -s "$2" ] || { echo "report_screenshots: no $2" >&2; exit 1; }
    echo "$2"
}

sample=$src/tests/data/sample.log
fmt='<Date> <Time> <Level> <Component>: <Content>'
{ cat "$sample"; i=1; while [ $i -le 40 ]; do
    echo "2024-03-11 09:00:$((i % 60)).000 ERROR Disk: controller $i failed with code $((i * 7))"
    i=$((i + 1)); done; } > "$tmp/app.log"
"$LOGTK" detect train -q --model novelty --param key=set --window count --size 50 \
    --format "$fmt" -o "$tmp/novelty.model" "$sample" 2>/dev/null || exit 1
"$LOGTK" report -q --format "$fmt" --detect "$tmp/novelty.model" --window-size 50 \
    --title "app.log" -o "$tmp/parse.html" "$tmp/app.log" || exit 1
# real `logtk diff` output (status 1: something changed): two days of a log,
# and the hosts of one log against their peers
"$LOGTK" diff --output jsonl "$src/tests/data/diff_a.log" "$src/tests/data/diff_b.log" \
    > "$tmp/diff.jsonl"
[ $? -le 1 ] || exit 1
"$LOGTK" diff --peers --group-by '^\S+ \S+ (\S+)' --output jsonl "$src/tests/data/diff_hosts.log" \
    > "$tmp/peers.jsonl"
[ $? -le 1 ] || exit 1
"$LOGTK" report --diff "$tmp/diff.jsonl" --title "diff_a.log against diff_b.log" \
    -o "$tmp/diff.html" || exit 1
"$LOGTK" report --diff "$tmp/peers.jsonl" --title "the hosts of diff_hosts.log against their peers" \
    -o "$tmp/peers.html" || exit 1

mkdir -p "$out"
shoot "$tmp/parse.html" "$out/report-parse.png" 1280 1300
shoot "$tmp/parse.html" "$out/report-parse-narrow.png" 390 1300
shoot "$tmp/diff.html" "$out/report-diff.png" 1280 1300
shoot "$tmp/diff.html" "$out/report-diff-narrow.png" 390 1300
shoot "$tmp/peers.html" "$out/report-peers.png" 1280 700
