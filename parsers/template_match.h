/*
 * template_match.h - matching a template against a line, and widening a
 * template so that it matches a line it does not (internal; the public
 * matcher is logtk_template_match() in include/logtk.h).
 *
 * A template is text in which "<*>" stands for any text (empty, or with
 * blanks in it) and a run of blanks for any run of blanks; blanks at either
 * end of the line are ignored.  Every template a parser reports must match
 * each line assigned to it, and the text of its "<*>", in order, are the
 * line's parameters.  parser.c keeps that true with the widening below.
 */
#ifndef LTK_TEMPLATE_MATCH_H
#define LTK_TEMPLATE_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "logtk.h"
#include "strbuf.h"

/** Number of "<*>" in text[0..len). */
size_t ltk_tmatch_count_wildcards(const char *text, size_t len);

/**
 * Is t[0..tlen) one "<*>" between fixed text without blanks ("key=<*>,")?
 * Then *at is where the "<*>" starts, and t matches a line without blanks
 * exactly when the line starts with t[0..*at) and ends with the rest after
 * the "<*>", not overlapping: the "<*>" takes what lies between, as
 * ltk_tmatch_glob() would (parser.c pairs tokens so, without the matcher).
 */
int ltk_tmatch_one_star(const char *t, size_t tlen, size_t *at);

/**
 * Matches template text t[0..tlen) against line s[0..slen).  Returns 1 on a
 * match and fills caps[0..k) with the text of each "<*>" (k = the number of
 * "<*>"; caps may be NULL, else it holds at least k slices), 0 otherwise.
 * Each "<*>" takes the shortest text that lets the rest match, from the
 * left.  Time O(slen * tlen) at worst, linear for the usual template.
 * Without caps the caller is taken to ask about many lines that do not
 * match (a search), and each fixed piece is first looked for whole
 * (memmem), which rejects those cheaply; with caps, about a line it expects
 * to match, which that test would only slow down.
 */
int ltk_tmatch_glob(const char *t, size_t tlen, const char *s, size_t slen, logtk_slice *caps);

/**
 * Does template t match everything template s matches?  As
 * ltk_tmatch_glob(), with each "<*>" of s a value only a "<*>" of t covers.
 */
int ltk_tmatch_covers(const char *t, size_t tlen, const char *s, size_t slen);

/**
 * May one line match both template a and template b?  0 only when none can
 * (decided exactly on the templates with their blanks dropped, so a 1 may
 * still be two templates no line shares); 1 also for templates too long to
 * decide (over 4M table cells) or when memory runs out.  Time and memory
 * O(alen * blen) and O(blen).
 */
int ltk_tmatch_may_share(const char *a, size_t alen, const char *b, size_t blen);

/** How ltk_tmatch_merge() treats template a. */
enum ltk_tmatch_mode {
    /* a matched lines: the result matches everything a and b match */
    LTK_TMATCH_COVER_BOTH,
    /* a is an algorithm's guess that no line has matched yet: only its
       "<*>" are kept, the rest of the result is b's own text */
    LTK_TMATCH_A_IS_GUESS
};

/** Scratch space of ltk_tmatch_merge(), reused between calls; zero it before first use. */
typedef struct ltk_tmatch_scratch {
    struct tmatch_unit *ua, *ub;
    size_t ua_cap, ub_cap;
    int *score;          /* two tables: outside and inside a "<*>" of a */
    unsigned char *pick;
    size_t cells_cap;
    ltk_strbuf out;
} ltk_tmatch_scratch;

void ltk_tmatch_scratch_free(ltk_tmatch_scratch *s);

/**
 * A template that matches b (a line's content, or with b_is_template
 * another template and everything it matches) and, in
 * LTK_TMATCH_COVER_BOTH mode, everything template a matches.
 *
 * Both are cut into units: a word (a run of letters, digits and bytes
 * >= 0x80), one other character, a run of blanks, or "<*>".  An alignment
 * that keeps the most units in common (a longest common subsequence in
 * which a "<*>" of a may also take any run of b's units) decides the
 * result: common units are kept; where the two differ the result has one
 * "<*>", except that with a guess a's differing units are dropped and b's
 * written out: a "<*>" of a takes at least one of b's units when it can,
 * and as many as it can reach; a blank of a where b has a punctuation
 * character is that character (the guess had split a word there).
 * The result is in s->out (valid until the next call).  Time and memory
 * O(units of a * units of b); past 4M table cells the result is "<*>"
 * (or, with a guess, b itself).  Returns LOGTK_OK or LOGTK_ERR_NOMEM.
 */
int ltk_tmatch_merge(ltk_tmatch_scratch *s, const char *a, size_t alen, const char *b,
                       size_t blen, int b_is_template, enum ltk_tmatch_mode mode);

#endif
