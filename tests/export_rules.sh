#!/bin/sh
# export_rules.sh - do the rules of `logtk parse --export` parse a log as logtk does?
#
# For each log: `logtk parse` writes its rows and the exported rules
# (--export lognorm, --export patterndb); the rows' Content column is then
# matched by the real engines -- liblognorm's `lognormalizer` with the
# rulebase, syslog-ng's db-parser() (the daemon, on a file source, in a
# temporary folder) with the patterndb, and `pdbtool match` on the first line
# of every event -- and each line's rule (its tag, its rule id) is compared
# with logtk's EventId.
#   coverage   lines some rule matched
#   agreement  lines whose rule names logtk's event
#
# Usage:
#   sh tests/export_rules.sh            the test (make check): HDFS, Apache and
#                                       Proxifier of $LOGTK_LOGHUB, or the sample
#                                       log when it is not set; every line must
#                                       be covered and agree
#   sh tests/export_rules.sh --table    the table for all 16 Loghub-2k logs
#   sh tests/export_rules.sh --table NAME...   for some of them
# Environment: EXPORT_PARSE_ARGS (--table: logtk parse's options instead of
# --dataset NAME, e.g. "--parser drain --dataset NAME" or "--format <Content>"),
# LOGTK (default ./logtk), LOGTK_SRCDIR, LOGTK_LOGHUB, SYSLOG_NG_ROOT
# (default /opt/syslog-ng: syslog-ng unpacked there, see .ci/run).
# Exit 77 (skip) when neither lognormalizer nor syslog-ng is installed.
set -u
LOGTK=${LOGTK:-./logtk}
LOGTK_SRCDIR=${LOGTK_SRCDIR:-.}
case $LOGTK in /*) ;; *) LOGTK=$(pwd)/$LOGTK ;; esac
LOGTK_SRCDIR=$(cd "$LOGTK_SRCDIR" && pwd) # no "..": syslog-ng refuses such file paths
SNG=${SYSLOG_NG_ROOT:-/opt/syslog-ng}

have_lognorm=0 have_sng=0
command -v lognormalizer >/dev/null 2>&1 && have_lognorm=1
if [ -x "$SNG/usr/sbin/syslog-ng" ] && [ -x "$SNG/usr/bin/pdbtool" ]; then
    have_sng=1
    SNG_LIB=$SNG/usr/lib/syslog-ng
    SNG_MODULES=$(ls -d "$SNG_LIB"/[0-9]* 2>/dev/null | head -n 1)
fi
if [ $have_lognorm = 0 ] && [ $have_sng = 0 ]; then
    echo "SKIP: neither lognormalizer (liblognorm-utils) nor syslog-ng ($SNG) is installed"
    exit 77
fi
[ $have_lognorm = 1 ] || echo "note: lognormalizer not installed: lognorm columns are -"
[ $have_sng = 1 ] || echo "note: syslog-ng not found in $SNG: patterndb columns are -"

work=$(mktemp -d "${TMPDIR:-/tmp}/logtk-export.XXXXXX") || exit 1
sng_pid=
cleanup() {
    [ -n "$sng_pid" ] && kill "$sng_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# The Content and EventId columns of logtk's TSV rows (Content is 4th from the
# end; TSV escapes undone).
split_rows() { # ROWS CONTENT EVENTS
    awk -F '\t' -v content="$2" -v events="$3" '
        function unescape(s,   out, i, c) {
            if (index(s, "\\") == 0) return s
            out = ""
            for (i = 1; i <= length(s); i++) {
                c = substr(s, i, 1)
                if (c == "\\" && i < length(s)) {
                    i++; c = substr(s, i, 1)
                    c = c == "t" ? "\t" : c == "n" ? "\n" : c == "r" ? "\r" : c
                }
                out = out c
            }
            return out
        }
        NR > 1 { print unescape($(NF - 3)) > content; print $(NF - 2) > events }' "$1"
}

# lognormalizer: one output line per input line; the tag, or "-".
lognorm_events() { # RULEBASE CONTENT OUT
    lognormalizer -r "$1" -T < "$2" |
        sed -n 's/.*"event\.tags": \[ "\([^"]*\)".*/\1/p; t; s/.*/-/p' > "$3"
}

