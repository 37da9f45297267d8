/*
 * block_decode.h - block payload -> lines (block_decode.c; internal).  Search's
 * queries on a decoded block are in block_query.h.
 */
#ifndef LOGTK_BLOCK_DECODE_H
#define LOGTK_BLOCK_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "block_layout.h"
#include "errmsg.h"
#include "strbuf.h"

typedef struct ltka_decoder ltka_decoder;

/**
 * Test hook: while positive, each ltka_decode_block call decrements it and
 * fails with LOGTK_ERR_NOMEM, as a decode that ran out of memory.
 */
extern int ltka_test_decode_nomem;

ltka_decoder *ltka_decoder_new(void);
void ltka_decoder_free(ltka_decoder *d);
/** Frees the decoder's buffers (it stays usable, as new; NULL is harmless): after running out of memory. */
void ltka_decoder_trim(ltka_decoder *d);

/**
 * Decodes a payload; on success the block's text is in text[0..len).
 * expect_lines/expect_bytes come from the header and are checked.  Returns
 * LOGTK_OK or LOGTK_ERR_ARCHIVE (message in err); never reads outside the payload.
 */
int ltka_decode_block(ltka_decoder *d, const uint8_t *payload, size_t len, uint32_t expect_lines,
                      uint32_t expect_bytes, logtk_strbuf *text, ltka_stream_sizes *sizes,
                      logtk_errbuf *err);

/*
 * Decodes the payload into columns without rebuilding the text, so search can
 * look at templates first and rebuild only the lines that may match.
 */
int ltka_decode_columns(ltka_decoder *d, const uint8_t *payload, size_t len,
                        uint32_t expect_lines, uint32_t expect_bytes, logtk_errbuf *err);
/**
 * The same in two steps: prepare decompresses the streams and reads templates
 * and template ids; values then expands the columns of the templates with
 * want[t] set (all when want is NULL).  Lines of other templates must not be
 * rebuilt.
 */
int ltka_decode_prepare(ltka_decoder *d, const uint8_t *payload, size_t len,
                        uint32_t expect_lines, uint32_t expect_bytes, logtk_errbuf *err);
int ltka_decode_values(ltka_decoder *d, const uint8_t *want, logtk_errbuf *err);
/**
 * Like ltka_decode_values but expands only the values that lines[0..nsel)
 * (ascending) need; only those lines may then be rebuilt.
 */
int ltka_decode_values_for_lines(ltka_decoder *d, const uint32_t *lines, uint32_t nsel,
                                 logtk_errbuf *err);
/**
 * prepare in two steps: templates checks the payload's layout and reads the
 * template dictionary only (so search can skip a block whose templates
 * cannot match without decompressing anything else); lines reads the rest.
 */
int ltka_decode_templates(ltka_decoder *d, const uint8_t *payload, size_t len,
                          uint32_t expect_lines, uint32_t expect_bytes, logtk_errbuf *err);
int ltka_decode_lines(ltka_decoder *d, logtk_errbuf *err);
/**
 * ltka_decode_lines that also ORs tmask[t] into line_mask[i] for the
 * template t of every part of line i (line_mask: one byte per line, zeroed
 * by the caller).
 */
int ltka_decode_lines_masked(ltka_decoder *d, const uint8_t *tmask, uint8_t *line_mask,
                             logtk_errbuf *err);
/** Number of templates of the decoded block and the bytes of template t. */
uint32_t ltka_decoder_template_count(const ltka_decoder *d);
const uint8_t *ltka_decoder_template(const ltka_decoder *d, uint32_t t, size_t *len);
/** Parts per line (header parts + the rest). */
uint32_t ltka_decoder_part_count(const ltka_decoder *d);
/** Template index of part p of line i. */
uint32_t ltka_decoder_line_template(const ltka_decoder *d, uint32_t i, uint32_t p);
/** Template indices of all units after ltka_decode_lines: entry p * lines + i is part p of line i. */
const uint32_t *ltka_decoder_unit_templates(const ltka_decoder *d);
/** Line end code of line i: 0 "\n", 1 "\r\n", 2 none. */
int ltka_decoder_line_eol(const ltka_decoder *d, uint32_t i);
/** Lines of the decoded block. */
uint32_t ltka_decoder_line_count(const ltka_decoder *d);
/** Appends line i (with its terminator when with_eol) to out. */
int ltka_decoder_line(ltka_decoder *d, uint32_t i, int with_eol, logtk_strbuf *out);

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

#endif
