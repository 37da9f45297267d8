/*
 * archive_search_impl.h - the state of a search in an archive, shared by
 * archive_search.c (the grep driver) and pattern_placement.c (where the
 * pattern's pieces can lie in a template) (internal).
 */
#ifndef LTK_ARCHIVE_SEARCH_IMPL_H
#define LTK_ARCHIVE_SEARCH_IMPL_H

#include <stdint.h>

#include "block_decode.h"
#include "block_layout.h"
#include "block_query.h"
#include "errmsg.h"
#include "hashtab.h"
#include "logtk.h"
#include "regex.h"
#include "strbuf.h"

/*
 * Pieces of text every matching line holds (no blanks or CR; lower-cased
 * when the search ignores case), the longest MAX_PIECES of them.
 */
#define MAX_PIECES 8
/*
 * Required texts with blanks inside ("ciod: failed"), at most 64 bytes, the
 * longest MAX_PHRASES of them (see phrase_masks).
 */
#define MAX_PHRASES 4
typedef struct piece_set {
    int n;
    int fold; /* -i: pieces are lower-cased and templates are matched ignoring ASCII case */
    char *text[MAX_PIECES];
    size_t len[MAX_PIECES];
    int nphrases;
    char *phrase[MAX_PHRASES];
    size_t phrase_len[MAX_PHRASES];
} piece_set;

#define MAX_ALIGNS 4 /* alignments of a piece in a template; more: no number test for them */
/*
 * The alignment walk's answer for one distinct template (an id of the
 * template cache) and piece, kept because blocks repeat their templates:
 * state 0 not walked yet, 1 no test (too many alignments, or one without a
 * number), 2 naligns alignments whose tests lie back to back in
 * memo_tests from off (ntests[a] of alignment a).  (callgrind, -T 1, 2M-line
 * scale-up, 10.251.43.115: the walk cost ~55 million instructions when
 * redone for every block.)
 */
typedef struct align_memo {
    uint32_t off;
    uint8_t state, naligns;
    uint8_t ntests[MAX_ALIGNS];
} align_memo;

/*
 * Per-thread search state: the decoder, scratch arrays and the template
 * cache.  The serial path uses g->main (with the reader's decoder); each
 * worker of the parallel path has its own.
 */
typedef struct search_ctx {
    ltk_errbuf err;
    struct logtk_grep *g;
    ltk_decoder *dec; /* owned by workers; the reader's in the serial path */
    int own_dec;
    ltk_regex *re; /* a clone of the grep's pattern (NULL: memmem) */
    ltk_strbuf line;
    ltk_strbuf held;      /* a block's selected lines, held back until its content checksum holds ... */
    uint32_t *held_lens;    /* ... and their lengths */
    size_t nheld, held_cap;
    ltk_strbuf whole;     /* lines rebuilt to check their content checksum */
    uint32_t *sel_lines;    /* the lines of the block search_block selected (while recording) */
    size_t nsel_lines, sel_lines_cap;
    int recording, sel_failed;
    int ids_state;          /* how far search_block read the block's template ids: 0 not, 1 counted, 2 all units */
    uint8_t *group_on;      /* per line group: holds a selected line */
    size_t group_on_cap;
    uint32_t *group_lines;  /* the lines of those groups */
    size_t group_lines_cap;
    uint8_t *maybe; /* per template: mask of the pieces its lines may hold */
    size_t maybe_cap;
    uint32_t *cand; /* lines of the block that may match (all lines with -v) */
    uint8_t *line_mask; /* per line: the pieces its parts' templates may hold */
    size_t line_cap;
    uint8_t *nfa;
    size_t nfa_cap;
    ltk_hashtab cache; /* distinct templates seen so far ... */
    int cache_ready;
    uint8_t *cache_val; /* ... and the mask of each */
    size_t cache_cap;
    int dense; /* the last block had many candidates: read every unit's template and rank */
    uint8_t *sure; /* per template: its literal text holds the whole fixed pattern */
    size_t sure_cap;
    uint8_t *psure; /* per template: the pieces its literal text holds */
    size_t psure_cap;
    uint32_t *look; /* candidates whose units are looked at before whole lines are rebuilt */
    size_t look_cap;
    uint8_t *dclean; /* per template: every digit of its lines comes from a numeric variable of its own */
    size_t dclean_cap;
    ltk_num_test *tests; /* number tests of the block (see number_filter) ... */
    size_t ntests, tests_cap;
    uint8_t *alive;       /* ... the alignments still possible per (template, piece) unit ... */
    size_t alive_cap;
    size_t *alive_off;    /* ... where each (template, piece) has its bytes, SIZE_MAX: not tested */
    size_t alive_off_cap;
    uint8_t *tested;      /* per template: the pieces it has number tests for */
    size_t tested_cap;
    uint8_t *elem_kind;   /* a template as elements: 0 literal byte, else its marker ... */
    uint8_t *elem_byte;   /* ... the literal byte ... */
    uint32_t *elem_slot;  /* ... or the numeric variable's index */
    size_t elem_cap;
    uint8_t *mark;        /* per template: the pieces all of its lines are marked with */
    size_t mark_cap;
    int tests_done;       /* number_filter ran for this block before marking ... */
    int test_pairs;       /* ... with this result */
    int had_tests;        /* the last block had number tests */
    struct align_memo *memo; /* per (cached template id, piece): its alignments' tests (see number_filter) ... */
    size_t memo_cap;         /* ... entries, ids * MAX_PIECES */
    ltk_num_test *memo_tests; /* ... the tests they point into */
    size_t memo_ntests, memo_tests_cap;
} search_ctx;

