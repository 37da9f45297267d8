/*
 * archive_reader_impl.h - the archive reader's state, shared with search (internal).
 */
#ifndef LOGTK_ARCHIVE_READER_IMPL_H
#define LOGTK_ARCHIVE_READER_IMPL_H

#include <stdio.h>

#include "archive_format.h"
#include "archive_index.h"
#include "errmsg.h"
#include "strbuf.h"

struct logtk_archive_reader {
    logtk_errbuf err;
    char name[256];
    FILE *fp;
    int own_fp;
    const uint8_t *mem; /* memory source (buf_pos then indexes it) */
    size_t mem_len;
    uint8_t *buf; /* read buffer for file sources */
    size_t buf_cap, buf_pos, buf_len;
    uint64_t base; /* file offset of buf[0] */
    int eof, io_error, at_end;
    uint64_t serial;    /* distinct for every open, so search can tell readers apart */
    uint64_t next_line; /* 0-based line expected next */
    uint64_t block_no;
    ltka_index index;
    int index_state; /* 0 not loaded, 1 loaded */
    ltka_decoder *dec;
    logtk_strbuf text;
    ltka_stream_sizes sizes;
};

/* A block's payload, checked against its checksum but not decoded. */
typedef struct ltka_raw_block {
    const uint8_t *payload; /* valid until the next read */
    size_t len;
    uint32_t nlines;
    uint32_t raw_bytes;
} ltka_raw_block;

/** Like logtk_archive_reader_next() but stops before decoding. */
int ltka_reader_next_raw(logtk_archive_reader *r, logtk_archive_block *b, ltka_raw_block *raw);

size_t ltka_reader_fill(logtk_archive_reader *r, size_t n);
const uint8_t *ltka_reader_ptr(const logtk_archive_reader *r);

#endif
