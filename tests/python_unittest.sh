#!/bin/sh
# The Python package's tests (python/tests) with Debian's interpreter, over the
# library just built.  Skipped (77) when /usr/bin/python3 is missing or when
# the build has no shared library (the ASan build is --disable-shared).
PY=${LOGTK_PYTHON:-/usr/bin/python3}
src=${LOGTK_SRCDIR:-.}
build=$(dirname "${LOGTK:-./logtk}")
lib=$build/.libs/liblogtk.so
if [ ! -x "$PY" ]; then
    echo "SKIP: $PY not found"
    exit 77
fi
if [ ! -f "$lib" ]; then
    echo "SKIP: no shared library ($lib): built with --disable-shared"
    exit 77
fi
PYTHONDONTWRITEBYTECODE=1 LOGTK_LIBRARY=$lib PYTHONPATH=$src/python${PYTHONPATH:+:$PYTHONPATH} LOGTK_SRCDIR=$src \
    exec "$PY" -m unittest discover -s "$src/python/tests" -t "$src/python/tests" -v
