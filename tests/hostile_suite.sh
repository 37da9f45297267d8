#!/bin/sh
# hostile_suite.sh - feed hostile inputs through every subcommand that reads
# them, each under a time and memory bound, and check that nothing crashes,
# hangs, loses lines or fails without naming the file.
#
# Inputs: the small files in tests/hostile/ and the big or binary ones that
# tests/hostile/generate.sh writes under $TMPDIR, plus /dev/zero; the file's
# name says its kind (text log, .ltk archive, .state, .model, .csv).  Every
# kind runs through the commands that read it (a text log: parse with every
# parser and with a format, masks, a saved and a loaded state, csv/jsonl;
# compress and then decompress, info, grep and cat of the archive; merge;
# detect sessions, train with every model, predict and watch; bench parse);
# tests/hostile/options adds hostile option values.  Each run is one table
# row: input, command, seconds, peak resident KB, exit status, verdict.
#
# A run fails when it
#   - exits with a status >= 124 (killed by a signal or by the time bound:
#     `timeout` gives 124), or prints a sanitizer report;
#   - takes more CPU time (user + system) than the time bound, or uses more
#     than the memory bound (resident set), both from /usr/bin/time when it
#     is installed (else wall time, and no RSS); without ASan also under
#     `ulimit -v`, so a runaway allocation fails instead of swapping.  CPU
#     time, because the machines that run the suite are shared: `ulimit -t`
#     stops a run at the bound, and `timeout` one blocked for 10 times the
#     bound in wall time (a hang);
#   - fails (status 1 or 2; grep: 2) with a message that does not name the
#     input file (or, for a detector, the session), or, for a line too long,
#     its line;
#   - succeeds but lost lines: parse rows != input lines, detect or bench
#     counting a different number of lines, decompress or cat not giving
#     the input back byte for byte, grep -c differing from grep -c; or
#     succeeds on a damaged compressed file (one gzip/zstd/... rejects).
# A failure listed in tests/hostile/known_failures (INPUT COMMAND SIZE
# REASON: shell patterns, SIZE "all" or "full" when it fails only at full
# size) is reported as "known" and does not fail the suite; a listed case
# that passes at a size it is listed for is reported as "listed as known",
# so the line can go.
#
# Environment:
#   LOGTK                   the logtk to test (default ./logtk)
#   LOGTK_SRCDIR            the source tree (default .)
#   LOGTK_HOSTILE_SIZE      full (the sizes of the hardening issue) or small
#                           (default: a tenth of the bulk, for make check;
#                           a damaged compressed file then goes through one
#                           parser and one model, raw logs skip the models
#                           that need labels, grep looks for one pattern,
#                           and a known failure gets 1 s instead of the bound)
#   LOGTK_HOSTILE_SECONDS   CPU time bound per run (default 10)
#   LOGTK_HOSTILE_WALL      wall time after which a run counts as hung
#                           (default 10 times the CPU bound)
#   LOGTK_HOSTILE_MB        memory bound per run in MB (default 1024)
#   LOGTK_HOSTILE_ONLY      run only rows whose "INPUT COMMAND" matches this
#                           shell pattern, e.g. '*zero* parse-*'
#   LOGTK_HOSTILE_KEEP      keep the scratch folder (its path is printed)
#
# Usage: LOGTK=./logtk LOGTK_SRCDIR=. sh tests/hostile_suite.sh
# Exit status: 0 no unexpected failure, 1 otherwise.

