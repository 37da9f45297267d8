#!/bin/sh
# report_browser.sh - `logtk report` pages rendered by a real browser.
#
# Headless Chromium (Debian's `chromium`; CHROMIUM=path overrides) loads the
# pages of a parse run, a detect run and a diff (tests/data/report_*.jsonl,
# hand-written in the schema of `logtk diff --output jsonl`) and dumps their
# DOM, which must hold the sections and the counts that `logtk parse` and
# `logtk detect predict` give for the same input.  Chromium logs every console
# message (--enable-logging=stderr): the pages must log none.  Their
# Content-Security-Policy (default-src 'none') makes any fetch fail with such
# a message, so no message also means no network request; a control page
# that does fetch checks that the check would see one.  Each Chromium runs in
# a session of its own under `timeout`, and the whole process group is killed
# after it, so no browser process outlives the test.
#
# Exit 77 (skip) when Chromium is not installed; CI installs it.
set -u
LOGTK=${LOGTK:-./logtk}
LOGTK_SRCDIR=${LOGTK_SRCDIR:-.}
chromium=${CHROMIUM:-}
if [ -z "$chromium" ]; then
    for c in chromium chromium-browser; do
        command -v "$c" >/dev/null 2>&1 && { chromium=$(command -v "$c"); break; }
    done
fi
if [ -z "$chromium" ] || ! command -v setsid >/dev/null 2>&1; then
    echo "SKIP: chromium (or setsid) not installed"
    exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/logtk-report.XXXXXX") || exit 1
