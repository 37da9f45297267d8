/*
 * fuse_impl.h - the fuse parser's state, shared by parser_fuse.c,
 * fuse_header.c and fuse_snapshot.c (internal to those files).
 */
#ifndef LTK_FUSE_IMPL_H
#define LTK_FUSE_IMPL_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuse_shape.h"
#include "mix.h"
#include "parser_impl.h"
#include "strbuf.h"
#include "u64map.h"

#define FUSE_NO_ID UINT32_MAX

/* For the few small helpers of the per-byte and per-token loops. */
#if defined(__GNUC__)
#define FUSE_INLINE static inline __attribute__((always_inline))
#else
#define FUSE_INLINE static inline
#endif

/*
 * A slot keeps up to this many distinct words.  The first is kept in the
 * group (or pool) itself and the rest in an ltk_fuse_more block, made when
 * a second word comes: on Loghub-2k 98% of groups and pools never see one,
 * and a group of 48 bytes instead of 152 is what a log full of new
 * messages (Mac: 3,500 groups in 2,000 lines) touches in fresh memory.
 */
#define FUSE_SLOT_VALUES 8

/* Words 2 to FUSE_SLOT_VALUES of one group or pool (st->more_list). */
typedef struct ltk_fuse_more {
    uint64_t values[FUSE_SLOT_VALUES - 1];
    uint32_t members[FUSE_SLOT_VALUES - 1]; /* a group's templates; unused by a pool */
} ltk_fuse_more;

typedef struct ltk_fuse_group {
    uint64_t value0;   /* first distinct word hash seen at the free position (ltk_fuse_slot_value) */
    uint32_t member0;  /* template holding value0 */
    uint32_t more;     /* 1 + index into more_list of the other words; 0 until a second */
    uint32_t position;
    uint32_t pool;         /* prefix pool of the slot (ltk_fuse_pool), FUSE_NO_ID when none */
    uint32_t next_in_pool; /* next group of the same pool, FUSE_NO_ID at the end */
    uint8_t nvalues;
    uint8_t promoted;
    uint8_t varform_seen; /* some line showed the slot's variable form */
    uint8_t value_like;   /* some word seen there looks like a value (looks_like_value) */
    uint8_t shape_seen;   /* some word seen there is variables only ("<*>,<*>") */
    uint8_t non_unit;     /* some word seen there is not a unit of size (is_size_unit) */
    uint8_t plain_word;   /* some word seen there does not look like a value */
    uint8_t non_event;    /* some word seen there is neither a past participle nor a code symbol */
    uint8_t non_numbered; /* some word seen there is not a numbered unit's name (is_slot_unit) */
    uint8_t dotted_names; /* distinct dotted names seen there (is_dotted_name), up to 2 */
    uint8_t quoted_words; /* distinct quoted words seen there (is_quoted_word), up to 2 */
    uint8_t booleans;     /* boolean_word() of each word seen there, or-ed */
    uint8_t non_constant; /* some word seen there is not a constant's name (is_enum_name) */
} ltk_fuse_group;

/*
 * The evidence of one slot pooled over every sibling group whose line
 * shares the words before the slot ("session opened for user _", whatever
 * follows): the distinct words seen there in any of them, and the chain of
 * those groups.
 */
typedef struct ltk_fuse_pool {
    uint64_t value0;      /* first distinct word hash seen at the slot, over all its groups */
    uint32_t more;        /* 1 + index into more_list of the other words; 0 until a second */
    uint32_t first_group; /* chain of member groups (ltk_fuse_group.next_in_pool) */
    uint8_t nvalues;
    uint8_t varform_seen; /* some line of some group showed the slot's variable form */
} ltk_fuse_pool;

/*
 * Groups and pools live in blocks of FUSE_BLOCK entries that never move:
 * growing adds a block.  A doubled array copies every entry each time and
 * holds the old and the new copy at once, memory that each fresh parser
 * touches anew (Mac's 3,500 groups in 2,000 lines).
 */
#define FUSE_BLOCK_BITS 9
#define FUSE_BLOCK (1u << FUSE_BLOCK_BITS)

