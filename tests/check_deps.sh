#!/bin/sh
# The dependency rules between folders (doc/DESIGN.md, "Folders and who may use
# whom"), checked on the source and on the built objects:
#  - an #include "x.h" may name only a header of the folder itself or of a folder
#    it may use, and an #include <lib.h> only a library the folder may use;
#  - an object may call (have undefined) only symbols defined in its own folder
#    or in a folder it may use; cli/ may call only what include/logtk.h declares;
#  - a global symbol of the library is logtk_ if include/logtk.h declares it and
#    ltk_ otherwise.
# Prints every forbidden edge as FILE: uses FOLDER (NAME) and exits 1 if any.
#
# usage: tests/check_deps.sh SRCDIR BUILDDIR
set -u
src=${1:-.}
build=${2:-.}

# Who may use whom; a folder may always use itself and include/logtk.h (cli/
# may include its own cli.h, but call only what logtk.h declares).
allowed_folders() {
    case $1 in
    core) echo "" ;;
    parsers) echo "core" ;;
    compress) echo "core parsers" ;;
    detect) echo "core" ;;
    datasets) echo "core parsers" ;;
    cli) echo "" ;;
    esac
}
allowed_libs() {
    case $1 in
    core) echo "libc pcre2 archive compression zstd sqlite" ;;
    parsers) echo "libc" ;;
    compress) echo "libc zstd" ;;
    detect) echo "libc libsvm" ;;
    datasets) echo "libc" ;;
    cli) echo "libc" ;;
    esac
}
# The library a system header belongs to.
header_lib() {
    case $1 in
    pcre2.h) echo pcre2 ;;
    zstd.h | zstd_errors.h) echo zstd ;;
    sqlite3.h) echo sqlite ;;
    archive.h | archive_entry.h) echo archive ;;
    zlib.h | lzma.h | bzlib.h) echo compression ;;
    libsvm/svm.h | svm.h) echo libsvm ;;
    *) echo libc ;;
    esac
}
contains() { # contains WORD LIST...
    w=$1
    shift
    for x in "$@"; do [ "$x" = "$w" ] && return 0; done
    return 1
}

folders="core parsers compress detect datasets cli"
bad=0
tmp=${TMPDIR:-/tmp}/logtk-deps.$$
mkdir -p "$tmp" || exit 2
trap 'rm -rf "$tmp"' EXIT

# Where each of our headers lives.
for f in $folders include; do
    for h in "$src/$f"/*.h; do
        [ -f "$h" ] && echo "$(basename "$h") $f"
    done
done > "$tmp/headers"

for f in $folders; do
    ok="$f $(allowed_folders "$f")"
    libs=$(allowed_libs "$f")
    for file in "$src/$f"/*.c "$src/$f"/*.h; do
        [ -f "$file" ] || continue
        sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*\([<"]\)\([^>"]*\)[>"].*/\1 \2/p' "$file" |
        while read -r kind name; do
            if [ "$kind" = '"' ]; then
                [ "$name" = config.h ] && continue
                owner=$(awk -v h="$name" '$1 == h { print $2; exit }' "$tmp/headers")
                if [ -z "$owner" ]; then
                    echo "${file#$src/}: includes \"$name\", which is not a header of logtk"
                    echo x >> "$tmp/bad"
                elif [ "$owner" = include ]; then
                    :
                elif ! contains "$owner" $ok; then
                    echo "${file#$src/}: uses $owner (#include \"$name\")"
                    echo x >> "$tmp/bad"
                fi
            else
                lib=$(header_lib "$name")
                if ! contains "$lib" $libs; then
                    echo "${file#$src/}: uses the library $lib (#include <$name>)"
                    echo x >> "$tmp/bad"
                fi
            fi
        done
    done
done

# Calls: which folder defines each global symbol of the library.
for f in $folders; do
    for o in "$build/$f"/*.o; do
        [ -f "$o" ] || continue
        nm --defined-only -g "$o" 2>/dev/null | awk -v f="$f" 'NF == 3 { print $3, f }'
    done
done | sort -u > "$tmp/defined"
if [ ! -s "$tmp/defined" ]; then
    echo "check_deps: no objects under $build (build first); only includes were checked" >&2
else
    # The names include/logtk.h declares, the only ones cli/ may call.
    grep -o 'logtk_[A-Za-z0-9_]*[[:space:]]*(' "$src/include/logtk.h" |
        sed 's/[[:space:]]*($//' | sort -u > "$tmp/public"
    # Names (doc/DESIGN.md, "Library conventions"): a global of the library is
    # logtk_ only if include/logtk.h declares it, and ltk_ if it is internal.
    awk '
        FILENAME == ARGV[1] { public[$1] = 1; next }
        $2 == "cli" || $1 ~ /^__/ { next } # __: names the compiler made (sanitizers)
        $1 ~ /^logtk_/ && !($1 in public) { print $2 "/: " $1 " is internal but has the public prefix logtk_ (use ltk_)"; next }
        $1 !~ /^(logtk_|ltk_)/ { print $2 "/: global " $1 " has neither logtk_ (public) nor ltk_ (internal)" }
    ' "$tmp/public" "$tmp/defined" > "$tmp/names"
    cat "$tmp/names"
    sed 's/.*/x/' "$tmp/names" >> "$tmp/bad"
    for f in $folders; do
        for o in "$build/$f"/*.o; do
            [ -f "$o" ] || continue
            nm -u "$o" 2>/dev/null | awk -v o="${o#$build/}" -v f="$f" '{ print o, f, $NF }'
        done
    done > "$tmp/undefined"
    # One pass: each undefined symbol against its owner and the rules.
    awk -v rules="core: parsers:core compress:core,parsers detect:core datasets:core,parsers cli:" '
        BEGIN {
            n = split(rules, r, " ")
            for (i = 1; i <= n; i++) {
                split(r[i], kv, ":")
                ok[kv[1] "," kv[1]] = 1
                m = split(kv[2], us, ",")
                for (j = 1; j <= m; j++) ok[kv[1] "," us[j]] = 1
            }
        }
        FILENAME == ARGV[1] { owner[$1] = $2; next }
        FILENAME == ARGV[2] { public[$1] = 1; next }
        {
            obj = $1; f = $2; sym = $3
            if (!(sym in owner)) next
            if (f == "cli") {
                if (owner[sym] == "cli" || (sym in public)) next
                print obj ": calls " sym " of " owner[sym] "/, which include/logtk.h does not declare"
            } else if (!((f "," owner[sym]) in ok)) {
                print obj ": calls " sym " of " owner[sym] "/"
            }
        }' "$tmp/defined" "$tmp/public" "$tmp/undefined" > "$tmp/calls"
    cat "$tmp/calls"
    sed 's/.*/x/' "$tmp/calls" >> "$tmp/bad"
fi

if [ -s "$tmp/bad" ]; then
    echo "check_deps: $(wc -l < "$tmp/bad") forbidden edges (doc/DESIGN.md says who may use whom)"
    exit 1
fi
echo "check_deps: no forbidden edge between folders"
