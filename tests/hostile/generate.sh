#!/bin/sh
# generate.sh - write the large and binary inputs of the hostile suite.
#
# Usage: sh generate.sh OUTDIR [full|small] [SAMPLE]
#
# Inputs too big to keep in the repository (a 1 MB line, 10^5 distinct events,
# megabytes of zero bytes) or derived from a valid log (truncated .gz/.zst/.xz/
# .bz2/.tar/.zip, damaged archives) are made here at test time.  "full" writes
# the sizes of the hardening issue; "small" (make check) writes one tenth of
# the bulk so the suite stays quick, while every input keeps its shape: the
# over-long line is always longer than the 1 MiB line limit, and the zero
# streams always longer than it.  SAMPLE is a valid text log (default
# tests/data/sample.log next to this folder).  Needs only sh, awk, head, dd and
# the compressors; a missing compressor skips its input.
#
# The file name says the input's kind to tests/hostile_suite.sh: *.log and the
# compressed/packed logs are text logs, *.ltk archives, *.state parser states,
# *.model detector models, *.csv session or structured CSV.

set -e
out=${1:?usage: generate.sh OUTDIR [full|small] [SAMPLE]}
size=${2:-small}
here=$(cd "$(dirname "$0")" && pwd)
sample=${3:-$here/../data/sample.log}
case $size in
    full) scale=1 ;;
    small) scale=10 ;;
    *) echo "generate.sh: size must be full or small" >&2; exit 2 ;;
esac
mkdir -p "$out"

# Tokens made of letters only, so no parser masks them as numbers: each
# one is distinct, which makes every line (or every token) a new event.
awk_word='function word(n,   s) { s = ""; do { s = s sprintf("%c", 97 + n % 26); n = int(n / 26) } while (n > 0); return s }'

# One line of about 1,000,000 bytes of distinct tokens (the 1 MiB line limit
# accepts it), between two ordinary lines.
awk -v bytes=$((1000000 / scale)) "$awk_word"'
BEGIN {
    print "2024-03-11 08:00:00.000 INFO App: before the long line"
    # printf piece by piece: building the line by concatenation is quadratic in mawk
    n = 0; len = 0
    while (len < bytes) { w = "tok" word(n++); printf "%s ", w; len += length(w) + 1 }
    printf "\n"
    print "2024-03-11 08:00:01.000 INFO App: after the long line"
}' > "$out/long_line_distinct.log"

# A line of 1 MiB + 1 bytes: over the default --max-line-length; the error
# must name the file and line 2.  Always full size: it is the limit itself.
{
    echo "2024-03-11 08:00:00.000 INFO App: before the line over the limit"
    head -c 1048577 /dev/zero | tr '\0' 'x'
    echo
    echo "2024-03-11 08:00:01.000 INFO App: after the line over the limit"
} > "$out/line_over_limit.log"

# Lines of 10,000 distinct tokens each (LogSig, LKE, LogMine and Spell are
# quadratic or worse in tokens).
awk -v lines=10 -v tokens=$((10000 / scale)) "$awk_word"'
BEGIN {
    n = 0
    for (i = 0; i < lines; i++) {
        printf "2024-03-11 08:00:00.000 INFO App:"
        for (j = 0; j < tokens; j++) printf " %s", word(n++)
        printf "\n"
    }
}' > "$out/wide_lines_10k_tokens.log"

# 100,000 lines, each a different event (distinct constant words).
awk -v lines=$((100000 / scale)) "$awk_word"'
BEGIN {
    for (i = 0; i < lines; i++)
        printf "2024-03-11 08:00:00.000 INFO App: event %s happened in module %s\n", word(i), word(i * 7 + 3)
}' > "$out/distinct_events_100k.log"

# 40,000 lines of 10,000 messages, each named by its first word and printing
# four pairs of states ("beta moved alpha to gamma"): that many families of a
# state machine's pairs reach fuse's threshold, each asking for its
# templates to be read (rule transitions), which must stay linear in lines
# (a read at each took minutes).
awk -v lines=$((40000 / scale)) "$awk_word"'
BEGIN {
    for (i = 0; i < lines; i++)
        printf "2024-03-11 08:00:00.000 INFO App: %s moved %s to %s\n", word(int(i / 4) + 100000),
               word(1000 + (i * 7) % 40), word(1000 + (i * 11 + 3) % 40)
}' > "$out/transition_families_40k.log"