/*
 * Whole-token variables closing a line are a printed list, one "<*>", when
 * there are at least this many: messages print at most four fixed fields in
 * a row ("REPORT : <*> <*> <*> <*>", written so by the ground truths),
 * while a list ("delete blk_1 blk_2 ... blk_100") has any length.  Fewer
 * are a list too once the same words closed a line with another number of
 * them (rule list-lengths, list_kin() in parser_fuse.c).
 */
#define FUSE_LIST_MIN 5

/* Hashes of "<*>", "<*>.", "<*>.." and "<*>...": a whole-token number with sentence dots. */
#define FUSE_WILD_DOTS 4

/* template lengths slot_positions tells apart (rule known-slots) */
#define FUSE_SLOT_LENGTHS 64
/* words of a line known-slots pairs at most */
#define FUSE_SLOT_PAIRS 32

/*
 * Memo of mask_token(): the hash of a token's masked form by the token's
 * bytes.  Tokens with punctuation ("key=value", "name:", "(x)") go through
 * the byte-wise mask, the costliest step of a line, and the same ones come
 * back line after line; the memo answers them with one probe and a compare
 * of a few words.  Direct-mapped: a token simply replaces the one in its
 * slot.  It is made on first use with its slots marked empty (only their
 * lengths written), and grows (emptied) while tokens keep replacing others
 * and a fair share of tokens are found, up to a bound.  It is a cache of a pure function, so what is parsed does
 * not depend on it (nor is it saved in snapshots).
 */
#define FUSE_MEMO_WORDS 5 /* tokens up to 40 bytes */
/* 512 slots (52 KB) to start: emptying 4096 (426 KB) in a fresh parser took
   about a hundred page faults, most of a 2,000-line log's faults */
#define FUSE_MEMO_MIN 512
#define FUSE_MEMO_MAX 16384
typedef struct ltk_fuse_memo {
    uint64_t words[FUSE_MEMO_WORDS]; /* the token's bytes, zero after its end */
    uint64_t masked;                 /* hash of its masked form (hash_padded of mask_token) */
    uint32_t len;                    /* bytes of the token (when memo_filled says it holds one) */
    uint16_t form_len;               /* bytes of the masked form in form; 0: too long to keep */
    uint16_t kept_digit;             /* the masked form holds a digit (see fuse_shape.c) */
    char form[8 * FUSE_MEMO_WORDS];  /* the masked form, for a line that misses the table */
} ltk_fuse_memo;