# syslog-ng db-parser(): the daemon reads INPUT (no-parse: the whole line is
# $MESSAGE) and writes each message's rule id ("" when none matched).  With
# HEADER-REGEX, INPUT is the raw log: regexp-parser() cuts the header off
# (named group Content) and db-parser() matches that, as logtk-shippers(7)
# shows; without, INPUT holds the contents.
pdb_events() { # PATTERNDB INPUT OUT [HEADER-REGEX]
    n=$(wc -l < "$2")
    d=$work/sng
    rm -rf "$d" && mkdir -p "$d"
    if [ -n "${4:-}" ]; then
        header="parser p_header { regexp-parser(prefix(\".logtk.\") patterns('$4')); };"
        db="db-parser(file(\"$1\") template(\"\\\${.logtk.Content}\"))"
        path="parser(p_header); parser(p_db);"
    else
        header=
        db="db-parser(file(\"$1\"))"
        path="parser(p_db);"
    fi
    cat > "$d/conf" <<EOF
@version: 3.38
options { stats-freq(0); };
source s_in { file("$2" flags(no-parse) follow-freq(1)); };
$header
parser p_db { $db; };
destination d_out { file("$d/out" template("\${.classifier.rule_id}\n")); };
log { source(s_in); $path destination(d_out); };
EOF
    LD_LIBRARY_PATH=$SNG_LIB "$SNG/usr/sbin/syslog-ng" -F --no-caps -f "$d/conf" \
        --module-path="$SNG_MODULES" -R "$d/persist" -p "$d/pid" -c "$d/ctl" \
        > "$d/log" 2>&1 &
    sng_pid=$!
    i=0
    while [ $i -lt 300 ]; do
        [ -f "$d/out" ] && [ "$(wc -l < "$d/out")" -ge "$n" ] && break
        kill -0 "$sng_pid" 2>/dev/null || break
        sleep 0.1
        i=$((i + 1))
    done
    kill "$sng_pid" 2>/dev/null
    wait "$sng_pid" 2>/dev/null
    sng_pid=
    if [ ! -f "$d/out" ] || [ "$(wc -l < "$d/out")" -lt "$n" ]; then
        echo "syslog-ng did not write $n lines; its log:" >&2
        cat "$d/log" >&2
        : > "$3"
        return 1
    fi
    sed 's/^$/-/' "$d/out" > "$3"
}

