/*
 * mask.h - ordered masking rules with a map back to the original text (internal).
 *
 * A masker holds PCRE2 rules applied in order, each over the result of the
 * previous one (as Loghub's preprocessing and Drain3's masking do); every
 * match is replaced by the rule's replacement ("<*>" by default).  Alongside
 * the masked text it keeps a span map, so any range of the masked text maps
 * back to the ORIGINAL bytes it came from: a "<*>" that hid "blk_-42" maps
 * back to "blk_-42".
 *
 * The masked text and the map live in buffers owned by the masker and reused
 * for every line (no malloc per line once the longest line has been seen);
 * they are valid until the next ltk_masker_apply().
 */
#ifndef LTK_MASK_H
#define LTK_MASK_H

#include <stddef.h>
#include <stdint.h>

#include "errmsg.h"

typedef struct ltk_masker ltk_masker;

/** Match limit (PCRE2 backtracking steps) per rule and line; depth limit alike. */
#define LTK_MASK_MATCH_LIMIT 1000000u
#define LTK_MASK_DEPTH_LIMIT 10000u
/**
 * A rule that hit its match limit has shown that it backtracks
 * catastrophically on this input: each hit divides its limit by
 * LTK_MASK_LIMIT_DIVISOR, down to LTK_MASK_MATCH_LIMIT_FLOOR, so it
 * cannot cost the full limit on every line.  Rules that never hit the limit
 * keep it whole.
 */
#define LTK_MASK_LIMIT_DIVISOR 8u
#define LTK_MASK_MATCH_LIMIT_FLOOR 10000u

/** Creates a masker with no rules.  Returns LOGTK_OK or LOGTK_ERR_NOMEM. */
int ltk_masker_new(ltk_masker **out);

/** Frees the masker.  NULL is harmless. */
void ltk_masker_free(ltk_masker *m);

/**
 * Adds a rule at the end.  `replacement` NULL means "<*>"; it is inserted
 * literally.  Returns LOGTK_OK, LOGTK_ERR_SYNTAX (message in err quotes the
 * pattern and the PCRE2 error offset) or LOGTK_ERR_NOMEM.
 */
int ltk_masker_add(ltk_masker *m, const char *pattern, const char *replacement,
                     ltk_errbuf *err);

/**
 * ltk_masker_add() with a name (NULL or "": none) that
 * ltk_masker_name_of() reports for the text the rule replaced.
 */
int ltk_masker_add_named(ltk_masker *m, const char *name, const char *pattern,
                           const char *replacement, ltk_errbuf *err);

/** Name of rule i (NULL when it has none or i is out of range). */
const char *ltk_masker_name(const ltk_masker *m, size_t i);

/** Number of rules with a name. */
size_t ltk_masker_named_count(const ltk_masker *m);

/**
 * The name of the rule whose replacement, in the last masked text, hid
 * exactly the original range [ostart, oend); NULL when no named rule did
 * (verbatim text, an unnamed rule, or a range that is not one replacement).
 * When a later rule replaced an earlier one's replacement, the later names it.
 */
const char *ltk_masker_name_of(const ltk_masker *m, size_t ostart, size_t oend);

/** Number of rules. */
size_t ltk_masker_count(const ltk_masker *m);

/** Pattern / replacement of rule i (NULL when out of range). */
const char *ltk_masker_pattern(const ltk_masker *m, size_t i);
const char *ltk_masker_replacement(const ltk_masker *m, size_t i);

/**
 * Masks text[0..len).  On return *masked / *masked_len give the masked text
 * (the input itself when no rule matched).  Returns LOGTK_OK, LOGTK_ERR_NOMEM,
 * or LOGTK_ERR_LIMIT when a rule hit its match limit on this line: that rule
 * is skipped for the line (the others still apply) and err says which.
 */
int ltk_masker_apply(ltk_masker *m, const char *text, size_t len, const char **masked,
                       size_t *masked_len, ltk_errbuf *err);

/**
 * Maps a range [start, end) of the last masked text to the original text
 * given to ltk_masker_apply(): *ostart / *oend are offsets in the original.
 * A boundary inside a replacement widens to the whole replaced original.
 * Lookups in increasing order are cheapest (the masker remembers the last
 * segment it found).
 */
void ltk_masker_map(ltk_masker *m, size_t start, size_t end, size_t *ostart, size_t *oend);

/** Nonzero when the last apply changed the text (the map is not the identity). */
int ltk_masker_changed(const ltk_masker *m);

#endif
