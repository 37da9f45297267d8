#!/bin/sh
# Builds examples/ against an INSTALLED liblogtk, the way an embedder does:
# `make install DESTDIR=tmp`, then the examples compiled with that tree's
# pkg-config file only (no -I or -L into the build tree), linked shared and
# fully static (pkg-config --static, -static), and run.  The serial shipper
# must write exactly what `logtk parse --stream --output jsonl` writes, and
# the threaded one the same bytes with 1 and 3 threads.
#
# Needs: LOGTK_BUILDDIR (the configured build tree), LOGTK_SRCDIR, LOGTK (the
# built logtk), and CC / CFLAGS / LDFLAGS as the library was built with
# (Makefile.am passes them).  A sanitizer build is only linked shared:
# ASan does not link statically.
set -u
: "${LOGTK_BUILDDIR:?}" "${LOGTK_SRCDIR:?}" "${LOGTK:?}"
CC=${LOGTK_CC:-cc}
CFLAGS=${LOGTK_CFLAGS:-}
LDFLAGS=${LOGTK_LDFLAGS:-}
command -v pkg-config >/dev/null 2>&1 || { echo "skipped: no pkg-config"; exit 77; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/logtk-examples.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
check() {
    if [ "$1" = ok ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $2"; fi
}

# Install into tmp/root.  The make that runs this test must not hand its
# jobserver to this one.
(unset MAKEFLAGS MFLAGS MAKELEVEL; cd "$LOGTK_BUILDDIR" &&
    ${MAKE:-make} install DESTDIR="$tmp/root" >"$tmp/install.log" 2>&1)
if [ $? -ne 0 ]; then
    cat "$tmp/install.log"
    echo "FAIL: make install DESTDIR=$tmp/root"
    echo "0 passed, 1 failed"
    exit 1
fi
pc=$(find "$tmp/root" -name logtk.pc | head -n 1)
[ -n "$pc" ] && r=ok || r=no; check $r "logtk.pc installed"
[ -n "$pc" ] || { echo "$passed passed, $failed failed"; exit 1; }
# one man(3) page per API group, installed, each with its group's calls
man3=$(find "$tmp/root" -type d -name man3 | head -n 1)
for page in reader:logtk_reader_next format:logtk_format_match parser:logtk_parser_match \
    sinks:logtk_sink_new_callback detector:logtk_detector_train archive:logtk_archive_reader_next; do
    f="$man3/logtk_${page%%:*}.3"
    [ -f "$f" ] && grep -q "^int ${page#*:}(" "$f" && r=ok || r=no
    check $r "man page logtk_${page%%:*}(3) installed, declaring ${page#*:}"
done
# The installed logtk.pc names the configured prefix; point it at tmp/root.
prefix=$(sed -n 's/^prefix=//p' "$pc")
mkdir -p "$tmp/pc"
sed "s|^prefix=.*|prefix=$tmp/root$prefix|" "$pc" > "$tmp/pc/logtk.pc"
libdir=$(PKG_CONFIG_PATH="$tmp/pc" pkg-config --variable=libdir logtk)
grep -q '^Requires.private:.*libarchive' "$tmp/pc/logtk.pc" && r=ok || r=no
check $r "logtk.pc names its dependencies in Requires.private"

cflags=$(PKG_CONFIG_PATH="$tmp/pc" pkg-config --cflags logtk)
libs=$(PKG_CONFIG_PATH="$tmp/pc" pkg-config --libs logtk)
static_libs=$(PKG_CONFIG_PATH="$tmp/pc" pkg-config --static --libs logtk)
# a build without shared libraries (--disable-shared, as CI's sanitizer
# build) installs liblogtk.a only: its users link it with the static flags
ls "$libdir"/liblogtk.so* >/dev/null 2>&1 || libs=$static_libs
case "$CFLAGS $LDFLAGS" in *-fsanitize*) sanitized=1 ;; *) sanitized=0 ;; esac

sample="$LOGTK_SRCDIR/tests/data/sample.log"
fmt='<Date> <Time> <Level> <Component>: <Content>'
"$LOGTK" parse --stream --format "$fmt" --output jsonl "$sample" > "$tmp/want.jsonl" 2>"$tmp/err" ||
    { cat "$tmp/err"; check no "logtk parse --stream on the sample"; }

build_and_run() { # $1 variant name, rest: link flags
    variant=$1
    shift
    for prog in shipper shipper_threads; do
        if ! $CC $CFLAGS $cflags -o "$tmp/$prog-$variant" "$LOGTK_SRCDIR/examples/$prog.c" \
            $LDFLAGS "$@" -lpthread >"$tmp/cc.log" 2>&1; then
            if [ "$variant" = static ] && grep -q 'cannot find -l' "$tmp/cc.log"; then
                # a static library of a dependency is not installed (CI installs
                # them all: liblz4-dev and libacl1-dev hold libarchive's)
                echo "static link skipped: $(grep -o 'cannot find -l[^: ]*' "$tmp/cc.log" | sort -u | tr '\n' ' ')"
                static_skipped=1
                return
            fi
            cat "$tmp/cc.log"
            check no "$prog ($variant) builds against the installed library"
            return
        fi
        check ok "$prog ($variant) builds"
    done
    LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        "$tmp/shipper-$variant" --format "$fmt" < "$sample" > "$tmp/got.jsonl" 2>"$tmp/err"
    cmp -s "$tmp/got.jsonl" "$tmp/want.jsonl" && r=ok || { r=no; cat "$tmp/err"; }
    check $r "shipper ($variant) writes what logtk parse --stream --output jsonl writes"
    for t in 1 3; do
        LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
            "$tmp/shipper_threads-$variant" --threads $t --shard-lines 7 --format "$fmt" \
            < "$sample" > "$tmp/threads$t.jsonl" 2>"$tmp/err" || { cat "$tmp/err"; check no "shipper_threads $t"; }
    done
    lines=$(wc -l < "$tmp/threads1.jsonl")
    [ "$lines" -gt 0 ] && cmp -s "$tmp/threads1.jsonl" "$tmp/threads3.jsonl" && r=ok || r=no
    check $r "shipper_threads ($variant): 3 threads write the serial run's $lines rows"
}

# the check programs make check built in the tree (against liblogtk.la)
for prog in shipper shipper_threads; do
    [ -x "$LOGTK_BUILDDIR/examples/$prog" ] && r=ok || r=no
    check $r "make check built examples/$prog"
done
"$LOGTK_BUILDDIR/examples/shipper" --format "$fmt" < "$sample" > "$tmp/got.jsonl" 2>"$tmp/err"
cmp -s "$tmp/got.jsonl" "$tmp/want.jsonl" && r=ok || { r=no; cat "$tmp/err"; }
check $r "examples/shipper (in the tree) writes what logtk parse --stream writes"

build_and_run shared $libs
if [ "$sanitized" = 0 ]; then
    static_skipped=0
    build_and_run static -static $static_libs
    if [ "$static_skipped" = 0 ]; then
        # a static binary needs no liblogtk.so at run time
        ldd "$tmp/shipper-static" 2>&1 | grep -q 'liblogtk' && r=no || r=ok
        check $r "the static shipper does not load liblogtk.so"
    fi
else
    echo "static link skipped: sanitizer build"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
