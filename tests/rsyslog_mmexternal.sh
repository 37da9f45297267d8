#!/bin/sh
# rsyslog_mmexternal.sh - logtk inside rsyslog, with the real daemon:
#  - imfile -> mmexternal(`logtk parse --reply rsyslog`) -> omfile, once with
#    interface.input="msg" and once with "fulljson", each on its own copy of
#    the log.  Every output line must carry, in order, the EventId,
#    EventTemplate, ParameterList and NewTemplate that `logtk parse --stream`
#    gives the same line when run directly;
#  - imfile -> re_extract (the header off) -> mmnormalize with the rulebase of
#    `logtk parse --export lognorm` -> omfile: every line must get the tag of
#    its batch EventId.
#
# rsyslogd runs in the foreground on a private configuration: imfile input
# only (no imuxsock, no imklog), its work directory, pid file and every file
# in a temporary folder, stopped on exit.  The log is HDFS_2k from
# $LOGTK_LOGHUB, or tests/data/sample.log when that is not set.
# Exit 77 (skip) when rsyslogd or its imfile/mmexternal modules are missing.
set -u
LOGTK=${LOGTK:-./logtk}
LOGTK_SRCDIR=${LOGTK_SRCDIR:-.}
case $LOGTK in /*) ;; *) LOGTK=$(pwd)/$LOGTK ;; esac
case $LOGTK_SRCDIR in /*) ;; *) LOGTK_SRCDIR=$(pwd)/$LOGTK_SRCDIR ;; esac
RSYSLOGD=$(command -v rsyslogd 2>/dev/null || { [ -x /usr/sbin/rsyslogd ] && echo /usr/sbin/rsyslogd; })
if [ -z "$RSYSLOGD" ]; then
    echo "SKIP: rsyslogd is not installed (Debian package rsyslog)"
    exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/logtk-rsyslog.XXXXXX") || exit 1
cleanup() {
    [ -f "$work/pid" ] && kill "$(cat "$work/pid")" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
mkdir "$work/state"

# header: a regex whose group 1 is the content, as the log format splits it
if [ -n "${LOGTK_LOGHUB:-}" ] && [ -f "$LOGTK_LOGHUB/HDFS/HDFS_2k.log" ]; then
    log=$LOGTK_LOGHUB/HDFS/HDFS_2k.log
    preset="--dataset HDFS"
    header='^[0-9]+ [0-9]+ [0-9]+ [A-Z]+ [^:]+: ([^\r]*)'
else
    log=$LOGTK_SRCDIR/tests/data/sample.log
    preset="--format '<Date> <Time> <Level> <Component>: <Content>'"
    header='^[^ ]+ [^ ]+ [^ ]+ [^:]+: ([^\r]*)'
fi
cp "$log" "$work/msg.log"
cp "$log" "$work/fulljson.log"
cp "$log" "$work/normalize.log"
eval "\"\$LOGTK\" parse -q $preset --export lognorm \"\$work/rules.rb\" -o \"\$work/batch.tsv\" \"\$log\"" || {
    echo "FAIL: logtk parse --export lognorm"; echo "0 passed, 1 failed"; exit 1; }
lines=$(wc -l < "$log")

# The configuration of logtk-shippers(7), MMEXTERNAL (paths made absolute).
# rsyslog splits `binary` at blanks, quotes and all: a format with blanks
# goes through a small wrapper script.
cat > "$work/logtk-reply.sh" <<EOF
#!/bin/sh
exec "$LOGTK" parse --reply rsyslog $preset "\$@"
EOF
chmod +x "$work/logtk-reply.sh"
cat > "$work/rsyslog.conf" <<EOF
global(workDirectory="$work/state" processInternalMessages="on")
# rsyslogd's own messages stay here, not in the machine's system log
syslog.* action(type="omfile" file="$work/rsyslogd.internal")
module(load="imfile")
module(load="mmexternal")
template(name="logtk_json" type="string" string="%\$!logtk%\n")
template(name="logtk_cols" type="string"
         string="%\$!logtk!EventId%\t%\$!logtk!EventTemplate%\t%\$!logtk!ParameterList%\t%\$!logtk!NewTemplate%\n")
input(type="imfile" file="$work/msg.log" tag="app" ruleset="logtk_msg")
input(type="imfile" file="$work/fulljson.log" tag="app" ruleset="logtk_fulljson")
input(type="imfile" file="$work/normalize.log" tag="app" ruleset="logtk_rules")
ruleset(name="logtk_msg") {
  action(type="mmexternal" binary="$work/logtk-reply.sh" forceSingleInstance="on")
  action(type="omfile" file="$work/msg.json" template="logtk_json")
  action(type="omfile" file="$work/msg.tsv" template="logtk_cols")
}
ruleset(name="logtk_fulljson") {
  action(type="mmexternal" binary="$work/logtk-reply.sh --reply-input fulljson"
         interface.input="fulljson" forceSingleInstance="on")
  action(type="omfile" file="$work/fulljson.tsv" template="logtk_cols")
}
module(load="mmnormalize")
template(name="logtk_tag" type="string" string="%\$!event.tags%\t%\$!logtk_key%\n")
ruleset(name="logtk_rules") {
  # the content, as logtk's format splits it (a line it does not match is all
  # content); imfile keeps the CR of a CRLF line, logtk does not
  if re_match(\$msg, '$header') then {
    set \$!content = re_extract(\$msg, '$header', 0, 1, '');
  } else {
    set \$!content = re_extract(\$msg, '^([^\\r]*)', 0, 1, '');
  }
  action(type="mmnormalize" ruleBase="$work/rules.rb" variable="\$!content")
  action(type="omfile" file="$work/normalize.tsv" template="logtk_tag")
}
EOF
"$RSYSLOGD" -N1 -f "$work/rsyslog.conf" > "$work/check.log" 2>&1 || {
    if grep -q "could not load module" "$work/check.log"; then
        echo "SKIP: rsyslog lacks imfile or mmexternal:"; cat "$work/check.log"; exit 77
    fi
    echo "rsyslogd refused the configuration:"; cat "$work/check.log"
    echo "0 passed, 1 failed"; exit 1
}

"$RSYSLOGD" -n -f "$work/rsyslog.conf" -i "$work/pid" > "$work/rsyslogd.log" 2>&1 &
daemon=$!
count() { if [ -f "$1" ]; then wc -l < "$1"; else echo 0; fi; }
i=0
while [ $i -lt 300 ]; do # 30 s at most
    [ "$(count "$work/msg.tsv")" -ge "$lines" ] && [ "$(count "$work/fulljson.tsv")" -ge "$lines" ] &&
        [ "$(count "$work/msg.json")" -ge "$lines" ] &&
        [ "$(count "$work/normalize.tsv")" -ge "$lines" ] && break
    kill -0 $daemon 2>/dev/null || break
    sleep 0.1
    i=$((i + 1))
done
kill $daemon 2>/dev/null
wait $daemon 2>/dev/null
rm -f "$work/pid"

# What logtk says when run directly: EventId, EventTemplate, ParameterList of
# --stream rows, NewTemplate = the id's first row; rsyslog writes arrays as
# [ "a", "b" ] and escapes '/'.
eval "\"\$LOGTK\" parse -q --stream $preset \"\$log\"" |
    awk -F '\t' 'NR > 1 {
        p = $NF; gsub(/","/, "\", \"", p); sub(/^\[/, "[ ", p); sub(/\]$/, " ]", p)
        if (p == "[  ]") p = "[ ]"
        print $(NF - 2) "\t" $(NF - 1) "\t" p "\t" (seen[$(NF - 2)]++ ? "false" : "true") }' \
    > "$work/expected.tsv"

passed=0 failed=0
for kind in msg fulljson; do
    sed 's|\\/|/|g' "$work/$kind.tsv" 2>/dev/null > "$work/$kind.got" || : > "$work/$kind.got"
    if [ "$(count "$work/$kind.got")" = "$lines" ] && cmp -s "$work/expected.tsv" "$work/$kind.got"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: interface.input=$kind: $(count "$work/$kind.got") of $lines lines, or they differ from logtk parse --stream:"
        diff "$work/expected.tsv" "$work/$kind.got" | head -n 10
        cat "$work/rsyslogd.log" "$work/rsyslogd.internal" 2>/dev/null
    fi
done
# mmnormalize: each line's rule tag is its batch EventId
awk -F '\t' 'NR > 1 { print "[ \"" $(NF - 2) "\" ]" }' "$work/batch.tsv" > "$work/tags.expected"
cut -f 1 "$work/normalize.tsv" 2>/dev/null > "$work/tags.got"
if [ "$(count "$work/tags.got")" = "$lines" ] && cmp -s "$work/tags.expected" "$work/tags.got"; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
    echo "FAIL: mmnormalize with the exported rulebase: $(count "$work/tags.got") of $lines lines, or tags differ from logtk's EventId:"
    diff "$work/tags.expected" "$work/tags.got" | head -n 10
fi
# the JSON template: one object per line, $!logtk as logtk wrote it
if [ "$(count "$work/msg.json")" = "$lines" ] &&
    [ "$(grep -c '^{ "EventId": "E[0-9]*", "EventKey": "[0-9a-f]\{16\}", "EventTemplate": ' "$work/msg.json")" = "$lines" ]; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
    echo "FAIL: the JSON template's lines are not all \$!logtk objects:"
    head -n 3 "$work/msg.json" 2>/dev/null
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
