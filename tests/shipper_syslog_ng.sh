#!/bin/sh
# syslog-ng end to end: file() source -> program() destination -> logtk
# compress --append, with a reload of syslog-ng (SIGHUP: syslog-ng stops the
# program with SIGTERM and starts it again; logtk commits and the new child
# appends), a SIGHUP to the child after renaming its archive (rotation) and a
# kill -9 of the child (syslog-ng starts it again).  Afterwards every input
# line must be in the archives exactly once, in order.  program() has no
# delivery confirmation: a kill -9 loses the lines in logtk's memory and in
# the pipe, so it comes here once the stream has been quiet for the flush
# interval (everything committed); logtk-shippers(7) states the bound for a
# kill during a burst.  Counts are printed.  Daemon on files in a temporary
# folder with a private config; skips (77) without syslog-ng (root:
# SYSLOG_NG_ROOT, default /opt/syslog-ng, or one on PATH).
set -u
LOGTK=${LOGTK:-./logtk}
case $LOGTK in /*) ;; *) LOGTK=$(pwd)/$LOGTK ;; esac
ROOT=${SYSLOG_NG_ROOT:-/opt/syslog-ng}
if [ -x "$ROOT/usr/sbin/syslog-ng" ]; then
    SNG="$ROOT/usr/sbin/syslog-ng"
    MODS=$(ls -d "$ROOT"/usr/lib/syslog-ng/3.* 2>/dev/null | head -1)
    export LD_LIBRARY_PATH="$ROOT/usr/lib/syslog-ng${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
elif command -v syslog-ng > /dev/null; then
    SNG=$(command -v syslog-ng)
    MODS=
else
    echo "SKIP: syslog-ng not installed"; exit 77
fi
PY=/usr/bin/python3
[ -x $PY ] || PY=python3

T=$(mktemp -d /tmp/logtk-syslog-ng.XXXXXX)
SPID=
cleanup() {
    [ -n "$SPID" ] && kill "$SPID" 2>/dev/null
    [ -n "$SPID" ] && { for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$SPID" 2>/dev/null || break; sleep 0.2; done; kill -9 "$SPID" 2>/dev/null; }
    rm -rf "$T"
}
trap cleanup EXIT
: > "$T/in.log"

# the recipe of logtk-shippers(7), SYSLOG-NG PROGRAM(), with this test's paths
cat > "$T/syslog-ng.conf" <<EOF
@version: 3.38
options { time-reopen(1); flush-lines(1); };
source s_app { file("$T/in.log" follow-freq(0.2) flags(no-parse)); };
destination d_logtk {
    program("$LOGTK compress --append --flush-interval 0.5 --quiet -o $T/app.ltk"
            template("\${MESSAGE}\n"));
};
log { source(s_app); destination(d_logtk); };
EOF

"$SNG" -F -f "$T/syslog-ng.conf" ${MODS:+--module-path="$MODS"} -R "$T/persist" \
    -p "$T/syslog-ng.pid" -c "$T/ctl" > "$T/syslog-ng.out" 2>&1 &
SPID=$!

archived() { # lines in the archive(s) named
    n=0
    for f in "$@"; do
        [ -f "$f" ] && n=$((n + $("$LOGTK" decompress "$f" 2>/dev/null | wc -l)))
    done
    echo $n
}
wait_for() { # N SECONDS FILE...: until the archives hold N lines or more
    want=$1; secs=$2; shift 2; i=0
    while [ "$(archived "$@")" -lt "$want" ] && [ $i -lt $((secs * 10)) ]; do sleep 0.1; i=$((i + 1)); done
}
children_of() { # PID: its child processes (from /proc: no procps needed)
    for d in /proc/[0-9]*; do
        [ "$(sed -n 's/^PPid:[[:space:]]*//p' "$d/status" 2>/dev/null)" = "$1" ] && echo "${d#/proc/}"
    done
}
child() {
    for p in $(children_of "$SPID"); do
        for q in $(children_of "$p"); do # program() starts it through /bin/sh -c
            tr '\0' ' ' < /proc/$q/cmdline 2>/dev/null | grep -q "compress --append" && { echo $q; return; }
        done
        tr '\0' ' ' < /proc/$p/cmdline 2>/dev/null | grep -q "^[^ ]*logtk compress --append" && { echo $p; return; }
    done
}
emit() {
    $PY -c "
import sys
with open(sys.argv[1], 'a') as f:
    for i in range(int(sys.argv[2]), int(sys.argv[3]) + 1):
        f.write('081109 2%05d 148 INFO dfs.DataNode\$PacketResponder: Received block blk_%d of size %d\n' % (i % 100000, i * 104729, 67108864 - i))
" "$T/in.log" "$1" "$2"
}
fail() { echo "FAIL: $*"; cat "$T/syslog-ng.out"; exit 1; }

emit 1 1000
wait_for 1000 20 "$T/app.ltk"
[ "$(archived "$T/app.ltk")" -ge 1000 ] || fail "first 1000 lines not archived ($(archived "$T/app.ltk"))"
C1=$(child)
[ -n "$C1" ] || fail "no logtk child"

# reload: syslog-ng ends the program (SIGTERM) and starts it again
kill -HUP "$SPID"
sleep 1
emit 1001 2000
wait_for 2000 20 "$T/app.ltk"
C2=$(child)
[ -n "$C2" ] || fail "no logtk child after the reload"

# rotation: rename, SIGHUP to the child
mv "$T/app.ltk" "$T/app.ltk.1"
kill -HUP "$C2"
sleep 0.5
emit 2001 3000
wait_for 3000 20 "$T/app.ltk.1" "$T/app.ltk"
[ "$(child)" = "$C2" ] || fail "the child did not survive SIGHUP"

# kill -9 once the stream is quiet (all committed), then more lines
sleep 1
kill -9 "$C2"
sleep 0.5
emit 3001 4000
wait_for 4000 30 "$T/app.ltk.1" "$T/app.ltk"

kill "$SPID"
for i in $(seq 50); do kill -0 "$SPID" 2>/dev/null || break; sleep 0.2; done
SPID=

"$LOGTK" decompress "$T/app.ltk.1" > "$T/out.log" || fail "the rotated archive does not decompress cleanly"
"$LOGTK" decompress "$T/app.ltk" >> "$T/out.log" || fail "the archive does not decompress cleanly"
$PY - "$T/in.log" "$T/out.log" <<'EOF' || fail "lines lost, repeated or out of order"
import sys
src = open(sys.argv[1]).read().splitlines()
out = open(sys.argv[2]).read().splitlines()
pos = {line: i for i, line in enumerate(src)}
seen, dup, order_ok, last = set(), 0, True, -1
for line in out:
    if line not in pos:
        print("unknown line in archive:", line); sys.exit(1)
    if line in seen:
        dup += 1
        continue
    if pos[line] < last: order_ok = False
    last = pos[line]
    seen.add(line)
lost = len(src) - len(seen)
print("syslog-ng program() -> logtk compress --append: input %d lines, archived %d, lost %d, "
      "duplicated %d, in order: %s (reload, SIGHUP rotation, kill -9 when quiet)"
      % (len(src), len(out), lost, dup, order_ok))
sys.exit(0 if lost == 0 and dup == 0 and order_ok else 1)
EOF
exit 0
