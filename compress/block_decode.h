/*
 * block_decode.h - block payload -> lines (block_decode.c; internal).  Search's
 * queries on a decoded block are in block_query.h.
 */
#ifndef LTK_BLOCK_DECODE_H
#define LTK_BLOCK_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "block_layout.h"
#include "errmsg.h"
#include "strbuf.h"

typedef struct ltk_decoder ltk_decoder;

ltk_decoder *ltk_decoder_new(void);
void ltk_decoder_free(ltk_decoder *d);
/** Frees the decoder's buffers (it stays usable, as new; NULL is harmless): after running out of memory. */
void ltk_decoder_trim(ltk_decoder *d);

/**
 * Decodes a payload; on success the block's text is in text[0..len).
 * expect_lines/expect_bytes come from the header and are checked.  Returns
 * LOGTK_OK or LOGTK_ERR_ARCHIVE (message in err); never reads outside the payload.
 */
int ltk_decode_block(ltk_decoder *d, const uint8_t *payload, size_t len, uint32_t expect_lines,
                      uint32_t expect_bytes, ltk_strbuf *text, ltk_stream_sizes *sizes,
                      ltk_errbuf *err);

/*
 * Decodes the payload into columns without rebuilding the text, so search can
 * look at templates first and rebuild only the lines that may match.
 */
int ltk_decode_columns(ltk_decoder *d, const uint8_t *payload, size_t len,
                        uint32_t expect_lines, uint32_t expect_bytes, ltk_errbuf *err);
/**
 * The same in two steps: prepare decompresses the streams and reads templates
 * and template ids; values then expands the columns of the templates with
 * want[t] set (all when want is NULL).  Lines of other templates must not be
 * rebuilt.
 */
int ltk_decode_prepare(ltk_decoder *d, const uint8_t *payload, size_t len,
                        uint32_t expect_lines, uint32_t expect_bytes, ltk_errbuf *err);
int ltk_decode_values(ltk_decoder *d, const uint8_t *want, ltk_errbuf *err);
/**
 * Like ltk_decode_values but expands only the values that lines[0..nsel)
 * (ascending) need; only those lines may then be rebuilt.
 */
int ltk_decode_values_for_lines(ltk_decoder *d, const uint32_t *lines, uint32_t nsel,
                                 ltk_errbuf *err);
/**
 * prepare in two steps: templates checks the payload's layout and reads the
 * template dictionary only (so search can skip a block whose templates
 * cannot match without decompressing anything else); lines reads the rest.
 */
int ltk_decode_templates(ltk_decoder *d, const uint8_t *payload, size_t len,
                          uint32_t expect_lines, uint32_t expect_bytes, ltk_errbuf *err);
int ltk_decode_lines(ltk_decoder *d, ltk_errbuf *err);
/**
 * ltk_decode_lines that also ORs tmask[t] into line_mask[i] for the
 * template t of every part of line i (line_mask: one byte per line, zeroed
 * by the caller).
 */
int ltk_decode_lines_masked(ltk_decoder *d, const uint8_t *tmask, uint8_t *line_mask,
                             ltk_errbuf *err);
/** Number of templates of the decoded block and the bytes of template t. */
uint32_t ltk_decoder_template_count(const ltk_decoder *d);
const uint8_t *ltk_decoder_template(const ltk_decoder *d, uint32_t t, size_t *len);
/** Parts per line (header parts + the rest). */
uint32_t ltk_decoder_part_count(const ltk_decoder *d);
/**
 * Nonzero when the decoded block keeps each message as one string variable
 * (LTK_PARTS_MESSAGES): its strings may hold any byte but a newline.
 */
int ltk_decoder_whole_messages(const ltk_decoder *d);
/** Template index of part p of line i. */
uint32_t ltk_decoder_line_template(const ltk_decoder *d, uint32_t i, uint32_t p);
/** Template indices of all units after ltk_decode_lines: entry p * lines + i is part p of line i. */
const uint32_t *ltk_decoder_unit_templates(const ltk_decoder *d);
/** Line end code of line i: 0 "\n", 1 "\r\n", 2 none. */
int ltk_decoder_line_eol(const ltk_decoder *d, uint32_t i);
/** Lines of the decoded block. */
uint32_t ltk_decoder_line_count(const ltk_decoder *d);
/** Appends line i (with its terminator when with_eol) to out. */
int ltk_decoder_line(ltk_decoder *d, uint32_t i, int with_eol, ltk_strbuf *out);

/**
 * Search's first look at candidate lines: expands only the values of the
 * units (part p of line i, for lines[0..nsel) ascending) whose template t
 * has tmask[t] set, after which ltk_decoder_unit may rebuild those units
 * (and ltk_decode_values_for_lines may still follow for whole lines).
 */
int ltk_decode_values_for_units(ltk_decoder *d, const uint32_t *lines, uint32_t nsel,
                                 const uint8_t *tmask, ltk_errbuf *err);
/** Appends the text of part p of line i (no line end) to out. */
int ltk_decoder_unit(ltk_decoder *d, uint32_t i, uint32_t p, ltk_strbuf *out);
/**
 * Nonzero when a numeric variable of part p of line i has the value v and
 * is written (zero padding included, sign left out) as digits[0..n).  For
 * units whose values ltk_decode_values_for_units expanded.
 */
int ltk_decoder_unit_has_number(ltk_decoder *d, uint32_t i, uint32_t p, uint64_t v, const char *digits,
                                 size_t n);

#endif
