/*
 * archive_index.h - the block index stored in the archive footer (internal).
 */
#ifndef LOGTK_ARCHIVE_INDEX_H
#define LOGTK_ARCHIVE_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

typedef struct ltka_index_entry {
    uint64_t offset;     /* file offset of the block header */
    uint64_t first_line; /* 0-based */
    uint64_t nlines;
    uint64_t raw_bytes;
} ltka_index_entry;

typedef struct ltka_index {
    ltka_index_entry *entries;
    size_t count, cap;
} ltka_index;

/** Appends an entry.  Returns 0 or -1 (out of memory). */
int ltka_index_add(ltka_index *ix, uint64_t offset, uint64_t first_line, uint64_t nlines,
                   uint64_t raw_bytes);
void ltka_index_clear(ltka_index *ix);
void ltka_index_free(ltka_index *ix);

/** Appends the footer ("LTKI" entries footer_len "LTKE") to out.  Returns 0 or -1. */
int ltka_index_serialize(const ltka_index *ix, logtk_strbuf *out);

/**
 * Parses a footer body (from "LTKI" up to, not including, the 8-byte
 * trailer).  Returns 0, or -1 when it is malformed or inconsistent.
 */
int ltka_index_parse(ltka_index *ix, const uint8_t *p, size_t len);

/** The entry holding 0-based line `line`, or -1. */
long ltka_index_find_line(const ltka_index *ix, uint64_t line);

#endif
