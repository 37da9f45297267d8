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

/*
 * A file mapped into memory.  The reader holds one reference while the
 * file is open; a read-ahead pool takes another while its workers use
 * payloads in it, so reopening or freeing the reader never unmaps bytes a
 * worker is reading.
 */
typedef struct ltka_file_map ltka_file_map;

/** A new reference to the map of r's file, or NULL when r does not read a mapped file. */
ltka_file_map *ltka_reader_map_ref(logtk_archive_reader *r);

/** Drops a reference; the last one unmaps the file.  NULL is harmless. */
void ltka_file_map_unref(ltka_file_map *m);

/** Nonzero when p[0..len) lies inside the map (m may be NULL: then 0). */
int ltka_file_map_holds(const ltka_file_map *m, const uint8_t *p, size_t len);

/* A block's payload, checked against its checksum but not decoded. */
struct ltka_raw_block {
    const uint8_t *payload; /* valid until the next read */
    size_t len;
    uint32_t nlines;
    uint32_t raw_bytes;
    const uint8_t *line_hashes; /* the block's line hashes, right after the payload (NULL: version 3) */
};
typedef struct ltka_raw_block ltka_raw_block;

struct logtk_archive_reader {
    logtk_errbuf err;
    char name[256];
    FILE *fp;
    int own_fp;
    const uint8_t *mem; /* memory source (buf_pos then indexes it) */
    size_t mem_len;
    ltka_file_map *map; /* the file's map when mem is one, else NULL */
    uint8_t *buf; /* read buffer for file sources */
    size_t buf_cap, buf_pos, buf_len;
    uint64_t base; /* file offset of buf[0] */
    int eof, io_error, at_end;
    uint64_t trailing;  /* bytes found after the index, reported once after the last block */
    uint64_t serial;    /* distinct for every open and seek, so read-ahead can tell positions apart */
    int version;        /* the archive's format version (LTKA_VERSION_MIN..LTKA_VERSION_MAX) */
    int open_archive;   /* version 5 with LTKA_FLAG_OPEN: no footer yet, ending after a block is fine */
    size_t header_len;  /* bytes of its block headers */
    uint64_t next_line; /* 0-based line expected next */
    uint64_t scan_from; /* 0-based: blocks ending before this line are passed over unchecked (cat without an index) */
    uint64_t doubtful_from; /* 1 + first line of the last block whose counts failed their check, 0: none */
    uint64_t block_no;
    int retry;                 /* a block whose decoding ran out of memory, returned again next: */
    logtk_archive_block retry_b;
    ltka_raw_block retry_raw;
    ltka_index index;
    int index_state; /* 0 not loaded, 1 loaded */
    ltka_decoder *dec;
    logtk_strbuf text;
    ltka_stream_sizes sizes;
};


/** Like logtk_archive_reader_next() but stops before decoding. */
int ltka_reader_next_raw(logtk_archive_reader *r, logtk_archive_block *b, ltka_raw_block *raw);

/**
 * Search's split of ltka_decode_lines_masked (defined in block_decode.c):
 * ltka_decode_lines_mark reads the line streams, checks their layout and
 * ORs tmask[t] (tmask: one byte per template) into line_mask[i] for the
 * template t of every part of line i, without building the per-unit
 * template and rank arrays; ids out of range are left to the next step.
 * ltka_decode_index_lines then checks every id, counts the lines of each
 * template, and fills the template and rank of lines[0..nsel) (ascending)
 * only: after it, ltka_decode_values_for_lines and ltka_decoder_line may be
 * used for those lines only.
 */
int ltka_decode_lines_mark(ltka_decoder *d, const uint8_t *tmask, uint8_t *line_mask,
                           logtk_errbuf *err);
int ltka_decode_index_lines(ltka_decoder *d, const uint32_t *lines, uint32_t nsel,
                            logtk_errbuf *err);