/* Worker threads and their search contexts (see the parallel path). */
typedef struct grep_pool grep_pool;
#define GREP_MAX_THREADS 16

/*
 * A piece of at most 64 bytes as bit masks (bit i: piece byte i): which
 * positions hold each (lower-cased) byte, and which positions a variable of
 * each kind can produce.
 */
typedef struct piece_masks {
    uint64_t byte[256];
    uint64_t var[LTK_M_LAST + 1]; /* indexed by variable marker (see ltk_is_var_marker) */
    uint64_t last;   /* the bit of the piece's last byte */
    uint64_t literal_need[4]; /* bytes of the whole piece no variable can produce (bit c) */
    /*
     * The piece's longest digit run with a non-digit on both sides inside
     * the piece (num_len 0: none), and its value: in a unit whose digits all
     * come from numeric variables, one variable must be written as exactly
     * these digits.
     */
    const char *num_digits;
    size_t num_len;
    uint64_t num_value;
} piece_masks;

/*
 * A phrase (a required text with blanks, at most 64 bytes) for the
 * bit-parallel check of whether a template's unit can hold its part of it.
 * Parts of a line start where a blank run starts, and variables never hold
 * a blank, so a unit that the phrase overlaps holds it whole, or holds a
 * prefix of it ending right before a blank run of the phrase (the next
 * part starts there), or a suffix of it starting at such a blank run, or the
 * stretch between two of them.  run_start has bit k - 1 set for each k > 0
 * where phrase byte k is a blank and byte k - 1 is not: the states a unit
 * may be entered in and left in.  pieces: the bits of the pieces found
 * inside the phrase, which only a unit passing this check can hold within
 * the phrase's occurrence.
 */
typedef struct phrase_masks {
    uint64_t byte[256];
    uint64_t var[LTK_M_LAST + 1]; /* positions a variable of each kind can produce (never a blank) */
    uint64_t last;
    uint64_t run_start;
    uint8_t pieces;
} phrase_masks;

struct logtk_grep {
    ltk_errbuf err;
    int flags;
    char *pattern;
    size_t plen;
    piece_set pieces; /* required texts of a match; none: no template check */
    piece_masks *masks; /* per piece, for the bit-parallel template check */
    phrase_masks *phrases; /* per phrase of pieces (pieces.nphrases) */
    ltk_regex *regex; /* the compiled pattern; NULL: -F without -i (memmem) */
    int sure_ok; /* -F, not -v, non-empty: a template literal holding the pattern makes its lines match */
    search_ctx main;
    int threads;
    grep_pool *pool;
};

#endif