# 64 KiB of one character on one line, then the same of spaces and of '(' (a
# run that catastrophic masks and nested-bracket scanners backtrack over).
{
    head -c 65536 /dev/zero | tr '\0' 'a'; echo
    head -c 65536 /dev/zero | tr '\0' ' '; echo
    head -c 65536 /dev/zero | tr '\0' '('; echo
} > "$out/one_char_64k.log"

# One token of 200,000 short pieces, each of a shape that makes the masks
# ask about the rest of the token ("a1/": a directory of a source location
# closing it?, "k=a/": a key's value?): a question about the rest, asked per
# piece, is quadratic in the token.  Always full size: the length is the point.
awk 'BEGIN {
    print "2024-03-11 08:00:00.000 INFO App: before the pieces"
    for (k = 0; k < 2; k++) {
        printf "2024-03-11 08:00:00.500 INFO App: x "
        for (i = 0; i < 200000; i++) printf "%s", (k ? "k=a/" : "a1/")
        printf "z.go:5\n"
    }
    print "2024-03-11 08:00:01.000 INFO App: after the pieces"
}' > "$out/one_token_many_pieces.log"

# JSON lines whose strings make fuse look back or ahead: an array of 150,000
# string elements (each asks whether a '[' before it is open), the same with
# blanks in every element (each a span of tokens), and 100,000 keys whose
# quoted values open and never close in their token.  Always full size.
awk 'BEGIN {
    printf "{\"msg\":\"one array\",\"a\":["
    for (i = 0; i < 150000; i++) printf "%s\"x\"", (i ? "," : "")
    print "]}"
    printf "{\"msg\":\"spaced array\",\"a\":["
    for (i = 0; i < 100000; i++) printf "%s\"x y\"", (i ? "," : "")
    print "]}"
    for (i = 0; i < 100000; i++) printf "k=\"a "
    print ""
}' > "$out/json_long_arrays.log"

# Deep nesting: 10,000 levels of brackets, braces and quotes on a line, and
# 10,000 nested XML elements (10,001 tokens) on another.
awk -v depth=10000 '
BEGIN {
    o = ""; c = ""
    for (i = 0; i < depth; i++) { o = o "[{(\""; c = "\")}]" c }
    print "2024-03-11 08:00:00.000 INFO App: " o "x" c
}' > "$out/deep_brackets.log"
awk -v depth=10000 '
BEGIN {
    o = ""; c = ""
    for (i = 0; i < depth; i++) { o = o "<a k=\"v\">"; c = "</a>" c }
    print "2024-03-11 08:00:01.000 INFO App: " o c
}' > "$out/deep_xml_tags.log"

# Lines a log format like "<Date> <Time> <Level> <Component>: <Content>"
# cannot match but almost can (a colon in every word, a blank after every
# word): every one costs the format regex its backtracking budget before
# it is kept whole.
awk -v lines=$((20000 / scale)) '
BEGIN {
    line = ""
    for (j = 0; j < 100; j++) line = line "a:b c "
    for (i = 0; i < lines; i++) print line
}' > "$out/format_mismatch.log"

# Lines on which a user's format regex "<A> (x+x+)+[yz] <Content>"
# backtracks catastrophically: "a " and a run of x with no y or z, so each
# one spends the whole match limit unless the limit adapts.
awk -v lines=$((20000 / scale)) '
BEGIN {
    for (i = 0; i < lines; i++) {
        line = "a "
        for (j = 0; j < 50 + i % 30; j++) line = line "x"
        print line
    }
}' > "$out/catastrophic_format.log"

# Many empty lines: every one is a row.
awk -v lines=$((1000000 / scale)) 'BEGIN { for (i = 0; i < lines; i++) print "" }' > "$out/empty_lines.log"