LOGTK=${LOGTK:-./logtk}
LOGTK_SRCDIR=${LOGTK_SRCDIR:-.}
case $LOGTK in /*) ;; *) LOGTK=$(pwd)/$LOGTK ;; esac
case $LOGTK_SRCDIR in /*) ;; *) LOGTK_SRCDIR=$(pwd)/$LOGTK_SRCDIR ;; esac
export LOGTK
size=${LOGTK_HOSTILE_SIZE:-small}
bound_s=${LOGTK_HOSTILE_SECONDS:-10}
bound_mb=${LOGTK_HOSTILE_MB:-1024}
bound_kb=$((bound_mb * 1024))
only=${LOGTK_HOSTILE_ONLY:-*}
# A run is stopped by the kernel after the CPU bound (ulimit -t: exact on a
# loaded machine) and by `timeout` after LOGTK_HOSTILE_WALL seconds of wall
# time (default 10 times the bound), which catches a run blocked without
# using CPU.  A known failure is only watched for a fix: the small run gives
# one that fails at every size 1 s of CPU.
wall_s=${LOGTK_HOSTILE_WALL:-$((10 * bound_s))}
known_cpu=$bound_s
[ "$size" = small ] && known_cpu=1
hostile_dir=$LOGTK_SRCDIR/tests/hostile
sample=$LOGTK_SRCDIR/tests/data/sample.log
known_file=$hostile_dir/known_failures
LC_ALL=C
export LC_ALL

scratch=$(mktemp -d "${TMPDIR:-/tmp}/logtk-hostile.XXXXXX") || exit 1
if [ -n "$LOGTK_HOSTILE_KEEP" ]; then
    echo "# scratch folder: $scratch"
else
    trap 'rm -rf "$scratch"' EXIT
    trap 'exit 1' INT TERM
fi
gen=$scratch/inputs
work=$scratch/work
mkdir -p "$gen" "$work"

# An ASan build reserves terabytes of virtual memory for its shadow, so
# `ulimit -v` would stop it at once: then only the resident set is bounded
# (measured, and ASan's own hard_rss_limit_mb as a backstop); its shadow,
# redzones and quarantine count in the resident set, so it is allowed twice
# the bound.
asan=no
rss_bound_kb=$bound_kb
if ASAN_OPTIONS=help=1 "$LOGTK" --version 2>&1 | grep -q 'AddressSanitizer'; then
    asan=yes
    rss_bound_kb=$((2 * bound_kb))
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=$((2 * bound_mb)):detect_leaks=1
    export ASAN_OPTIONS
fi
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
export UBSAN_OPTIONS
if [ -x /usr/bin/time ]; then
    time_cmd=/usr/bin/time
else
    time_cmd=
fi

echo "# logtk hostile suite: size $size, bounds ${bound_s} s and ${bound_mb} MB per run, ASan: $asan, RSS: ${time_cmd:-not measured (no /usr/bin/time)}"
suite_start=$(date +%s)
sh "$hostile_dir/generate.sh" "$gen" "$size" "$sample" || { echo "FAIL: generate.sh failed"; exit 1; }
cp "$hostile_dir"/*.log "$hostile_dir"/*.csv "$hostile_dir"/*.state "$hostile_dir"/*.model \
    "$hostile_dir"/*.ltk "$gen"/ 2>/dev/null

# A model and a state learned from the valid sample, to apply to the hostile logs.
"$LOGTK" detect train -q --model pca -o "$work/sample.model" "$sample" || exit 1
"$LOGTK" parse -q --save-state "$work/sample.state" -o /dev/null "$sample" || exit 1

passed=0
failed=0
known=0
fixed=0
printf '%-28s %-26s %8s %8s %10s %5s  %s\n' input command cpu_s wall_s max_rss_kb exit verdict

# known_reason INPUT COMMAND: prints the reason listed in known_failures and
# sets $known_size to the sizes it fails at (all, or full only).
known_reason() {
    [ -f "$known_file" ] || return 1
    while read -r k_in k_cmd k_size k_why; do
        case $k_in in ''|'#'*) continue ;; esac
        # shellcheck disable=SC2254
        case $1 in $k_in) ;; *) continue ;; esac
        # shellcheck disable=SC2254
        case $2 in $k_cmd) known_size=$k_size; echo "$k_why"; return 0 ;; esac
    done < "$known_file"
    return 1
}

# run INPUT COMMAND NAMED SHELL-COMMAND: runs SHELL-COMMAND (in $work, stdout
# to $out, stderr to $err) under the bounds and judges it.  NAMED is the
# file a failure message must name.  Sets $rc and $ok (yes when it ran clean
# and succeeded), for the caller's own checks, which report through verdict.
out=$scratch/stdout
err=$scratch/stderr
times=$scratch/times
run() {
    r_in=$1 r_cmd=$2 r_named=$3 r_sh=$4
    ok=no
    rc=skip
    # shellcheck disable=SC2254
    case "$r_in $r_cmd" in $only) ;; *) return 1 ;; esac
    # exec: the time bound then kills logtk itself and its peak RSS is measured
    case $r_sh in *'&&'*) ;; *) r_sh="exec $r_sh" ;; esac
    rm -f "$times"
    # looked up once per run: verdict uses $known_size and $why too
    known_size=none
    known_reason "$r_in" "$r_cmd" > "$scratch/why"
    why=$(cat "$scratch/why")
    # one second more than the bound, so a run that hits it is over the bound;
    # a known failure is stopped at its (short) bound itself
    cpu_limit=$bound_s
    ulimit_t=$((bound_s + 1))
    if [ "$known_size" = all ] || { [ "$known_size" = full ] && [ "$size" = full ]; }; then
        cpu_limit=$known_cpu ulimit_t=$known_cpu
    fi
    start=$(date +%s.%N)
    (
        cd "$work" || exit 125
        [ $asan = no ] && ulimit -v $((bound_kb + 65536)) 2>/dev/null
        ulimit -t $ulimit_t 2>/dev/null
        if [ -n "$time_cmd" ]; then
            exec $time_cmd -f '%U %S %M' -o "$times" timeout -k 2 "$wall_s" sh -c "$r_sh"
        else
            exec timeout -k 2 "$wall_s" sh -c "$r_sh"
        fi
    ) >"$out" 2>"$err" </dev/null
    rc=$?
    end=$(date +%s.%N)
    # one awk for the figures (the harness's own forks are most of a small run):
    # wall seconds, CPU seconds, peak RSS, and whether wall and CPU passed their bounds
    [ -n "$time_cmd" ] && [ -s "$times" ] || echo "- - -" > "$times"
    # shellcheck disable=SC2046
    set -- $(tail -n 1 "$times" | awk -v s="$start" -v e="$end" -v w="$wall_s" -v b="$bound_s" '
        { wall = e - s; cpu = ($1 == "-") ? wall : $1 + $2
          printf "%.2f %.2f %s %d %d", wall, cpu, ($3 == "-" ? "-" : $3), (wall >= w), (cpu > b) }')
    secs=$1 cpu=$2 rss=$3 over_wall=$4 over_cpu=$5
    problem=
    # grep -c and diff answer with status 1 ("no line", "something changed")
    answers=no
    { [ "$r_cmd" = grep-c ] || [ "$r_cmd" = diff ]; } && [ $rc -eq 1 ] && answers=yes
    if [ $rc -ge 124 ]; then
        # timeout gives 124 (or 137 after its -k grace); before the wall bound,
        # a SIGKILL or SIGXCPU is the kernel's CPU limit
        if [ $rc -eq 124 ] || { [ $rc -eq 137 ] && [ "$over_wall" = 1 ]; }; then
            problem="no result within $wall_s s of wall time (status $rc)"
        elif [ $rc -eq 137 ] || [ $rc -eq 152 ]; then
            problem="stopped at the CPU bound of ${cpu_limit} s (status $rc)"
        elif [ $rc -eq 126 ] || [ $rc -eq 127 ]; then
            problem="could not run (status $rc): $(head -n 1 "$err")"
        else
            problem="crashed (status $rc)"
        fi
    elif grep -q -e 'Sanitizer' -e 'runtime error:' "$err"; then
        problem="sanitizer report: $(grep -m 1 -e 'Sanitizer' -e 'runtime error:' "$err")"
    elif [ "$over_cpu" = 1 ]; then
        problem="took $cpu s of CPU, over ${bound_s} s"
    elif [ "$rss" != - ] && [ "$rss" -gt "$rss_bound_kb" ]; then
        problem="peak RSS $rss KB, over $((rss_bound_kb / 1024)) MB"
    elif [ $rc -ne 0 ] && grep -q -i -e 'out of memory' -e 'cannot allocate' "$err"; then
        problem="ran out of memory within ${bound_mb} MB: $(head -n 1 "$err")"
    elif [ $rc -ne 0 ] && [ $answers = no ] && ! [ "$r_cmd" = grep-c ] && [ -n "$r_named" ] && ! grep -q -F -e "$r_named" -e "session '" "$err"; then
        problem="the error does not name $r_named: $(head -n 1 "$err" | cut -c 1-200)"
    elif [ $rc -ne 0 ] && ! [ -s "$err" ] && [ $answers = no ]; then
        problem="status $rc without a message"
    fi
    [ -z "$problem" ] && [ $rc -eq 0 ] && ok=yes
    return 0
}

# verdict: prints the row for the last run, with $problem (empty = pass).
verdict() {
    if [ -z "$problem" ]; then
        if [ "$known_size" = all ] || { [ "$known_size" = full ] && [ "$size" = full ]; }; then
            fixed=$((fixed + 1))
            v="pass (listed as known: drop it from known_failures)"
        else
            passed=$((passed + 1))
            v=pass
        fi
    elif [ "$known_size" != none ]; then
        known=$((known + 1))
        v="known: $problem ($why)"
    else
        failed=$((failed + 1))
        v="FAIL: $problem"
    fi
    printf '%-28s %-26s %8s %8s %10s %5s  %s\n' "$r_in" "$r_cmd" "$cpu" "$secs" "$rss" "$rc" "$v"
    if [ "${v#FAIL}" != "$v" ]; then
        echo "    command: $r_sh"
        head -c 2000 "$err" | head -n 8 | sed 's/^/    stderr: /'
    fi
}

# check_same WANT GOT: sets $problem when the files differ.
check_same() {
    cmp -s "$1" "$2" || problem="${3:-output} differs from the input: $(cmp "$1" "$2" 2>&1 | head -n 1)"
}

# count_lines FILE: lines as logtk counts them (a last line without newline counts).
# (not awk: mawk is quadratic on a 100 MB line)
count_lines() {
    c_n=$(wc -l < "$1")
    [ -s "$1" ] && [ "$(tail -c 1 "$1" | wc -l)" -eq 0 ] && c_n=$((c_n + 1))
    echo $((c_n))
}

# plain_of INPUT: writes the decompressed text to $plain and prints "ok",
# or "damaged" when the reference tool rejects the file.
plain=$scratch/plain
plain_of() {
    case $1 in
        *.gz) gzip -dc < "$1" > "$plain" 2>/dev/null ;;
        *.zst) zstd -dcq < "$1" > "$plain" 2>/dev/null ;;
        *.xz) xz -dc < "$1" > "$plain" 2>/dev/null ;;
        *.bz2) bzip2 -dc < "$1" > "$plain" 2>/dev/null ;;
        *.tar) tar -xOf "$1" > "$plain" 2>/dev/null ;;
        *.zip) unzip -p "$1" > "$plain" 2>/dev/null ;;
        *) cp "$1" "$plain" ;;
    esac && echo ok || echo damaged
}

parsers=$("$LOGTK" parse --list-parsers | cut -f 1)
models="pca invariants logclustering iforest ocsvm novelty lr dtree svm"
format='<Date> <Time> <Level> <Component>: <Content>'

# rows_check FILE HEADER_LINES: the output rows must equal the input lines.
rows_check() {
    [ $ok = yes ] || return 0
    got=$(($(count_lines "$work/$1") - $2))
    [ "$got" -eq "$want_lines" ] || problem="$got rows for $want_lines input lines"
}

# summary_lines_check: the stderr summary "N lines" must equal the input lines.
summary_lines_check() {
    [ $ok = yes ] || return 0
    got=$(sed -n 's/^logtk [a-z ]*: \([0-9]*\) lines.*/\1/p' "$err" | head -n 1)
    [ "$got" = "$want_lines" ] || problem="counted ${got:-no} lines for $want_lines input lines"
}