typedef struct ltk_fuse_state {
    long threshold;
    long max_entries;
    int header_auto; /* "header=auto": find and wildcard the line's header (header_length) */
    int line_cache;  /* "line_cache=shapes" (1, the default) or "none" (0): see fuse_shape.h */

    ltk_u64map exact;  /* sequence hash -> template id */
    ltk_u64map groups; /* sibling key -> group index (ltk_fuse_group_at) */
    ltk_fuse_group **group_blocks; /* see FUSE_BLOCK */
    size_t ngroups, group_nblocks, group_blocks_cap;
    ltk_u64map pools; /* prefix key (pool_key) -> pool index (ltk_fuse_pool_at) */
    ltk_fuse_pool **pool_blocks;
    size_t npools, pool_nblocks, pool_blocks_cap;
    ltk_fuse_more *more_list; /* words 2.. of the groups and pools that saw more than one */
    size_t nmore, more_cap;
    uint32_t *redirect; /* template id -> earlier id with the same text (itself when none) */
    /* template id -> bit p (ltk_fuse_slot_bit) set where a promoted group made
       it a variable: words varied there (known_slots); merged into the
       template it joins.  Saved, though ltk_fuse_note_templates() reads most
       of it from the groups again: a merge's fold takes places from the
       shards (ltk_fuse_take_places) that no group of its own holds. */
    uint64_t *word_slots;
    size_t redirect_cap; /* of both */
    ltk_u64map by_text;  /* content hash -> template id */
    /*
     * Per template length n (the last entry: FUSE_SLOT_LENGTHS - 1 or more),
     * bit p (the last bit: 63 or later) set when a template of that length
     * has p in its word_slots: the only places rule known-slots takes a
     * word.  Bits are never cleared (a template merged keeps its bits).
     */
    uint64_t slot_positions[FUSE_SLOT_LENGTHS];
    /* templates a promotion generalized, to be settled in their new sequence
       once the line that promoted is done (settle_template, parser_fuse.c) */
    uint32_t *unsettled;
    size_t nunsettled, unsettled_cap;
    /* the twin groups (rule twins), for the look at the end (finish_twins).
       Not saved: ltk_fuse_note_templates() reads it from the groups. */
    uint32_t *twin_groups;
    size_t ntwin_groups, twin_groups_cap;

    uint64_t wild_dots[FUSE_WILD_DOTS]; /* hashes of "<*>", "<*>.", ... (quick_token_hash) */
    uint64_t wild_comma;                /* hash of "<*>,": a cell of a list "a, b, c" */
    int comma_lists;                    /* some line closed with such a list (list_kin) */
    /* rule text-tails (parser_fuse.c, read_text_tail): per family (the
       sequence hash of the words up to a key) its tails counted, packed as
       read_text_tail packs them; and the keys shown to hold text (key hash
       -> 1) */
    ltk_u64map text_tails;
    ltk_u64map text_keys;
    int text_keys_new; /* a line showed a key to hold text: join the tails seen */
    /* rule transitions (parser_fuse.c, transition_fold): per family (the
       sequence hash with "<*>" at a transition's two places) its lines
       counted, FUSE_TRANSITION_PROVEN set once its templates showed a state
       at both places */
    ltk_u64map transitions;
#define FUSE_TRANSITION_PROVEN 0x10000u /* (below it, the lines counted, to 0xffff) */
#define FUSE_TRANSITION_LIMIT 0x20000u  /* every value is below it */
    int transitions_new; /* a family's count reached a step: read its templates */
    size_t transition_folds; /* the line's constants transition_fold() made "<*>" */
    /* the places where the shard's template fed next took words, and its
       tokens (logtk_parser_merge's fold, fuse_merge_places); 0 otherwise */
    uint64_t merge_places;
    size_t merge_ntokens;
    /* the budget of reads of every template (learn_sequence; not saved: a
       loaded state starts with a read at once) */
    uint64_t reads_earned, reads_spent;
#define FUSE_READ_WORK 16 /* templates read per line of a new sequence, at most */
#define FUSE_FOLD_NOMEM ((size_t)-1)

    /* per-line scratch, reused */
    ltk_strbuf norm;
    size_t *tok_off, *tok_len;
    uint64_t *tok_hash;
    uint8_t *tok_wild;
    uint8_t *tok_form;  /* per token: its masked form as the quick hash found it (FORM_*) */
    logtk_slice *tok;
    logtk_slice *kept;  /* the line's tokens without quantity asides (slow path) */
    size_t tok_cap;
    size_t *wf_prefix;  /* per token: bytes kept by its variable form before "<*>" */
    size_t *wf_suffix;  /* per token: bytes kept after "<*>" */
    uint64_t *wf_hash;  /* per token: hash of its variable form */
    uint64_t *salt_tok, *salt_wf; /* per token: salted() of tok_hash and of wf_hash (slow path) */
    uint64_t *sib_key;  /* per token: its sibling key as the first promotion round made it */
    uint32_t *sib_group; /* per token: the group found at that key then (FUSE_NO_ID: none) */
    ltk_u64map_spot *sib_spot; /* per token: where the probe for sib_key ended then */
    uint8_t *sib_known;  /* per token: 1 when sib_key and sib_group were set for this line */
    ltk_strbuf stash;  /* masked forms made while hashing the line (FORM_STASHED) */
    size_t *stash_off, *stash_len; /* per token: its masked form in stash */
    ltk_strbuf wform; /* variable forms, for template tokens */
    ltk_strbuf wfscratch; /* one variable form being hashed */
    logtk_slice *edit;  /* template tokens being generalized */
    size_t edit_cap;
    ltk_fuse_memo *memo;    /* see ltk_fuse_memo; NULL until a token needs it */
    uint64_t *memo_filled;  /* one bit per slot of memo, set when it holds a token (memo_grow) */
    size_t memo_slots;  /* a power of two */
    size_t memo_evictions; /* tokens that replaced another since the memo last grew */
    size_t memo_hits;      /* tokens the memo answered since it last grew */
    ltk_fuse_shape_cache shapes; /* line shape -> sequence hash (fuse_shape.h) */
} ltk_fuse_state;

/* Bit of position pos in a slot_positions mask. */
static inline uint64_t ltk_fuse_slot_bit(size_t pos)
{
    return (uint64_t)1 << (pos < 63 ? pos : 63);
}