# Zero bytes only (what a pre-allocated or zeroed log file holds): longer
# than the line limit, no newline at all.
head -c $((16777216 / scale)) /dev/zero > "$out/zero_bytes.log"

# A decompression bomb: 1 GiB of zero bytes as 1 MB of gzip.
if command -v gzip >/dev/null 2>&1; then
    head -c $((1073741824 / scale)) /dev/zero | gzip -1 > "$out/zero_bomb.log.gz"
fi

# Valid compressed logs cut in half, and garbage behind a compressor's magic.
half() { head -c $(($(wc -c < "$1") / 2)) "$1" > "$2"; }
for z in gzip:gz zstd:zst xz:xz bzip2:bz2; do
    tool=${z%%:*}; ext=${z#*:}
    command -v "$tool" >/dev/null 2>&1 || continue
    "$tool" -c < "$sample" > "$out/whole.tmp"
    half "$out/whole.tmp" "$out/truncated.log.$ext"
    { head -c 16 "$out/whole.tmp"; head -c 4096 /dev/zero | tr '\0' '\377'; } > "$out/garbage_body.log.$ext"
    rm -f "$out/whole.tmp"
done
if command -v tar >/dev/null 2>&1; then
    cp "$sample" "$out/member.log"
    (cd "$out" && tar -cf whole.tar member.log && rm member.log)
    half "$out/whole.tar" "$out/truncated.log.tar"
    rm -f "$out/whole.tar"
fi
if command -v zip >/dev/null 2>&1; then
    cp "$sample" "$out/member.log"
    (cd "$out" && zip -q whole.zip member.log && rm member.log)
    half "$out/whole.zip" "$out/truncated.log.zip"
    rm -f "$out/whole.zip"
fi

# Session CSV with 100,000 distinct events (the feature matrix has 10^5
# columns), and one with 10,000 columns per row.
awk -v sessions=$((1000 / scale)) -v per=100 '
BEGIN {
    print "BlockId,EventSequence,Label"
    n = 0
    for (i = 0; i < sessions; i++) {
        seq = ""
        for (j = 0; j < per; j++) seq = seq (j ? " " : "") "E" n++
        printf "blk_%d,%s,%s\n", i, seq, (i % 10 == 0 ? "Anomaly" : "Normal")
    }
}' > "$out/sessions_100k_events.csv"
awk -v cols=10000 -v rows=$((100 / scale)) '
BEGIN {
    line = "LineId"
    for (j = 1; j < cols; j++) line = line (j == 5000 ? ",EventId" : ",c" j)
    print line
    for (i = 1; i <= rows; i++) {
        printf "%d", i
        for (j = 1; j < cols; j++) printf ",%s", (j == 5000 ? "E" (i % 7) : "\"v" j "\"")
        printf "\n"
    }
}' > "$out/wide_10k_columns.csv"

# Archives: a valid one cut short, without its footer, with a flipped byte
# in a block, and its 32-byte header alone.  LOGTK is the tool under test.
if [ -n "$LOGTK" ]; then
    "$LOGTK" compress -q -o "$out/whole.ltk.tmp" "$sample"
    n=$(wc -c < "$out/whole.ltk.tmp")
    half "$out/whole.ltk.tmp" "$out/truncated.ltk"
    head -c $((n - 8)) "$out/whole.ltk.tmp" > "$out/no_footer.ltk"
    head -c 32 "$out/whole.ltk.tmp" > "$out/header_only.ltk"
    cp "$out/whole.ltk.tmp" "$out/flipped_byte.ltk"
    printf '\377' | dd of="$out/flipped_byte.ltk" bs=1 seek=$((n / 3)) conv=notrunc 2>/dev/null
    rm -f "$out/whole.ltk.tmp"
    # a state and a model cut in half
    "$LOGTK" parse -q --save-state "$out/whole.state.tmp" -o /dev/null "$sample"
    half "$out/whole.state.tmp" "$out/truncated.state"
    "$LOGTK" detect train -q --model pca -o "$out/whole.model.tmp" "$sample"
    half "$out/whole.model.tmp" "$out/truncated.model"
    rm -f "$out/whole.state.tmp" "$out/whole.model.tmp"
fi
