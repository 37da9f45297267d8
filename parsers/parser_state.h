/*
 * parser_state.h - internal: the state behind a logtk_parser handle, shared by
 * parser.c (templates, feeding, fitting, match) and parser_snapshot.c
 * (snapshots, content keys, merging).  Algorithms see the handle only through
 * parser_impl.h.
 */
#ifndef LTK_PARSER_STATE_H
#define LTK_PARSER_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "errmsg.h"
#include "hashtab.h"
#include "mask.h"
#include "parser_impl.h"
#include "strbuf.h"
#include "template_match.h"
#include "tokenize.h"
#include "u64map.h"

/* logtk_parser_new(..., NULL) and a snapshot naming no known algorithm */
#define LTK_PARSER_DEFAULT_ALGO (&ltk_algo_fuse)

/* ------------------------------------------------------------------- types */

typedef struct template_entry {
    logtk_slice *tokens; /* malloc'd; token bytes live in the parser's arena */
    uint32_t ntokens;
    uint32_t cap;
    uint64_t count;
    uint64_t created_serial; /* feed serial that created it */
    uint64_t changed_serial; /* feed serial of the last change */
    int pending;             /* queued for a callback */
    int text_dirty;
    /* The text shown for the template when it is not its tokens joined: the
       algorithm's template made to match every line assigned (fit_line);
       NULL when the tokens already match them all.  Malloc'd, NUL-ended. */
    char *shown;
    size_t shown_len;
    /* Some line has matched what the template shows: its words are facts
       about lines, not only the algorithm's guess (see fit_line). */
    int seen_line;
    int text_digit; /* the text holds a digit (fit_memo); -1: not yet asked */
    char *text; /* rendered text shown (malloc'd), valid when !text_dirty */
    size_t text_len;
    size_t text_cap;
    size_t nwild; /* "<*>" in text: the parameters of each line */
    uint32_t alias; /* ltk_tmpl_alias(): the template whose text this one shows; 0: none */
    /* renders of the text so far (fit_memo: the text a fit was made to); here
       and text_digit beside seen_line, in room the alignment leaves anyway:
       the entry stays 160 bytes, which entry() multiplies by per call */
    uint32_t text_version;
    /* How each word pairs with a line token (token_fit), made by render()
       with the text, so that fitting a line does not rescan the tokens for
       "<*>"; valid when !text_dirty and !shown.  The words are the tokens,
       or, when a token holds blanks (fit_split), the tokens cut at their
       blanks, kept after the nfit entries in the same block (fit_words()). */
    struct token_fit *fit;
    uint32_t nfit;      /* words fitted: entries of fit */
    uint16_t fit_split; /* some token holds a blank: the words follow fit */
    uint16_t fit_stale; /* fit is not yet made for the text rendered last (see classify_tokens) */
    /* the match index (logtk_parser_match): the bucket this template is in
       and its neighbours there; idx_stale: its text changed since */
    int idx_stale;
    int idx_in;
    uint64_t idx_key;
    uint32_t idx_prev, idx_next;
    size_t idx_literal; /* bytes of fixed text: the more, the more specific */
} template_entry;

/*
 * How one template token pairs with one line token.  Every line is fitted
 * to its template token by token, so this is worked out once per template
 * text instead of once per line.
 */
enum token_fit_kind {
    FIT_LITERAL, /* no '<': the same bytes */
    FIT_WILD,    /* "<*>": anything */
    FIT_ONE_STAR, /* prefix "<*>" suffix, no blank: both ends compare, the middle is the value */
    FIT_GLOB     /* anything else with a '<': the glob matcher */
};
typedef struct token_fit {
    uint32_t kind;
    uint32_t stars;  /* "<*>" in the token: the parameters it takes */
    uint32_t before; /* parameters taken by the tokens before it */
    uint32_t prefix; /* FIT_ONE_STAR: bytes before the "<*>" */
} token_fit;

typedef struct param_pair {
    char *name;
    char *value;
} param_pair;

struct logtk_parser {
    const ltk_parser_algo *algo;
    void *state;
    ltk_errbuf err;

    ltk_masker *masker;
    ltk_tokens tokens;
    uint64_t tokens_serial; /* tokens hold the masked line fed at this serial; 0: another text */

    template_entry *templates; /* id - 1 */
    uint32_t ntemplates;
    size_t templates_cap;
    ltk_arena token_arena;

    int keep_assignments;
    uint32_t *assign; /* line index - assign_base -> template id */
    uint64_t assign_len;
    uint64_t assign_cap;
    uint64_t assign_base; /* lines before this one (fed before a load) are not kept */
    uint64_t lines;
    int finished;

    logtk_template_callback callback;
    void *callback_user;
    uint64_t serial; /* feed counter, starts at 1; finish uses its own */
    uint32_t *pending; /* templates touched in this feed/finish, for callbacks */
    size_t npending;
    size_t pending_cap;

    param_pair *params;
    size_t nparams;

    logtk_slice *param_out; /* ev->params */
    size_t param_out_cap;
    ltk_tmatch_scratch merge;   /* fit_line, keep_covering */
    ltk_strbuf scratch_new;     /* keep_covering: the new tokens joined */

