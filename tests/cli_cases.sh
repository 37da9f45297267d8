#!/bin/sh
# cli_cases.sh - run the command-line golden tests in tests/cases.
#
# Each case is a directory tests/cases/NAME/ holding:
#   cmd              the arguments, run as `$LOGTK ARGS` through the shell (so
#                    quoting works and $LOGTK_SRCDIR may be used), in a scratch
#                    copy of the case directory: input files are named relative
#                    to the case directory and output files land in the copy;
#   stdin            optional: fed to the command (default: empty input); `setup`
#                    may create it (e.g. compressed);
#   expected         the exact expected stdout (after `check`'s output, see below);
#   status           optional: the expected exit status (default 0);
#   stderr_contains  optional: each non-empty line must occur in stderr;
#   setup            optional: sh script run first in the scratch copy, e.g. to
#                    make compressed inputs; exit 77 skips the case (tool missing);
#   check            optional: sh script run after the command in the scratch
#                    copy; its stdout is appended to the command's stdout before
#                    the comparison (to look at written files).
# Scripts see $LOGTK, $LOGTK_SRCDIR and $SAMPLE (tests/data/sample.log).
#
# Usage: LOGTK=./logtk LOGTK_SRCDIR=. sh tests/cli_cases.sh [NAME...]
# LOGTK_CASES_UPDATE=1 writes the actual output into `expected` of every case
# whose output differs (for intended changes; review the diff before committing).
# Prints one line per failure with a diff, then "N passed, N failed" (and
# skipped), and exits 0 when nothing failed, 1 otherwise.

LOGTK=${LOGTK:-./logtk}
LOGTK_SRCDIR=${LOGTK_SRCDIR:-.}
case $LOGTK in /*) ;; *) LOGTK=$(pwd)/$LOGTK ;; esac
case $LOGTK_SRCDIR in /*) ;; *) LOGTK_SRCDIR=$(pwd)/$LOGTK_SRCDIR ;; esac
SAMPLE=$LOGTK_SRCDIR/tests/data/sample.log
export LOGTK LOGTK_SRCDIR SAMPLE

cases_dir=$LOGTK_SRCDIR/tests/cases
scratch=$(mktemp -d "${TMPDIR:-/tmp}/logtk-cases.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT INT TERM

passed=0
failed=0
skipped=0

if [ $# -gt 0 ]; then
    names=$*
else
    names=$(cd "$cases_dir" && ls)
fi

for name in $names; do
    case_dir=$cases_dir/$name
    [ -f "$case_dir/cmd" ] || continue
    work=$scratch/$name
    rm -rf "$work"
    cp -R "$case_dir" "$work"
    # our own bookkeeping goes outside the scratch copy
    out=$scratch/$name.out
    err=$scratch/$name.err
    if [ -f "$work/setup" ]; then
        (cd "$work" && sh ./setup) >"$err" 2>&1
        rc=$?
        if [ $rc -eq 77 ]; then
            skipped=$((skipped + 1))
            echo "SKIP: $name ($(tail -n 1 "$err"))"
            continue
        elif [ $rc -ne 0 ]; then
            failed=$((failed + 1))
            echo "FAIL: $name: setup failed"
            cat "$err"
            continue
        fi
    fi
    args=$(cat "$case_dir/cmd")
    if [ -f "$work/stdin" ]; then
        input=$work/stdin
    else
        input=/dev/null
    fi
    (cd "$work" && eval "\"\$LOGTK\" $args") <"$input" >"$out" 2>"$err"
    rc=$?
    if [ -f "$work/check" ]; then
        (cd "$work" && sh ./check) >>"$out" 2>>"$err"
    fi
    want_status=0
    [ -f "$case_dir/status" ] && want_status=$(cat "$case_dir/status")
    problems=
    if [ "$rc" != "$want_status" ]; then
        problems="exit status $rc, expected $want_status"
    fi
    if ! cmp -s "$out" "$case_dir/expected"; then
        if [ -n "$LOGTK_CASES_UPDATE" ]; then
            # accepting an intended change: review `git diff tests/cases` afterwards
            cp "$out" "$case_dir/expected"
            echo "UPDATED: $name"
        else
            problems="$problems${problems:+; }stdout differs"
        fi
    fi
    if [ -f "$case_dir/stderr_contains" ]; then
        while IFS= read -r needle || [ -n "$needle" ]; do
            [ -z "$needle" ] && continue
            if ! grep -F -q -e "$needle" "$err"; then
                problems="$problems${problems:+; }stderr lacks '$needle'"
            fi
        done <"$case_dir/stderr_contains"
    fi
    if [ -z "$problems" ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: $name: $problems"
        echo "  command: logtk $args"
        diff -u "$case_dir/expected" "$out" | head -n 40 | sed 's/^/  /'
        echo "  stderr:"
        head -n 20 "$err" | sed 's/^/  /'
    fi
done

if [ $skipped -gt 0 ]; then
    echo "$passed passed, $failed failed ($skipped skipped)"
else
    echo "$passed passed, $failed failed"
fi
[ $failed -eq 0 ]