/* The slot_positions mask of template length n. */
static inline uint64_t *ltk_fuse_slots_of_length(ltk_fuse_state *st, size_t n)
{
    return &st->slot_positions[n < FUSE_SLOT_LENGTHS ? n : FUSE_SLOT_LENGTHS - 1];
}

/* A key's value, FUSE_NO_ID when absent. */
static inline uint32_t map_get(const ltk_u64map *m, uint64_t key)
{
    const uint32_t *v = ltk_u64map_lookup(m, key);
    return v ? *v : FUSE_NO_ID;
}

static inline int is_alnum_byte(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static inline int is_letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/*
 * A name: a letter, then letters, digits and the bytes of `extra` (a URI
 * scheme's "+-.", a logger's "._$").
 */
static inline int is_name_of(const char *s, size_t n, const char *extra)
{
    if (n == 0 || !is_letter(s[0]))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!is_alnum_byte(s[i]) && (s[i] == '\0' || !strchr(extra, s[i])))
            return 0;
    return 1;
}

/* Nonzero when s[0..n) is bytes from lo to hi only (n > 0): digits, capitals. */
static inline int is_all_between(const char *s, size_t n, char lo, char hi)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < lo || s[i] > hi)
            return 0;
    return n > 0;
}

/** Group g (below ngroups). */
static inline ltk_fuse_group *ltk_fuse_group_at(const ltk_fuse_state *st, uint32_t g)
{
    return &st->group_blocks[g >> FUSE_BLOCK_BITS][g & (FUSE_BLOCK - 1)];
}

/** Pool k (below npools). */
static inline ltk_fuse_pool *ltk_fuse_pool_at(const ltk_fuse_state *st, uint32_t k)
{
    return &st->pool_blocks[k >> FUSE_BLOCK_BITS][k & (FUSE_BLOCK - 1)];
}

/* ---- fuse_state.c: parameters, release, the store of groups and pools ---- */

/** Sets fuse's parameter `name` (threshold, max_entries, header, line_cache); the ops' set_param. */
int ltk_fuse_set_param(logtk_parser *p, void *state, const char *name, const char *value);
/** Frees everything the state holds (not the state itself); the ops' destroy. */
void ltk_fuse_destroy(void *state);


/**
 * One more block of FUSE_BLOCK entries of `elem` bytes (*nblocks made, *cap
 * pointers): 0, or -1 when out of memory.
 */
int ltk_fuse_add_block(void ***blocks, size_t *nblocks, size_t *cap, size_t elem);
/** A new block for words 2.. of a group or pool: its 1-based index, 0 when out of memory. */
uint32_t ltk_fuse_new_more(ltk_fuse_state *st);
/** Frees the groups and pools: there are none. */
void ltk_fuse_free_groups(ltk_fuse_state *st);

/**
 * Makes group ngroups (no words, no pool) and counts it: its index, or
 * FUSE_NO_ID when out of memory.
 */
FUSE_INLINE uint32_t ltk_fuse_new_group(ltk_fuse_state *st)
{
    if ((st->ngroups >> FUSE_BLOCK_BITS) >= st->group_nblocks &&
        (st->ngroups >= FUSE_NO_ID ||
         ltk_fuse_add_block((void ***)&st->group_blocks, &st->group_nblocks, &st->group_blocks_cap,
                            sizeof **st->group_blocks) != 0))
        return FUSE_NO_ID;
    /*
     * Field by field, not as one struct assignment: in learn_sequence
     * (compiled for size) that becomes a "rep stos", whose start-up costs
     * more than these stores (a fresh parser makes a group per new word).
     */
    ltk_fuse_group *g = ltk_fuse_group_at(st, (uint32_t)st->ngroups);
    g->value0 = 0;
    g->member0 = g->more = g->position = 0;
    g->pool = g->next_in_pool = FUSE_NO_ID;
    g->nvalues = g->promoted = g->varform_seen = g->value_like = g->shape_seen = 0;
    g->non_unit = g->plain_word = g->non_event = g->non_numbered = g->dotted_names = 0;
    g->quoted_words = g->booleans = g->non_constant = 0;
    return (uint32_t)st->ngroups++;
}