# pdbtool match on the first line of each event: the rule id it prints.
pdbtool_mismatches() { # PATTERNDB CONTENT EVENTS
    paste "$3" "$2" | awk -F '\t' '!seen[$1]++' > "$work/firsts"
    bad=0
    tab=$(printf '\t')
    while IFS= read -r row; do
        ev=${row%%"$tab"*} msg=${row#*"$tab"} # (read would strip the message's leading blanks)
        got=$(LD_LIBRARY_PATH=$SNG_LIB "$SNG/usr/bin/pdbtool" match -p "$1" -M "$msg" \
                  -T '${.classifier.rule_id}' 2>/dev/null | tail -n 1)
        if [ "$got" != "$ev" ]; then
            bad=$((bad + 1))
            echo "pdbtool match: '$msg': rule '$got', logtk $ev" >&2
        fi
    done < "$work/firsts"
    echo $bad
}

# coverage and agreement of RULE-EVENTS against EVENTS: "covered agreed"
score() { # EVENTS RULE_EVENTS
    paste "$1" "$2" | awk -F '\t' '{ if ($2 != "-" && $2 != "") c++; if ($1 == $2) a++ }
                                    END { printf "%d %d\n", c, a }'
}

pct() { awk -v a="$1" -v n="$2" 'BEGIN { printf "%.2f%%", n ? 100 * a / n : 0 }'; }

# One log: prints "NAME LINES LN_COV LN_AGREE PDB_COV PDB_AGREE" (counts; - when not run).
measure() { # NAME INPUT PARSE-ARGS...
    name=$1 input=$2
    shift 2
    "$LOGTK" parse -q "$@" --export lognorm "$work/rules.rb" --export patterndb "$work/rules.xml" \
        -o "$work/rows.tsv" "$input" || return 1
    split_rows "$work/rows.tsv" "$work/content" "$work/events"
    lines=$(wc -l < "$work/events")
    ln="- -" pdb="- -"
    if [ $have_lognorm = 1 ]; then
        lognorm_events "$work/rules.rb" "$work/content" "$work/ln.events"
        ln=$(score "$work/events" "$work/ln.events")
        [ -n "${KEEP_DIFF:-}" ] && paste "$work/events" "$work/ln.events" "$work/content" |
            awk -F '\t' '$1 != $2' > "$KEEP_DIFF.$name.lognorm"
    fi
    if [ $have_sng = 1 ]; then
        pdb_events "$work/rules.xml" "$work/content" "$work/pdb.events" || return 1
        pdb=$(score "$work/events" "$work/pdb.events")
        [ -n "${KEEP_DIFF:-}" ] && paste "$work/events" "$work/pdb.events" "$work/content" |
            awk -F '\t' '$1 != $2' > "$KEEP_DIFF.$name.pdb"
    fi
    echo "$name $lines $ln $pdb"
}

if [ "${1:-}" = --table ]; then
    shift
    [ -n "${LOGTK_LOGHUB:-}" ] || { echo "--table needs LOGTK_LOGHUB"; exit 2; }
    names=${*:-"HDFS Hadoop Spark Zookeeper BGL HPC Thunderbird Windows Linux Android HealthApp Apache Proxifier OpenSSH OpenStack Mac"}
    printf '| log | lines | lognorm coverage | lognorm agreement | patterndb coverage | patterndb agreement |\n'
    printf '|---|---|---|---|---|---|\n'
    tl=0 tlc=0 tla=0 tpc=0 tpa=0
    for name in $names; do
        # EXPORT_PARSE_ARGS: other options for logtk parse (default: the preset)
        # shellcheck disable=SC2086
        r=$(measure "$name" "$LOGTK_LOGHUB/$name/${name}_2k.log" ${EXPORT_PARSE_ARGS:---dataset $name}) || {
            echo "| $name | failed |"; continue; }
        set -- $r
        printf '| %s | %s | %s | %s | %s | %s |\n' "$1" "$2" \
            "$( [ "$3" = - ] && echo - || pct "$3" "$2")" "$( [ "$4" = - ] && echo - || pct "$4" "$2")" \
            "$( [ "$5" = - ] && echo - || pct "$5" "$2")" "$( [ "$6" = - ] && echo - || pct "$6" "$2")"
        tl=$((tl + $2))
        [ "$3" = - ] || { tlc=$((tlc + $3)); tla=$((tla + $4)); }
        [ "$5" = - ] || { tpc=$((tpc + $5)); tpa=$((tpa + $6)); }
    done
    printf '| all | %s | %s | %s | %s | %s |\n' "$tl" "$(pct $tlc $tl)" "$(pct $tla $tl)" \
        "$(pct $tpc $tl)" "$(pct $tpa $tl)"
    exit 0
fi

# The test: every line covered by a rule of its own event, in both formats.
passed=0 failed=0
check() { # NAME LINES COVERED AGREED FORMAT
    if [ "$3" = - ]; then
        return
    fi
    if [ "$3" = "$2" ] && [ "$4" = "$2" ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: $1 $5: $2 lines, $3 matched by a rule, $4 by a rule of logtk's event"
    fi
}
if [ -n "${LOGTK_LOGHUB:-}" ] && [ -d "$LOGTK_LOGHUB/HDFS" ]; then
    set -- HDFS Apache Proxifier
    for name in "$@"; do
        r=$(measure "$name" "$LOGTK_LOGHUB/$name/${name}_2k.log" --dataset "$name") ||
            { failed=$((failed + 1)); echo "FAIL: $name: could not measure"; continue; }
        echo "$r"
        set -- $r
        check "$1" "$2" "$3" "$4" lognorm
        check "$1" "$2" "$5" "$6" patterndb
    done
else
    echo "note: LOGTK_LOGHUB not set: the sample log only"
    sample=$LOGTK_SRCDIR/tests/data/sample.log
    r=$(measure sample "$sample" --format '<Date> <Time> <Level> <Component>: <Content>') ||
        { echo "FAIL: sample: could not measure"; echo "0 passed, 1 failed"; exit 1; }
    echo "$r"
    set -- $r
    check "$1" "$2" "$3" "$4" lognorm
    check "$1" "$2" "$5" "$6" patterndb
fi
# Literal text each format must escape ('%' and '\\' for liblognorm, '@' and XML's
# characters for patterndb), blank runs, an empty parameter, a field right
# before '@' and tabs.
printf '%s\n' \
    'disk 50% full on /dev/sda1 <warn> & "quoted" it'"'"'s' \
    'disk 75% full on /dev/sdb2 <warn> & "quoted" it'"'"'s' \
    'user bob@example.org logged in from C:\\Users\\bob' \
    'user al@example.org logged in from C:\\Users\\al' \
    'job 17 done  in 3 s' 'job 18 done in 4 s' 'job 19 done   in  s' \
    'key=ab@@cd value=1' 'key=xy@@zz value=2' \
    "tab	separated	12" "tab	separated	13" > "$work/escapes.log"
r=$(measure escapes "$work/escapes.log" --format '<Content>') ||
    { failed=$((failed + 1)); r="escapes 0 - - - -"; echo "FAIL: escapes: could not measure"; }
echo "$r"
set -- $r
check "$1" "$2" "$3" "$4" lognorm
check "$1" "$2" "$5" "$6" patterndb

# The header recipe of logtk-shippers(7): syslog-ng on the raw log, regexp-parser()
# then db-parser(template()).
if [ $have_sng = 1 ]; then
    if [ -n "${LOGTK_LOGHUB:-}" ] && [ -d "$LOGTK_LOGHUB/HDFS" ]; then
        raw=$LOGTK_LOGHUB/HDFS/HDFS_2k.log
        regex='^\d+ \d+ \d+ \S+ [^:]+: (?<Content>.*?)\r?$'
        "$LOGTK" parse -q --dataset HDFS --export patterndb "$work/rules.xml" \
            -o "$work/rows.tsv" "$raw"
    else
        raw=$sample
        regex='^(?:\S+ \S+ \S+ [^:]+: )?(?<Content>.*?)\r?$'
        "$LOGTK" parse -q --format '<Date> <Time> <Level> <Component>: <Content>' \
            --export patterndb "$work/rules.xml" -o "$work/rows.tsv" "$raw"
    fi
    split_rows "$work/rows.tsv" "$work/content" "$work/events"
    n=$(wc -l < "$work/events")
    if pdb_events "$work/rules.xml" "$raw" "$work/raw.events" "$regex"; then
        set -- $(score "$work/events" "$work/raw.events")
        echo "syslog-ng header recipe: $n lines, $1 matched, $2 agree"
        if [ "$1" = "$n" ] && [ "$2" = "$n" ]; then
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
            echo "FAIL: syslog-ng regexp-parser + db-parser on the raw log"
            paste "$work/events" "$work/raw.events" | awk -F '\t' '$1 != $2' | head -n 5
        fi
    else
        failed=$((failed + 1))
        echo "FAIL: syslog-ng regexp-parser + db-parser did not run"
    fi
fi
# pdbtool match, line by line, on the first line of every event of the last log
if [ $have_sng = 1 ]; then
    bad=$(pdbtool_mismatches "$work/rules.xml" "$work/content" "$work/events")
    if [ "$bad" = 0 ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: pdbtool match: $bad events' first lines not matched by their rule"
    fi
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
