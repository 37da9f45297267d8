/*
 * archive_index.h - the block index stored in the archive footer (internal).
 */
#ifndef LTK_ARCHIVE_INDEX_H
#define LTK_ARCHIVE_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

typedef struct ltk_index_entry {
    uint64_t offset;     /* file offset of the block header */
    uint64_t first_line; /* 0-based */
    uint64_t nlines;
    uint64_t raw_bytes;
} ltk_index_entry;

typedef struct ltk_index {
    ltk_index_entry *entries;
    size_t count, cap;
} ltk_index;

/** Appends an entry.  Returns 0 or -1 (out of memory). */
int ltk_index_add(ltk_index *ix, uint64_t offset, uint64_t first_line, uint64_t nlines,
                   uint64_t raw_bytes);
void ltk_index_clear(ltk_index *ix);
void ltk_index_free(ltk_index *ix);

/** Appends the footer ("LTKI" entries footer_len "LTKE") to out.  Returns 0 or -1. */
int ltk_index_serialize(const ltk_index *ix, ltk_strbuf *out);

/**
 * Parses a footer body (from "LTKI" up to, not including, the 8-byte
 * trailer).  Returns 0, or -1 when it is malformed or inconsistent.
 */
int ltk_index_parse(ltk_index *ix, const uint8_t *p, size_t len);

/** The entry holding 0-based line `line`, or -1. */
long ltk_index_find_line(const ltk_index *ix, uint64_t line);

#endif
