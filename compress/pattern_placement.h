/*
 * pattern_placement.h - where the pieces of a grep pattern can lie in a
 * template: the bit-parallel template check, the pieces a template surely
 * holds, and the number tests derived from alignments of a piece over a
 * template (pattern_placement.c; internal).
 */
#ifndef LTK_PATTERN_PLACEMENT_H
#define LTK_PATTERN_PLACEMENT_H

#include "archive_search_impl.h"

/** Nonzero when byte c of a pattern can only be a literal of a template (no variable makes it). */
int ltk_literal_only(unsigned char c, int fold);
/** The mask of the pieces a line of template t[0..tlen) may hold, cached per distinct template. */
uint8_t ltk_cached_piece_mask(const logtk_grep *g, search_ctx *x, const uint8_t *t, size_t tlen);
/** Nonzero when the template's literal text holds the whole fixed pattern (grep -F, see sure_ok). */
int ltk_template_is_sure(const logtk_grep *g, const uint8_t *t, size_t tlen);
/** Nonzero when text[0..n) holds piece k. */
int ltk_text_holds_piece(const logtk_grep *g, int k, char *text, size_t n);
/** Nonzero when every digit of the template's lines comes from one of its numeric variables. */
int ltk_template_digits_clean(const uint8_t *t, size_t tlen);
/** The pieces of maybe that the template's literal text surely holds. */
uint8_t ltk_template_sure_pieces(const logtk_grep *g, const uint8_t *t, size_t tlen, uint8_t maybe,
                                  ltk_strbuf *scratch);
/**
 * Derives the number tests of the block's templates from where the pieces
 * can lie in them and runs them (see the comment above its definition):
 * the number of (template, piece) pairs tested, or a negative LOGTK_ERR_*.
 */
int ltk_number_filter(const logtk_grep *g, search_ctx *x, ltk_decoder *d, ltk_errbuf *derr);

#endif