/** Makes pool npools (no words, no groups) and counts it: its index, or FUSE_NO_ID. */
FUSE_INLINE uint32_t ltk_fuse_new_pool(ltk_fuse_state *st)
{
    if ((st->npools >> FUSE_BLOCK_BITS) >= st->pool_nblocks &&
        (st->npools >= FUSE_NO_ID ||
         ltk_fuse_add_block((void ***)&st->pool_blocks, &st->pool_nblocks, &st->pool_blocks_cap,
                            sizeof **st->pool_blocks) != 0))
        return FUSE_NO_ID;
    ltk_fuse_pool *k = ltk_fuse_pool_at(st, (uint32_t)st->npools); /* see ltk_fuse_new_group */
    k->value0 = 0;
    k->more = 0;
    k->first_group = FUSE_NO_ID;
    k->nvalues = k->varform_seen = 0;
    return (uint32_t)st->npools++;
}

/** Word v (below nvalues) of a group or pool whose first is value0 and whose `more` is more. */
static inline uint64_t ltk_fuse_slot_value(const ltk_fuse_state *st, uint64_t value0, uint32_t more,
                                           uint32_t v)
{
    return v == 0 ? value0 : st->more_list[more - 1].values[v - 1];
}

/** The template of group g's word v (below nvalues). */
static inline uint32_t ltk_fuse_group_member(const ltk_fuse_state *st, const ltk_fuse_group *g,
                                             uint32_t v)
{
    return v == 0 ? g->member0 : st->more_list[g->more - 1].members[v - 1];
}

/**
 * Appends word `value` of template `member` to group g (below
 * FUSE_SLOT_VALUES words): 0, or -1 when out of memory (g unchanged).
 */
FUSE_INLINE int ltk_fuse_group_keep(ltk_fuse_state *st, ltk_fuse_group *g, uint64_t value,
                                    uint32_t member)
{
    assert(g->nvalues < FUSE_SLOT_VALUES);
    if (g->nvalues == 0) {
        g->value0 = value;
        g->member0 = member;
    } else {
        if (g->more == 0 && (g->more = ltk_fuse_new_more(st)) == 0)
            return -1;
        st->more_list[g->more - 1].values[g->nvalues - 1] = value;
        st->more_list[g->more - 1].members[g->nvalues - 1] = member;
    }
    g->nvalues++;
    return 0;
}

/** Appends word `value` to pool p (below FUSE_SLOT_VALUES words): 0, or -1 when out of memory. */
FUSE_INLINE int ltk_fuse_pool_keep(ltk_fuse_state *st, ltk_fuse_pool *p, uint64_t value)
{
    assert(p->nvalues < FUSE_SLOT_VALUES);
    if (p->nvalues == 0) {
        p->value0 = value;
    } else {
        if (p->more == 0 && (p->more = ltk_fuse_new_more(st)) == 0)
            return -1;
        st->more_list[p->more - 1].values[p->nvalues - 1] = value;
    }
    p->nvalues++;
    return 0;
}
/** Nonzero when s[0..n) is a month or weekday name (the calendar masking rule). */
int ltk_fuse_is_calendar_word(const char *s, size_t n);
/** The template id stands for: itself, or the one it joined (and so on). */
static inline uint32_t ltk_fuse_resolve(const ltk_fuse_state *st, uint32_t id)
{
    while (id < st->redirect_cap && st->redirect[id] != 0 && st->redirect[id] != id)
        id = st->redirect[id];
    return id;
}

/** Makes room for a redirect (and the word_slots) of template id: 0, or -1 when out of memory. */
int ltk_fuse_ensure_redirect(ltk_fuse_state *st, uint32_t id);

/*
 * Fills word_slots and slot_positions from the promoted groups, as learning
 * them one by one would have, and the list of twin groups: a snapshot does
 * not hold them (parser_fuse.c).  After the groups and redirects are
 * loaded.  0, or -1 on no memory.
 */
int ltk_fuse_note_templates(logtk_parser *p, ltk_fuse_state *st);

/*
 * Template id (resolved) takes words at `places` (bits of
 * ltk_fuse_slot_bit(), kept only where its token holds "<*>"), as a promoted
 * group's places are noted: a merged shard's or a saved state's.  0, or -1
 * on no memory.
 */
int ltk_fuse_take_places(logtk_parser *p, ltk_fuse_state *st, uint32_t id, uint64_t places);

#endif
