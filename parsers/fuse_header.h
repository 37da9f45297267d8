/*
 * fuse_header.h - where a line's header ends, for the fuse parser
 * (fuse_header.c; internal).
 */
#ifndef LTK_FUSE_HEADER_H
#define LTK_FUSE_HEADER_H

#include <stddef.h>

#include "parser_impl.h"

/**
 * The number of leading tokens of t[0..n) that are the line's header
 * rather than its message (dates and times, a level, a component, a
 * program name), 0 when there is none.
 */
size_t ltk_fuse_header_length(const logtk_slice *t, size_t n);

/**
 * Nonzero when s[0..n) is a time zone's abbreviation as it follows a time:
 * "UTC", "GMT", or three or four capitals ending with 'T' ("CET", "CEST",
 * "EDT", "JST").  Read in a header and in a date inside a message
 * (parser_fuse.c, calendar_date_span).
 */
int ltk_fuse_is_zone_name(const char *s, size_t n);

/**
 * Nonzero when s[0..n) is a logger's level word, in any case, of two
 * letters or more ("INFO", "verbose", "Warning"; see is_level_name in
 * fuse_header.c), without brackets.  A level names no message (parser_fuse.c,
 * sole_word_at).
 */
int ltk_fuse_is_level_word(const char *s, size_t n);

#endif
