#!/bin/sh
# Runs the example program of logtk(3) (built from the man page's text) on the
# sample log: every line must be counted under exactly one template.
set -u
bin=./tests/man_example
sample="$LOGTK_SRCDIR/tests/data/sample.log"
out=$("$bin" "$sample") || { echo "man example failed"; echo "0 passed, 1 failed"; exit 1; }
lines=$(wc -l < "$sample")
[ -n "$(tail -c 1 "$sample")" ] && lines=$((lines + 1))
templates=$(printf '%s\n' "$out" | wc -l)
total=$(printf '%s\n' "$out" | awk -F '\t' '{n += $2} END {print n}')
bad=$(printf '%s\n' "$out" | grep -cv '^E[0-9][0-9]*	[0-9][0-9]*	.' || true)
passed=0 failed=0
check() { if [ "$1" = ok ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $2"; fi; }
[ "$total" = "$lines" ] && r=ok || r=no; check $r "template counts add up to $total, expected $lines lines"
[ "$bad" = 0 ] && r=ok || r=no; check $r "$bad output rows not of the form E<id><TAB><count><TAB><template>"
[ "$templates" -ge 5 ] && [ "$templates" -le 40 ] && r=ok || r=no; check $r "$templates templates for the sample log"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