    /* batch algorithms: the original content of each line fed, so that the
       templates made in finish can be fitted to their lines */
    ltk_strbuf batch_content;
    uint64_t *batch_offsets; /* line k (from assign_base) is [off[k], off[k+1]) */
    uint64_t batch_lines;
    uint64_t batch_offsets_cap;

    ltk_hashtab dict; /* batch helpers: token dictionary */
    int dict_ready;
    uint32_t *stored_tokens;
    uint64_t stored_len;
    uint64_t stored_cap;
    uint64_t *stored_offsets; /* line k occupies [off[k], off[k+1]) */
    uint64_t stored_lines;
    uint64_t stored_offsets_cap;

    ltk_hashtab tmpl_by_ids; /* ltk_tmpl_from_token_ids: token-id sequence -> */
    int tmpl_by_ids_ready;
    uint32_t *tmpl_of_ids;     /* ... index -> template id */
    size_t tmpl_of_ids_cap;
    logtk_slice *ids_slices;   /* scratch: the sequence as slices */
    size_t ids_slices_cap;

    logtk_slice *param_names; /* ev->param_names, when a mask has a name */
    size_t param_names_cap;

    /* logtk_parser_match: templates bucketed by their first token when it is
       fixed text (key: its hash), else in the bucket WILD_FIRST_KEY; a map
       from key to the first template of the bucket, the rest linked through
       the templates.  text_epoch counts text changes, index_epoch the one
       the index reflects, so a match after no change costs no scan. */
    ltk_u64map index_heads;
    int index_ready;
    uint64_t text_epoch;
    uint64_t index_epoch;
    uint32_t index_count; /* templates 1..index_count have been seen by the index */

    /* fits of lines by their shape (fit_memo in parser.c): line_shape is
       the line being fed's (ltk_parser_note_shape), 0 when the algorithm gave
       none; feed_fits are fits made while feeding, made at the first shape
       given, and extract_fits those of logtk_parser_extract(), made at its
       first call: the two fit a line by different means (tokens first, or
       the glob matcher), which may place a parameter differently */
    uint64_t line_shape;
    struct fit_table {
        struct fit_memo *slots;
        /* the parameters past a slot's own (FIT_MEMO_MORE per slot, at the
           slot's index), made at the first fit that has more: NULL until then */
        uint16_t (*more)[2];
        /* fit_literal_hash() of a slot's line (at its index) for a slot
           marked literal, made at the first: NULL until then */
        uint64_t *literals;
        size_t nslots;
        size_t evictions; /* fits that pushed out another since the table was made */
        size_t hits;      /* lines fitted by shape since then */
    } feed_fits, extract_fits;

    /* ltk_parser_note_cap (parser_caps.c): what the algorithm's documented
       caps cut, summed over calls, and their messages joined by "; " */
    uint64_t capped;
    char capped_what[512];
};

/* Template id -> its entry, or NULL for 0 and ids past the end. */
static inline template_entry *entry(const logtk_parser *p, uint32_t id)
{
    if (id == 0 || id > p->ntemplates)
        return NULL;
    return &p->templates[id - 1];
}

/* Sets the handle's error to "out of memory"; returns LOGTK_ERR_NOMEM. */
int ltk_parser_nomem(logtk_parser *p);

/* ltk_array_reserve() for size_t capacities, through the 64-bit checks. */
int ltk_parser_grow_size(void **arr, size_t *cap, size_t need, size_t elem);

/* An empty handle of algorithm algo (its state created, no masks, no lines). */
int ltk_parser_create(logtk_parser **out, const ltk_parser_algo *algo);

/* Renders t's text (and its token fit) if it changed since the last render. */
int ltk_parser_render(logtk_parser *p, template_entry *t);

/* Sets the text t shows (a copy of text[0..len)), or NULL: its own. */
int ltk_parser_set_shown(logtk_parser *p, template_entry *t, const char *text, size_t len);

/* The id whose text template id shows (following aliases). */
uint32_t ltk_parser_shown_id(const logtk_parser *p, uint32_t id);

/* The template id logtk_parser_match() gives the content, without filling an
   event (cheaper where the algorithm has no search of its own); returns as it. */
int ltk_parser_match_id(logtk_parser *p, const char *content, size_t len, uint32_t *template_id);

/* logtk_parser_rematch_reader(): per template id i (1 <= i < n) of a shard,
   answer[i] is p's template for every line the shard assigned to i unless
   one of rivals[rival_at[i] .. rival_at[i + 1]) matches the line (the first
   that does, in that order, is the answer); answer[i] 0: match in full.  A
   plan holds while p's templates do not change. */
typedef struct ltk_shard_plan {
    uint32_t n;
    uint32_t *answer;
    uint32_t *rival_at;
    uint32_t *rivals;
    size_t nrivals;
    uint32_t cur; /* the shard id being planned */
} ltk_shard_plan;

/* Plans shard's ids against p (all answers 0 when p's algorithm has its own search). */
int ltk_parser_shard_plan(logtk_parser *p, logtk_parser *shard, ltk_shard_plan *plan);
void ltk_shard_plan_free(ltk_shard_plan *plan);

/* Does p's indexed template id match content, as the search tests it? */
int ltk_parser_template_matches(const logtk_parser *p, uint32_t id, const char *content,
                                size_t len);

/* The registered algorithm of this name (name[0..len), not NUL-terminated), or NULL. */
const ltk_parser_algo *ltk_parser_algo_by_name(const char *name, size_t len);

#endif
