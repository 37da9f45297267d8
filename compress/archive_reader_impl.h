/*
 * archive_reader_impl.h - the archive reader's state, shared with search (internal).
 */
#ifndef LTK_ARCHIVE_READER_IMPL_H
#define LTK_ARCHIVE_READER_IMPL_H

#include <stdio.h>

#include "archive_container.h"
#include "block_decode.h"
#include "block_layout.h"
#include "archive_index.h"
#include "errmsg.h"
#include "strbuf.h"

/*
 * A file mapped into memory.  The reader holds one reference while the
 * file is open; a read-ahead pool takes another while its workers use
 * payloads in it, so reopening or freeing the reader never unmaps bytes a
 * worker is reading.
 */
typedef struct ltk_file_map ltk_file_map;

/** A new reference to the map of r's file, or NULL when r does not read a mapped file. */
ltk_file_map *ltk_reader_map_ref(logtk_archive_reader *r);

/** Drops a reference; the last one unmaps the file.  NULL is harmless. */
void ltk_file_map_unref(ltk_file_map *m);

/** Nonzero when p[0..len) lies inside the map (m may be NULL: then 0). */
int ltk_file_map_holds(const ltk_file_map *m, const uint8_t *p, size_t len);

/* A block's payload, checked against its checksum but not decoded. */
struct ltk_raw_block {
    const uint8_t *payload; /* valid until the next read */
    size_t len;
    uint32_t nlines;
    uint32_t raw_bytes;
    const uint8_t *line_hashes; /* the block's line hashes, right after the payload (NULL: version 3) */
};
typedef struct ltk_raw_block ltk_raw_block;

struct logtk_archive_reader {
    ltk_errbuf err;
    char name[256];
    FILE *fp;
    int own_fp;
    const uint8_t *mem; /* memory source (buf_pos then indexes it) */
    size_t mem_len;
    ltk_file_map *map; /* the file's map when mem is one, else NULL */
    uint8_t *buf; /* read buffer for file sources */
    size_t buf_cap, buf_pos, buf_len;
    uint64_t base; /* file offset of buf[0] */
    int eof, io_error, at_end;
    uint64_t trailing;  /* bytes found after the index, reported once after the last block */
    uint64_t serial;    /* distinct for every open and seek, so read-ahead can tell positions apart */
    int version;        /* the archive's format version (LTK_VERSION_MIN..LTK_VERSION_MAX) */
    int open_archive;   /* version 5 on, with LTK_FLAG_OPEN: no footer yet, ending after a block is fine */
    size_t header_len;  /* bytes of its block headers */
    uint64_t next_line; /* 0-based line expected next */
    uint64_t scan_from; /* 0-based: blocks ending before this line are passed over unchecked (cat without an index) */
    uint64_t doubtful_from; /* 1 + first line of the last block whose counts failed their check, 0: none */
    uint64_t block_no;
    int retry;                 /* a block whose decoding ran out of memory, returned again next: */
    logtk_archive_block retry_b;
    ltk_raw_block retry_raw;
    ltk_index index;
    int index_state; /* 0 not loaded, 1 loaded */
    ltk_decoder *dec;
    ltk_strbuf text;
    ltk_stream_sizes sizes;
};

/** Like logtk_archive_reader_next() but stops before decoding. */
int ltk_reader_next_raw(logtk_archive_reader *r, logtk_archive_block *b, ltk_raw_block *raw);

size_t ltk_reader_fill(logtk_archive_reader *r, size_t n);
const uint8_t *ltk_reader_ptr(const logtk_archive_reader *r);

#endif
