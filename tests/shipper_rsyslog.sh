#!/bin/sh
# rsyslog end to end: imfile -> omprog (confirmMessages="on") -> logtk compress
# --append --confirm, with a SIGHUP to rsyslogd (passed on to the child:
# hup.signal) and a kill -9 of the child in the middle of the stream
# (rsyslog restarts it).  Afterwards every input line must be in the archive,
# in order; a line may be there twice only if the kill came after it was
# stored and before it was confirmed (at most one line per kill), never
# after the SIGHUP.  The counts are printed.  The daemon runs on files in a
# temporary folder with a private config: no system socket, /etc or /var/log
# is touched.  The config is the one logtk-shippers(7) shows under OMPROG.
# Skips (77) without rsyslogd.
set -u
LOGTK=${LOGTK:-./logtk}
case $LOGTK in /*) ;; *) LOGTK=$(pwd)/$LOGTK ;; esac
RSYSLOGD=${RSYSLOGD:-$(command -v rsyslogd || echo /usr/sbin/rsyslogd)}
[ -x "$RSYSLOGD" ] || { echo "SKIP: rsyslogd not installed"; exit 77; }
PY=/usr/bin/python3
[ -x $PY ] || PY=python3

T=$(mktemp -d /tmp/logtk-rsyslog.XXXXXX)
RSPID=
cleanup() {
    [ -n "$RSPID" ] && kill "$RSPID" 2>/dev/null
    [ -n "$RSPID" ] && { for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$RSPID" 2>/dev/null || break; sleep 0.2; done; kill -9 "$RSPID" 2>/dev/null; }
    [ -n "${WRITER:-}" ] && kill "$WRITER" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
mkdir "$T/work"
: > "$T/in.log"

# the recipe of logtk-shippers(7), OMPROG, with this test's paths
cat > "$T/rsyslog.conf" <<EOF
global(workDirectory="$T/work" processInternalMessages="on")
module(load="imfile")
module(load="omprog")
template(name="line" type="string" string="%msg%\n")
input(type="imfile" file="$T/in.log" tag="app:" ruleset="archive")
# rsyslogd's own messages (start, HUP, the action's suspensions) stay here,
# not in the machine's system log, which another daemon may own
syslog.* action(type="omfile" file="$T/rsyslogd.internal")
ruleset(name="archive") {
    action(type="omprog" name="logtk"
           binary="$LOGTK compress --append --confirm --quiet -o $T/app.ltk"
           template="line" confirmMessages="on" hup.signal="HUP"
           action.resumeInterval="1" action.resumeRetryCount="-1")
}
EOF

"$RSYSLOGD" -n -f "$T/rsyslog.conf" -i "$T/rsyslogd.pid" > "$T/rsyslogd.out" 2>&1 &
RSPID=$!

# archive lines so far (0 while it does not exist yet)
archived() {
    [ -f "$T/app.ltk" ] || { echo 0; return; }
    "$LOGTK" decompress "$T/app.ltk" 2>/dev/null | wc -l
}
wait_for() { # N SECONDS: until the archive holds N lines or more
    i=0
    while [ "$(archived)" -lt "$1" ] && [ $i -lt $(($2 * 10)) ]; do sleep 0.1; i=$((i + 1)); done
}
children_of() { # PID: its child processes (from /proc: no procps needed)
    for d in /proc/[0-9]*; do
        [ "$(sed -n 's/^PPid:[[:space:]]*//p' "$d/status" 2>/dev/null)" = "$1" ] && echo "${d#/proc/}"
    done
}
child() { # the logtk child of rsyslogd
    for p in $(children_of "$RSPID"); do
        tr '\0' ' ' < /proc/$p/cmdline 2>/dev/null | grep -q "compress --append" && { echo $p; return; }
    done
}
emit() { # FROM TO: append input lines
    $PY -c "
import sys
with open(sys.argv[1], 'a') as f:
    for i in range(int(sys.argv[2]), int(sys.argv[3]) + 1):
        f.write('081109 2%05d 35 INFO dfs.DataNode: Receiving block blk_%d src: /10.250.19.102:%d\n' % (i % 100000, i * 7919, 50000 + i % 1000))
" "$T/in.log" "$1" "$2"
}

fail() { echo "FAIL: $*"; cat "$T/rsyslogd.out" "$T/rsyslogd.internal" 2>/dev/null; exit 1; }

emit 1 1000
wait_for 1000 20
[ "$(archived)" -ge 1000 ] || fail "first 1000 lines not archived ($(archived))"
C1=$(child)
[ -n "$C1" ] || fail "no logtk child"

# log rotation: the archive is renamed, then SIGHUP to rsyslogd, which omprog
# passes on (hup.signal): logtk closes the renamed archive and starts a new one
mv "$T/app.ltk" "$T/app.ltk.1"
kill -HUP "$RSPID"
emit 1001 2000
wait_for 1000 20
[ "$(child)" = "$C1" ] || fail "the child did not survive SIGHUP"
"$LOGTK" decompress "$T/app.ltk.1" > "$T/rotated.log" || fail "the rotated archive is not whole"
ROTATED=$(wc -l < "$T/rotated.log")
[ "$ROTATED" -ge 1000 ] || fail "the rotated archive lost lines"
wait_for $((2000 - ROTATED)) 20

# kill -9 of the child while lines keep coming
emit 2001 2500
sleep 0.3
kill -9 "$C1"
emit 2501 4000
wait_for $((4000 - ROTATED)) 40
C2=$(child)
[ -n "$C2" ] && [ "$C2" != "$C1" ] || fail "rsyslog did not restart the child"

kill "$RSPID"
for i in $(seq 50); do kill -0 "$RSPID" 2>/dev/null || break; sleep 0.2; done
RSPID=

cp "$T/rotated.log" "$T/out.log"
"$LOGTK" decompress "$T/app.ltk" >> "$T/out.log" || fail "the archive does not decompress cleanly"
$PY - "$T/in.log" "$T/out.log" "$ROTATED" <<'EOF' || fail "lines lost or out of order"
import sys
src = open(sys.argv[1]).read().splitlines()
out = open(sys.argv[2]).read().splitlines()
rotated = int(sys.argv[3])
pos = {line: i for i, line in enumerate(src)}
seen, dup, order_ok, last = set(), [], True, -1
for line in out:
    if line not in pos:
        print("unknown line in archive:", line); sys.exit(1)
    if line in seen:
        dup.append(pos[line])
    else:
        if pos[line] < last: order_ok = False
        last = pos[line]
        seen.add(line)
lost = len(src) - len(seen)
dup_before_kill = [d for d in dup if d < 2000]
print("rsyslog omprog -> logtk compress --append --confirm: input %d lines, archived %d, "
      "lost %d, duplicated %d (%d of them before the kill -9), in order: %s; %d lines in the "
      "archive rotated by the SIGHUP"
      % (len(src), len(out), lost, len(dup), len(dup_before_kill), order_ok, rotated))
# at-least-once: nothing lost, order kept; the kill -9 may repeat only the line
# stored but not yet confirmed; the SIGHUP repeats nothing
sys.exit(0 if lost == 0 and order_ok and len(dup) <= 1 and not dup_before_kill else 1)
EOF
exit 0