/**
 * ltka_decode_lines_mark in two steps, so that search can run its number
 * tests between them: ltka_decode_lines_count reads the line streams, checks
 * every id and counts the lines of each template (per part, with
 * checkpoints); ltka_decode_lines_mark_counted then ORs tmask[t] into
 * line_mask[i] for every part of line i whose template is t.
 */
int ltka_decode_lines_count(ltka_decoder *d, logtk_errbuf *err);
void ltka_decode_lines_mark_counted(ltka_decoder *d, const uint8_t *tmask, uint8_t *line_mask);
/**
 * After ltka_decode_lines_count: ORs bit into line_mask[i] for the line i of
 * every unit of template t whose rank r has alive[r] != 0 (alive: one byte
 * per line of t, as the number tests leave it).
 */
void ltka_decode_mark_units(ltka_decoder *d, uint32_t t, const uint8_t *alive, uint8_t bit,
                            uint8_t *line_mask);

/**
 * Search's first look at candidate lines: expands only the values of the
 * units (part p of line i, for lines[0..nsel) ascending) whose template t
 * has tmask[t] set, after which ltka_decoder_unit may rebuild those units
 * (and ltka_decode_values_for_lines may still follow for whole lines).
 */
int ltka_decode_values_for_units(ltka_decoder *d, const uint32_t *lines, uint32_t nsel,
                                 const uint8_t *tmask, logtk_errbuf *err);
/** Appends the text of part p of line i (no line end) to out. */
int ltka_decoder_unit(ltka_decoder *d, uint32_t i, uint32_t p, logtk_strbuf *out);
/**
 * Nonzero when a numeric variable of part p of line i has the value v and
 * is written (zero padding included, sign left out) as digits[0..n).  For
 * units whose values ltka_decode_values_for_units expanded.
 */
int ltka_decoder_unit_has_number(ltka_decoder *d, uint32_t i, uint32_t p, uint64_t v, const char *digits,
                                 size_t n);

/*
 * A necessary condition on the values of one numeric column, which search
 * derives from where a piece of the pattern can lie in a template: the
 * variable's digits must be exactly value (EXACT), end with the len digits
 * of value (SUFFIX: value mod 10^len), or start with them (PREFIX).  Units
 * (ranks of template tmpl) whose value fails get bit cleared in alive[rank].
 */
enum { LTKA_TEST_EXACT = 1, LTKA_TEST_SUFFIX, LTKA_TEST_PREFIX };
typedef struct ltka_num_test {
    uint32_t tmpl;   /* template */
    uint32_t slot;   /* numeric variable of the template, 0-based in template order */
    uint8_t kind;    /* LTKA_TEST_* */
    uint8_t len;     /* digits of value the test looks at (1..19) */
    uint8_t bit;     /* cleared in alive[rank] when the value fails */
    uint64_t value;
    uint8_t *alive;  /* one byte per line of the template (its count) */
} ltka_num_test;

/**
 * Runs tests[0..n) (sorted by template, then slot) over the numeric columns
 * they name, straight from the numbers stream: only the chunks holding a
 * tested column are decompressed, values are not stored.  After
 * ltka_decode_lines_mark/_masked (template counts known).  LOGTK_OK or
 * LOGTK_ERR_ARCHIVE / LOGTK_ERR_NOMEM (message in err).
 */
int ltka_decode_number_tests(ltka_decoder *d, const ltka_num_test *tests, size_t n, logtk_errbuf *err);
/** Lines of template t (after ltka_decode_lines_mark/_masked). */
uint32_t ltka_decoder_template_lines(const ltka_decoder *d, uint32_t t);
/** Ranks of all units, like ltka_decoder_unit_templates (filled where those are). */
const uint32_t *ltka_decoder_unit_ranks(const ltka_decoder *d);

size_t ltka_reader_fill(logtk_archive_reader *r, size_t n);
const uint8_t *ltka_reader_ptr(const logtk_archive_reader *r);

#endif