groups=""
cleanup() {
    for g in $groups; do kill -KILL -- "-$g" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
mkdir "$tmp/home"

# browse PAGE NAME: dumps PAGE's DOM to $tmp/NAME.dom, Chromium's log to NAME.err
browse() {
    HOME=$tmp/home setsid timeout 60 "$chromium" --headless --no-sandbox --disable-gpu \
        --no-first-run --disable-extensions --user-data-dir="$tmp/profile" \
        --enable-logging=stderr --v=0 --dump-dom "file://$1" >"$tmp/$2.dom" 2>"$tmp/$2.err" &
    pid=$!
    groups="$groups $pid"
    wait "$pid"
    kill -KILL -- "-$pid" 2>/dev/null
    return 0
}

passed=0 failed=0
check() {
    if [ "$1" = ok ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: $2"
    fi
}
is() { [ "$1" = "$2" ] && echo ok || echo no; }
# console messages Chromium logged for the page (CSP refusals, script errors)
console() { grep -c 'CONSOLE\|Content Security Policy\|Uncaught' "$tmp/$1.err"; }
# elements that would fetch or run something
fetchers() { grep -ciE '<(script|img|link|iframe|object|embed|audio|video|source|a)[ >]|url\(' "$tmp/$1"; }

sample=$LOGTK_SRCDIR/tests/data/sample.log
fmt='<Date> <Time> <Level> <Component>: <Content>'
start=$(date +%s)

# --- the control: a page that fetches is seen --------------------------------
cat > "$tmp/control.html" <<'EOF'
<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
</head><body><img src="http://127.0.0.1:9/x.png"><p>control</p></body></html>
EOF
browse "$tmp/control.html" control
check "$( [ "$(console control)" -ge 1 ] && echo ok || echo no)" \
    "the control page's refused fetch left no console message: the console check is blind"

# --- a parse run ---------------------------------------------------------------
"$LOGTK" report -q --format "$fmt" -o "$tmp/parse.html" "$sample" ||
    check no "logtk report of the sample log failed"
"$LOGTK" parse -q --format "$fmt" --templates "$tmp/templates.tsv" -o /dev/null "$sample"
browse "$tmp/parse.html" parse
dom=$tmp/parse.dom
for s in summary timeline templates; do
    check "$(is "$(grep -c "<section id=\"$s\"" "$dom")" 1)" "parse page: no section $s"
done
lines=$(wc -l < "$sample")
check "$(is "$(sed -n 's/.*<section id="summary" data-lines="\([0-9]*\)".*/\1/p' "$dom")" "$lines")" \
    "parse page: data-lines is not the $lines lines of the sample"
tail -n +2 "$tmp/templates.tsv" | awk -F '\t' '{ print substr($1, 2) "\t" $3 }' | sort > "$tmp/want"
sed -n 's/.*<tr data-template-id="\([0-9]*\)" data-count="\([0-9]*\)".*/\1\t\2/p' "$dom" | sort > "$tmp/got"
check "$( [ -s "$tmp/want" ] && cmp -s "$tmp/want" "$tmp/got" && echo ok || echo no)" \
    "parse page: template ids and counts differ from logtk parse --templates"
check "$(is "$(grep -o 'class="spark"' "$dom" | wc -l)" "$(wc -l < "$tmp/want")")" \
    "parse page: not one sparkline per template row"
check "$(is "$(console parse)" 0)" "parse page: console messages: $(grep CONSOLE "$tmp/parse.err" | head -n 3)"
check "$(is "$(fetchers parse.html)" 0)" "parse page: holds an element that fetches or runs something"

# --- a detect run: a model of the sample, a log with an error burst at its end --
{ cat "$sample"; i=1; while [ $i -le 40 ]; do
    echo "2024-03-11 09:00:$((i % 60)).000 ERROR Disk: controller $i failed with code $((i * 7))"
    i=$((i + 1)); done; } > "$tmp/burst.log"
"$LOGTK" detect train -q --model novelty --param key=set --window count --size 50 \
    --format "$fmt" -o "$tmp/novelty.model" "$sample" 2>/dev/null
want=$("$LOGTK" detect predict --window count --size 50 --format "$fmt" "$tmp/novelty.model" \
    "$tmp/burst.log" 2>/dev/null | grep -c 'anomaly$')
"$LOGTK" report -q --format "$fmt" --detect "$tmp/novelty.model" --window-size 50 \
    -o "$tmp/detect.html" "$tmp/burst.log" || check no "logtk report --detect failed"
browse "$tmp/detect.html" detect
dom=$tmp/detect.dom
check "$(is "$(grep -c '<section id="anomalies"' "$dom")" 1)" "detect page: no anomalies section"
got=$(sed -n 's/.*<section id="anomalies" data-windows="[0-9]*" data-anomalous="\([0-9]*\)".*/\1/p' "$dom")
check "$( [ "$want" -ge 1 ] && [ "$got" = "$want" ] && echo ok || echo no)" \
    "detect page: $got anomalous windows, logtk detect predict says $want"
check "$(is "$(grep -o 'class="anomaly"' "$dom" | wc -l)" "$want")" \
    "detect page: not one shaded window per anomalous window"
check "$(is "$(console detect)" 0)" "detect page: console messages"

# --- a diff, with peers and hostile text --------------------------------------
cat "$LOGTK_SRCDIR/tests/data/report_diff.jsonl" "$LOGTK_SRCDIR/tests/data/report_peers.jsonl" \
    > "$tmp/diff.jsonl"
"$LOGTK" report --diff "$tmp/diff.jsonl" -o "$tmp/diff.html" || check no "logtk report --diff failed"
browse "$tmp/diff.html" diff
dom=$tmp/diff.dom
for s in summary changes peers; do
    check "$(is "$(grep -c "<section id=\"$s\"" "$dom")" 1)" "diff page: no section $s"
done
rows=$(grep -c '"template_id"' "$LOGTK_SRCDIR/tests/data/report_diff.jsonl")
check "$(is "$(grep -o '<tr class="change"' "$dom" | wc -l)" "$rows")" "diff page: not $rows change rows"
sig=$(grep -c '"significant":true' "$LOGTK_SRCDIR/tests/data/report_diff.jsonl")
check "$(is "$(sed -n 's/.*data-significant="\([0-9]*\)" data-peers.*/\1/p' "$dom")" "$sig")" \
    "diff page: not $sig significant changes"
first=$(grep -o '<tr class="change" data-template-id="[0-9]*"' "$dom" | head -n 1 | tr -dc 0-9)
check "$(is "$first" 15)" "diff page: the top change is E$first, not E15 (highest score)"
check "$(is "$(grep -o '<tr class="peer"' "$dom" | wc -l)" 4)" "diff page: not 4 peer rows"
check "$(grep -q 'host-&lt;b&gt;4&lt;/b&gt;' "$dom" && echo ok || echo no)" "diff page: a host name is not escaped"
check "$(grep -q "$(printf '\357\277\275')" "$dom" && echo ok || echo no)" \
    "diff page: invalid UTF-8 not shown as U+FFFD"
check "$(is "$(fetchers diff.dom)" 0)" "diff page: hostile text became an element"
check "$(is "$(console diff)" 0)" "diff page: console messages: $(grep CONSOLE "$tmp/diff.err" | head -n 3)"

echo "report pages rendered in $(( $(date +%s) - start )) s"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
