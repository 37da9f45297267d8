/*
 * archive_search.h - what archive_search.c offers besides the public
 * logtk_grep_* API: the selection of one line alone, which the tests and
 * the archive fuzzer use to check grep's output against a plain scan.
 */
#ifndef LTK_ARCHIVE_SEARCH_H
#define LTK_ARCHIVE_SEARCH_H

#include <stddef.h>

#include "logtk.h"

/** Nonzero when one line (without its terminator) is selected by g's patterns. */
int ltk_grep_line(logtk_grep *g, const char *line, size_t len);

#endif
