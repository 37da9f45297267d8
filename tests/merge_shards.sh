#!/bin/sh
# merge_shards.sh - a log parsed in 4 shards and merged (`logtk parse
# --save-state` on each, `logtk merge`) gives the template list that one
# process gives the whole log (texts and line counts), as logtk-merge(1)
# promises: the 16 Loghub-2k logs, each with its preset and raw (the whole
# line the content, the header found by fuse), and the repository's sample
# log.  Every template of a shard is folded through a fresh parser as a
# line; fuse must read it as the lines it came from were read.
# The Loghub logs need LOGTK_LOGHUB (only the sample log without it).
LOGTK=${LOGTK:-./logtk}
src=${LOGTK_SRCDIR:-.}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/logtk-shards.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
check() { # check NAME FILE [ARGS...]: one process against 4 merged shards
    name=$1 file=$2
    shift 2
    split -n l/4 -d "$file" "$tmp/part" || { failed=$((failed + 1)); return; }
    for i in 0 1 2 3; do
        "$LOGTK" parse "$@" "$tmp/part0$i" --save-state "$tmp/state$i" -o /dev/null 2>/dev/null ||
            { echo "FAIL: $name: shard $i did not parse"; failed=$((failed + 1)); return; }
    done
    "$LOGTK" merge -q --templates "$tmp/merged" "$tmp/state0" "$tmp/state1" "$tmp/state2" \
        "$tmp/state3" || { echo "FAIL: $name: merge failed"; failed=$((failed + 1)); return; }
    "$LOGTK" parse "$@" "$file" --templates "$tmp/whole" -o /dev/null 2>/dev/null
    tail -n +2 "$tmp/merged" | cut -f2,3 | sort > "$tmp/a"
    tail -n +2 "$tmp/whole" | cut -f2,3 | sort > "$tmp/b"
    if cmp -s "$tmp/a" "$tmp/b"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: $name: the merged shards' templates differ from one process's"
        diff "$tmp/b" "$tmp/a" | head -6
    fi
}
check sample "$src/tests/data/sample.log"
if [ -n "${LOGTK_LOGHUB:-}" ] && [ -d "$LOGTK_LOGHUB" ]; then
    for f in "$LOGTK_LOGHUB"/*/*_2k.log; do
        d=$(basename "$f" _2k.log)
        check "$d raw" "$f"
        check "$d preset" "$f" --dataset "$d"
    done
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
