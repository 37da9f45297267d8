/*
 * header_fields.h - how many leading tokens of a log's lines are header parts (header_fields.c;
 * internal).
 */
#ifndef LTK_HEADER_FIELDS_H
#define LTK_HEADER_FIELDS_H

#include <stddef.h>

#include "logtk.h"

/**
 * The number of whole tokens (at most max_parts) in front of <Content> on
 * most of the first lines of text[0..len) that match f, or -1 when fewer than
 * half of them match.
 */
int ltk_format_header_parts(logtk_format *f, const char *text, size_t len, size_t max_parts);

#endif
