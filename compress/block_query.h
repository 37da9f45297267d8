/*
 * block_query.h - search's questions to a decoded block, answered from its
 * columns without rebuilding lines (block_query.c; internal).
 */
#ifndef LTK_BLOCK_QUERY_H
#define LTK_BLOCK_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include "block_decode.h"
#include "errmsg.h"

/**
 * Search's split of ltk_decode_lines_masked:
 * ltk_decode_lines_mark reads the line streams, checks their layout and
 * ORs tmask[t] (tmask: one byte per template) into line_mask[i] for the
 * template t of every part of line i, without building the per-unit
 * template and rank arrays; ids out of range are left to the next step.
 * ltk_decode_index_lines then checks every id, counts the lines of each
 * template, and fills the template and rank of lines[0..nsel) (ascending)
 * only: after it, ltk_decode_values_for_lines and ltk_decoder_line may be
 * used for those lines only.
 */
int ltk_decode_lines_mark(ltk_decoder *d, const uint8_t *tmask, uint8_t *line_mask,
                           ltk_errbuf *err);
int ltk_decode_index_lines(ltk_decoder *d, const uint32_t *lines, uint32_t nsel,
                            ltk_errbuf *err);
/**
 * ltk_decode_lines_mark in two steps, so that search can run its number
 * tests between them: ltk_decode_lines_count reads the line streams, checks
 * every id and counts the lines of each template (per part, with
 * checkpoints); ltk_decode_lines_mark_counted then ORs tmask[t] into
 * line_mask[i] for every part of line i whose template is t.
 */
int ltk_decode_lines_count(ltk_decoder *d, ltk_errbuf *err);
void ltk_decode_lines_mark_counted(ltk_decoder *d, const uint8_t *tmask, uint8_t *line_mask);
/**
 * After ltk_decode_lines_count: ORs bit into line_mask[i] for the line i of
 * every unit of template t whose rank r has alive[r] != 0 (alive: one byte
 * per line of t, as the number tests leave it).
 */
void ltk_decode_mark_units(ltk_decoder *d, uint32_t t, const uint8_t *alive, uint8_t bit,
                            uint8_t *line_mask);

/*
 * A necessary condition on the values of one numeric column, which search
 * derives from where a piece of the pattern can lie in a template: the
 * variable's digits must be exactly value (EXACT), end with the len digits
 * of value (SUFFIX: value mod 10^len), or start with them (PREFIX).  Units
 * (ranks of template tmpl) whose value fails get bit cleared in alive[rank].
 */
enum { LTK_TEST_EXACT = 1, LTK_TEST_SUFFIX, LTK_TEST_PREFIX };
/*
 * A number-test kind for IP columns: the value passes when
 * (value & mask) == bits, where the test's value holds mask << 32 | bits
 * (the octets a search piece fixes).
 */
#define LTK_TEST_IP_MASK 4

/*
 * Its companion for packed (non-canonical) IP values, which every
 * LTK_TEST_IP_MASK test passes: an address (below 2^32) passes, a packed
 * value when the parts the search piece spells out whole are those of the
 * test's value, flags << 48 | p0 << 36 | ... | p3 (flags bit 3 - k: part k
 * is fixed; parts as in LTK_IP_PACKED_FLAG).  A field 0xfff fails every
 * packed value (the piece is a canonical address).
 */
#define LTK_TEST_IP_PACKED 5
typedef struct ltk_num_test {
    uint32_t tmpl;   /* template */
    uint32_t slot;   /* numeric variable of the template, 0-based in template order */
    uint8_t kind;    /* LTK_TEST_* */
    uint8_t len;     /* digits of value the test looks at (1..19) */
    uint8_t bit;     /* cleared in alive[rank] when the value fails */
    uint64_t value;
    uint8_t *alive;  /* one byte per line of the template (its count) */
} ltk_num_test;

/**
 * Runs tests[0..n) (sorted by template, then slot) over the numeric columns
 * they name, straight from the numbers stream: only the chunks holding a
 * tested column are decompressed, values are not stored.  After
 * ltk_decode_lines_mark/_masked (template counts known).  LOGTK_OK or
 * LOGTK_ERR_ARCHIVE / LOGTK_ERR_NOMEM (message in err).
 */
int ltk_decode_number_tests(ltk_decoder *d, const ltk_num_test *tests, size_t n, ltk_errbuf *err);
/** Lines of template t (after ltk_decode_lines_mark/_masked). */
uint32_t ltk_decoder_template_lines(const ltk_decoder *d, uint32_t t);
/** Ranks of all units, like ltk_decoder_unit_templates (filled where those are). */
const uint32_t *ltk_decoder_unit_ranks(const ltk_decoder *d);

#endif