# line_check: a line over the limit must be reported with its file and line.
line_check() {
    [ -n "$problem" ] || [ -z "$over_line" ] || [ "$rc" -eq 0 ] || grep -q -F -e "$r_named:$over_line:" "$err" ||
        problem="the error does not name line $over_line: $(head -n 1 "$err" | cut -c 1-200)"
}

# damaged_check: a damaged compressed file must not be read as if whole.
damaged_check() {
    [ $ok = yes ] && [ "$state" = damaged ] && problem="succeeded on a damaged file (the reference tool rejects it)"
}

# ---- text logs (compressed or not)
for in in "$gen"/*.log "$gen"/*.log.* /dev/zero; do
    [ -e "$in" ] || continue
    name=$(basename "$in")
    [ "$in" = /dev/zero ] && name=dev_zero
    case $in in
        /dev/zero) state=endless; want_lines=-1 ;;
        *) state=$(plain_of "$in"); want_lines=$(count_lines "$plain") ;;
    esac
    # the line the reader must stop at (longer than the 1 MiB limit)
    case $name in
        line_over_limit.log) over_line=2 ;;
        zero_bytes.log|zero_bomb.log.gz|dev_zero) over_line=1 ;;
        *) over_line= ;;
    esac
    # The small run (make check) sends a damaged file, which the reader stops
    # at the same byte whatever reads it, through one parser and one model.
    # It also leaves out the supervised models (LR, decision tree, SVM): a raw
    # log has no labels, so they stop where the others start training.
    these_parsers=$parsers these_models=$models
    if [ "$size" = small ]; then
        these_models="pca invariants logclustering iforest ocsvm novelty"
        [ "$state" = damaged ] && these_parsers=fuse these_models=pca
    fi
    for p in $these_parsers; do
        run "$name" "parse-$p" "$in" "\"\$LOGTK\" parse -q --binary --parser $p -o rows.tsv '$in'" || continue
        rows_check rows.tsv 1; line_check; damaged_check; verdict
    done
    if run "$name" parse-refuse-binary "$in" "\"\$LOGTK\" parse -q -o rows.tsv '$in'"; then
        rows_check rows.tsv 1; line_check; damaged_check; verdict
    fi
    if run "$name" parse-format "$in" "\"\$LOGTK\" parse -q --binary --format '$format' -o rows.tsv '$in'"; then
        rows_check rows.tsv 1; line_check; damaged_check; verdict
    fi
    if run "$name" parse-masks "$in" "\"\$LOGTK\" parse -q --binary --mask-file '$hostile_dir/catastrophic.masks' -o rows.tsv '$in'"; then
        rows_check rows.tsv 1; line_check; damaged_check; verdict
    fi
    if run "$name" parse-stream-jsonl "$in" "\"\$LOGTK\" parse -q --binary --stream --output jsonl -o rows.jsonl '$in'"; then
        rows_check rows.jsonl 0; line_check; damaged_check; verdict
    fi
    if run "$name" parse-csv "$in" "\"\$LOGTK\" parse -q --binary --output csv --templates t.tsv -o rows.csv '$in'"; then
        rows_check rows.csv 1; line_check; damaged_check; verdict
    fi
    if run "$name" parse-load-state "$in" "\"\$LOGTK\" parse -q --binary --load-state '$work/sample.state' -o rows.tsv '$in'"; then
        rows_check rows.tsv 1; line_check; damaged_check; verdict
    fi
    rm -f "$work/in.state"
    if run "$name" parse-save-state "$in" "\"\$LOGTK\" parse -q --binary --save-state in.state -o /dev/null '$in'"; then
        line_check; damaged_check; verdict
    fi
    if [ -f "$work/in.state" ] && run "$name" merge in.state "\"\$LOGTK\" merge -q -o merged.state --templates t.tsv in.state '$work/sample.state' in.state"; then
        verdict
    fi
    if run "$name" bench-parse "$in" "\"\$LOGTK\" bench parse -q --input '$in' --format '<Content>'"; then
        if [ $ok = yes ]; then
            got=$(awk -F '\t' 'NR == 2 { print $3 }' "$out")
            [ "$got" = "$want_lines" ] || problem="bench parse counted ${got:-no} lines for $want_lines"
        fi
        line_check; damaged_check; verdict
    fi
    # detect reads raw logs without --binary: a refusal must name the file.
    if run "$name" detect-sessions "$in" "\"\$LOGTK\" detect sessions -o sessions.csv '$in'"; then
        summary_lines_check; line_check; damaged_check; verdict
    fi
    for m in $these_models; do
        if run "$name" "detect-train-$m" "$in" "\"\$LOGTK\" detect train --model $m -o in.model '$in'"; then
            summary_lines_check; line_check; damaged_check; verdict
        fi
    done
    if run "$name" detect-predict "$in" "\"\$LOGTK\" detect predict '$work/sample.model' '$in'"; then
        summary_lines_check; line_check; damaged_check; verdict
    fi
    if run "$name" detect-watch "$in" "\"\$LOGTK\" detect watch -q --alert-new --rare-count 2 --ngram 3 --bucket 10 --warmup 10 '$work/sample.model' '$in'"; then
        line_check; damaged_check; verdict
    fi
    # diff against the sample: status 1 (a significant change) is an answer
    if run "$name" diff "$in" "\"\$LOGTK\" diff -q --binary --output jsonl -o diff.jsonl '$sample' '$in'"; then
        damaged_check; verdict
    fi
    if run "$name" report "$in" "\"\$LOGTK\" report -q -o page.html '$in'"; then
        damaged_check; verdict
    fi
    # An endless stream cannot be compressed in bounded time (as gzip < /dev/zero).
    [ "$in" = /dev/zero ] && continue
    for c in plain format; do
        rm -f "$work/in.ltk"
        opt=; [ $c = format ] && opt="--format '$format'"
        sfx=; [ $c = format ] && sfx=-format
        run "$name" "compress$sfx" "$in" "\"\$LOGTK\" compress -q $opt -o in.ltk '$in'" && verdict
        [ -f "$work/in.ltk" ] || continue
        if run "$name" "decompress$sfx" in.ltk "\"\$LOGTK\" decompress -T 2 -o out in.ltk"; then
            [ $ok = yes ] && check_same "$in" "$work/out" decompress; verdict
        fi
        [ $c = format ] && continue
        if run "$name" cat in.ltk "\"\$LOGTK\" cat in.ltk --lines 2- -o out"; then
            if [ $ok = yes ]; then
                tail -n +2 "$in" > "$scratch/tail"
                check_same "$scratch/tail" "$work/out" cat
            fi
            verdict
        fi
        run "$name" info in.ltk "\"\$LOGTK\" info in.ltk" && verdict
        patterns="INFO a"
        [ "$size" = small ] && patterns=a
        for pat in $patterns; do
            if run "$name" grep-c in.ltk "\"\$LOGTK\" grep -c -F $pat in.ltk"; then
                if [ $rc -le 1 ] && [ -z "$problem" ]; then
                    want=$(grep -a -c -F $pat "$in")
                    got=$(cat "$out")
                    [ "$got" = "$want" ] || problem="grep -c -F $pat: $got, grep says $want"
                fi
                verdict
            fi
        done
    done
done

# ---- session and structured CSV
for in in "$gen"/*.csv; do
    [ -e "$in" ] || continue
    name=$(basename "$in")
    run "$name" detect-sessions "$in" "\"\$LOGTK\" detect sessions -o sessions.csv '$in'" && verdict
    for m in $models; do
        run "$name" "detect-train-$m" "$in" "\"\$LOGTK\" detect train --model $m -o in.model '$in'" && verdict
    done
    run "$name" detect-predict "$in" "\"\$LOGTK\" detect predict '$work/sample.model' '$in'" && verdict
    run "$name" detect-eval-novelty "$in" "\"\$LOGTK\" detect eval -q --model novelty '$in'" && verdict
    mkdir -p "$work/anomaly/hdfs100k"
    cp "$in" "$work/anomaly/hdfs100k/HDFS_100k_sessions.csv"
    run "$name" bench-detect HDFS_100k_sessions.csv "\"\$LOGTK\" bench detect -q --anomaly anomaly --model novelty --model pca --scale 1000" &&
        verdict
    if run "$name" parse-fuse "$in" "\"\$LOGTK\" parse -q --binary -o rows.tsv '$in'"; then
        want_lines=$(count_lines "$in"); rows_check rows.tsv 1; verdict
    fi
done

# ---- archives (and /dev/zero read as one)
for in in "$gen"/*.ltk /dev/zero; do
    [ -e "$in" ] || continue
    name=$(basename "$in")
    [ "$in" = /dev/zero ] && name=dev_zero
    run "$name" decompress "$in" "\"\$LOGTK\" decompress -o out '$in'" && verdict
    run "$name" decompress-T4 "$in" "\"\$LOGTK\" decompress -T 4 -o out '$in'" && verdict
    run "$name" decompress-stdin "" "\"\$LOGTK\" decompress -o out < '$in'" && verdict
    run "$name" info "$in" "\"\$LOGTK\" info '$in'" && verdict
    run "$name" grep-c "$in" "\"\$LOGTK\" grep -c -E 'a|b' '$in'" && verdict
    run "$name" cat "$in" "\"\$LOGTK\" cat '$in' --lines 2-3" && verdict
done

# ---- parser states and detector models (and /dev/zero read as one)
for in in "$gen"/*.state /dev/zero; do
    [ -e "$in" ] || continue
    name=$(basename "$in")
    [ "$in" = /dev/zero ] && name=dev_zero
    run "$name" merge-as-state "$in" "\"\$LOGTK\" merge -q --templates - '$work/sample.state' '$in'" && verdict
    run "$name" load-as-state "$in" "\"\$LOGTK\" parse -q --load-state '$in' -o rows.tsv '$sample'" && verdict
done
for in in "$gen"/*.model /dev/zero; do
    [ -e "$in" ] || continue
    name=$(basename "$in")
    [ "$in" = /dev/zero ] && name=dev_zero
    run "$name" predict-as-model "$in" "\"\$LOGTK\" detect predict '$in' '$sample'" && verdict
    run "$name" watch-as-model "$in" "\"\$LOGTK\" detect watch -q '$in' '$sample'" && verdict
done

# ---- hostile option values: NAME<TAB>ARGS (evaluated by sh: $SAMPLE, $GEN
# and $HOSTILE name the sample log, the generated inputs and tests/hostile).
if [ -f "$hostile_dir/options" ]; then
    SAMPLE=$sample GEN=$gen HOSTILE=$hostile_dir
    export SAMPLE GEN HOSTILE
    tab=$(printf '\t')
    while IFS=$tab read -r o_name o_args; do
        case $o_name in ''|'#'*) continue ;; esac
        # the message must name the option or file it is about: the first word
        # of the name up to '=' (an option) is checked by hand below instead
        run options "$o_name" "" "\"\$LOGTK\" $o_args" || continue
        verdict
    done < "$hostile_dir/options"
fi

echo "# $passed passed, $failed failed, $known known failures, $fixed listed as known but passing ($(($(date +%s) - suite_start)) s)"
[ $failed -eq 0 ]
