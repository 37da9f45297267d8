#!/bin/sh
# Each of fuse's masking rules measured leave-one-dataset-out: fuse is built
# with one rule compiled out (-DFUSE_RULES_OFF, see parser_fuse.c) and scored
# on every ground truth we have; a row per rule says on which datasets the
# rule helps (some metric falls without it) and on which it hurts (some
# metric rises without it), and the change of the mean GA and PA per ground
# truth.  A rule that helps only the dataset it was written for is a fact
# about that dataset, not about how logs are written.
#
# usage: tests/fuse_ablation.sh BUILD_DIR [WORK_DIR [RULE...]]
#   BUILD_DIR  a configured build (in-tree or not); it is rebuilt for each rule
#              and left as a normal build at the end
#   RULE       only these rules, by name (default: every rule)
#   Data from LOGTK_LOGHUB, LOGTK_LOGHUB2 and LOGTK_LOGHUB2_FULL (when set).
#   FUSE_ABLATION_LOGS  optional: more log files (space-separated), logs no
#              ground truth holds; each is parsed raw, and a fifth column
#              names those whose rows change without the rule (where the
#              rule acts beyond the benchmarks).
set -u
build=$(cd "${1:?usage: $0 BUILD_DIR [WORK_DIR [RULE...]]}" && pwd) || exit 2
work=${2:-${TMPDIR:-/tmp}/logtk-ablation}
[ $# -ge 2 ] && shift 2 || shift $#
mkdir -p "$work" || exit 2
src=$(sed -n 's/^abs_top_srcdir = //p' "$build/Makefile")
cflags=$(sed -n 's/^CFLAGS = //p' "$build/Makefile")
rules="1:value-words 2:calendar 3:paths 4:hosts 5:inner-digits 6:unit-names
7:numbered 8:leader-dots 9:code-symbols 10:joined 11:quantity 12:bound
13:annotation 14:participles 15:hex-words 16:dotted-slots
17:hex-groups 18:brackets 19:scoped-names
20:machine-words 21:hex-dumps 22:quoted-slots 23:scoped-slots 24:key-names
25:urls 26:closers 27:versions 28:field-words 29:key-values 30:timestamps 31:objects
32:list-lengths 33:code-names 34:known-slots 35:source-files 36:base64 37:sole-words 38:sql-literals
39:twins 40:list-cells 41:text-tails 42:transitions 43:quoted-spans 44:control-escapes
45:unit-slots 46:calendar-dates 47:mail-addresses 48:user-slots 49:numbered-lists 50:booleans
51:numbered-slots 52:null-words 53:enum-slots 54:spaced-paths 55:colon-keys 56:code-keys
57:anchors"
if [ $# -gt 0 ]; then
    picked=""
    for name in "$@"; do
        r=$(printf '%s\n' $rules | grep -x "[0-9]*:$name") ||
            { echo "$0: no rule named $name" >&2; exit 2; }
        picked="$picked $r"
    done
    rules=$picked
fi

score() { # score MASK: benchmark rows of fuse built with those rules off
    touch "$src/parsers/parser_fuse.c"
    make -C "$build" -j2 CFLAGS="$cflags -DFUSE_RULES_OFF=$1" >/dev/null 2>&1 ||
        { echo "$0: build with FUSE_RULES_OFF=$1 failed" >&2; exit 1; }
    out=$work/$1.tsv
    : > "$out"
    for gt in original corrected loghub2; do
        "$build/logtk" bench parse --parser fuse --gt "$gt" --quiet >> "$out" || exit 1
    done
    "$build/logtk" bench parse --parser fuse --no-preset --quiet >> "$out" || exit 1
    if [ -n "${LOGTK_LOGHUB2_FULL:-}" ]; then
        "$build/logtk" bench parse --parser fuse --loghub2-full "$LOGTK_LOGHUB2_FULL" --quiet |
            awk -F'\t' '$2 == "fuse"' >> "$out"
        # the 2k logs written the full ground truth's way (its template lists)
        "$build/logtk" bench parse --parser fuse --gt full-list --quiet >> "$out" || exit 1
    fi
    : > "$work/$1.logs"
    for f in ${FUSE_ABLATION_LOGS:-}; do
        sum=$("$build/logtk" parse -q "$f" 2>/dev/null | cksum)
        printf '%s\t%s\n' "$f" "$sum" >> "$work/$1.logs"
    done
}

# Bit 0 only turns the quick hash off (it restates the rules), so the
# baseline and every variant take the same path.
score 1
for r in $rules; do
    score $((1 | (1 << ${r%%:*})))
done
make -C "$build" -j2 >/dev/null 2>&1 || true
touch "$src/parsers/parser_fuse.c"
make -C "$build" -j2 >/dev/null 2>&1

printf 'rule\thelps\thurts\tmean GA and PA change without the rule, per ground truth'
[ -n "${FUSE_ABLATION_LOGS:-}" ] && printf '\tlogs it changes'
printf '\n'
for r in $rules; do
    logs=""
    if [ -n "${FUSE_ABLATION_LOGS:-}" ]; then
        logs=$(awk -F'\t' 'FILENAME == ARGV[1] { base[$1] = $2; next }
                            base[$1] != $2 { n = split($1, p, "/"); printf " %s/%s", p[n - 1], p[n] }' \
                   "$work/1.logs" "$work/$((1 | (1 << ${r%%:*}))).logs")
        logs=$(printf '\t%s' "${logs:- -}")
    fi
    awk -F'\t' -v name="${r#*:}" -v logs="$logs" '
        $2 != "fuse" || $5 !~ /^[0-9.]+$/ { next }
        FILENAME == ARGV[1] { base[$1 SUBSEP $3] = $5 " " $6 " " $7 " " $8; next }
        {
            k = $1 SUBSEP $3
            if (!(k in base)) next
            split(base[k], b, " ")
            help = hurt = 0
            for (i = 1; i <= 4; i++) {
                d = b[i] - $(i + 4)
                if (d > 0.0005) help = 1
                if (d < -0.0005) hurt = 1
            }
            if ($1 == "mean") {
                means = means sprintf(" %s GA%+.4f PA%+.4f", $3, $5 - b[1], $6 - b[2])
                next
            }
            if (help && !(($1) in helps)) { helps[$1] = 1; hl = hl " " $1 }
            if (hurt) { hu = hu " " $1 "(" $3 ")" }
        }
        END { printf "%s\t%s\t%s\t%s%s\n", name, hl == "" ? " -" : hl, hu == "" ? " -" : hu, means, logs }
    ' "$work/1.tsv" "$work/$((1 | (1 << ${r%%:*}))).tsv"
done
