/*
 * fuse_snapshot.c - the fuse parser's state saved to bytes and loaded back
 * (the maps, sibling groups, redirects and prefix pools).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuse_impl.h"
#include "fuse_snapshot.h"
#include "growarray.h"

/*
 * Blob layout (all varints): the three maps as (count, then key/value
 * pairs), the sibling groups (count, then position, flags, a 0 where states
 * saved before rule unit-slots kept a numbered name's stem, pool + 1,
 * next group of the pool + 1, nvalues and the value/member pairs), the
 * redirects (count, then id/target pairs), the pool map and the prefix
 * pools (count, then first group + 1, varform flag, nvalues, values), then
 * rule text-tails' two maps (absent from a state saved before them).
 * Keys are hashes of token text, so they are stable across builds of the
 * same version; template ids refer to the shared template store.
 */
typedef struct fuse_pair {
    uint64_t key;
    uint32_t value;
} fuse_pair;

static int pair_order(const void *a, const void *b)
{
    uint64_t x = ((const fuse_pair *)a)->key, y = ((const fuse_pair *)b)->key;
    return x < y ? -1 : x > y;
}

/*
 * Entries in key order, not slot order: the slot layout depends on the
 * table's growth history, and equal content must give equal bytes.
 */
static int save_map(ltk_strbuf *out, const ltk_u64map *m)
{
    fuse_pair *pairs = malloc((m->count ? m->count : 1) * sizeof *pairs);
    if (!pairs)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < m->nslots; i++)
        if (m->used[i]) {
            pairs[k].key = ltk_u64map_key(&m->slots[i]);
            pairs[k].value = m->slots[i].value;
            k++;
        }
    qsort(pairs, k, sizeof *pairs, pair_order);
    int rc = ltk_strbuf_put_varint(out, k);
    for (size_t i = 0; rc == 0 && i < k; i++)
        rc = ltk_strbuf_put_varint(out, pairs[i].key) != 0 ||
                     ltk_strbuf_put_varint(out, pairs[i].value) != 0
                 ? -1
                 : 0;
    free(pairs);
    return rc;
}

int ltk_fuse_save(logtk_parser *p, void *state, ltk_strbuf *out)
{
    ltk_fuse_state *st = state;
    int ok = save_map(out, &st->exact) == 0 && save_map(out, &st->groups) == 0 &&
             save_map(out, &st->by_text) == 0 &&
             ltk_strbuf_put_varint(out, st->ngroups) == 0;
    for (size_t g = 0; ok && g < st->ngroups; g++) {
        const ltk_fuse_group *grp = ltk_fuse_group_at(st, (uint32_t)g);
        ok = ltk_strbuf_put_varint(out, grp->position) == 0 &&
             ltk_strbuf_put_varint(out, (uint64_t)(grp->promoted | grp->varform_seen << 1 |
                                                    grp->value_like << 2 | grp->shape_seen << 3 |
                                                    grp->non_unit << 4 | grp->plain_word << 5 |
                                                    grp->non_event << 6 |
                                                    grp->non_numbered << 7 |
                                                    (grp->dotted_names > 0) << 8 |
                                                    (grp->quoted_words > 0) << 9 |
                                                    /* rule booleans: another word, then the flag words */
                                                    (uint64_t)(grp->booleans >> 7) << 10 |
                                                    (uint64_t)(grp->booleans & 0x0fu) << 11 |
                                                    /* rule enum-slots: constants' names only */
                                                    (uint64_t)!grp->non_constant << 15)) == 0 &&
             ltk_strbuf_put_varint(out, 0) == 0 && /* the stem's place */
             ltk_strbuf_put_varint(out, (uint32_t)(grp->pool + 1u)) == 0 &&
             ltk_strbuf_put_varint(out, (uint32_t)(grp->next_in_pool + 1u)) == 0 &&
             ltk_strbuf_put_varint(out, grp->nvalues) == 0;
        for (uint32_t v = 0; ok && v < grp->nvalues; v++)
            ok = ltk_strbuf_put_varint(out, ltk_fuse_slot_value(st, grp->value0, grp->more, v)) == 0 &&
                 ltk_strbuf_put_varint(out, ltk_fuse_group_member(st, grp, v)) == 0;
    }
    size_t nredirect = 0;
    for (size_t i = 0; i < st->redirect_cap; i++)
        nredirect += st->redirect[i] != 0 && st->redirect[i] != i;
    ok = ok && ltk_strbuf_put_varint(out, nredirect) == 0;
    for (size_t i = 0; ok && i < st->redirect_cap; i++)
        if (st->redirect[i] != 0 && st->redirect[i] != i)
            ok = ltk_strbuf_put_varint(out, i) == 0 &&
                 ltk_strbuf_put_varint(out, st->redirect[i]) == 0;
    ok = ok && save_map(out, &st->pools) == 0 && ltk_strbuf_put_varint(out, st->npools) == 0;
    for (size_t k = 0; ok && k < st->npools; k++) {
        const ltk_fuse_pool *pool = ltk_fuse_pool_at(st, (uint32_t)k);
        ok = ltk_strbuf_put_varint(out, (uint32_t)(pool->first_group + 1u)) == 0 &&
             ltk_strbuf_put_varint(out, (uint64_t)pool->varform_seen) == 0 &&
             ltk_strbuf_put_varint(out, pool->nvalues) == 0;
        for (uint32_t v = 0; ok && v < pool->nvalues; v++)
            ok = ltk_strbuf_put_varint(out, ltk_fuse_slot_value(st, pool->value0, pool->more, v)) == 0;
    }
    /* rule text-tails' families and keys (a state saved before them ends here) */
    ok = ok && save_map(out, &st->text_tails) == 0 && save_map(out, &st->text_keys) == 0;
    /* rule transitions' families (a state saved before them ends here) */
    ok = ok && save_map(out, &st->transitions) == 0;
    /* the places where templates took words (a state saved before them ends
       here): the groups give most again, but not what a merge's fold took
       from its shards */
    size_t nplaces = 0;
    for (uint32_t id = 1; id < st->redirect_cap; id++)
        nplaces += st->word_slots[id] != 0 && ltk_fuse_resolve(st, id) == id;
    ok = ok && ltk_strbuf_put_varint(out, nplaces) == 0;
    for (uint32_t id = 1; ok && id < st->redirect_cap; id++)
        if (st->word_slots[id] != 0 && ltk_fuse_resolve(st, id) == id)
            ok = ltk_strbuf_put_varint(out, id) == 0 &&
                 ltk_strbuf_put_varint(out, st->word_slots[id]) == 0;
    return ok ? LOGTK_OK : ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
}

#define FUSE_BAD(what) ltk_parser_error(p, LOGTK_ERR_STATE, "fuse state: %s", what)

/* Reads one map whose values must be below `limit`; 1 on bad data, -1 on no memory. */
static int load_map(const uint8_t **pos, const uint8_t *end, ltk_u64map *m, uint64_t limit)
{
    uint64_t count, key, value;
    if (ltk_snap_varint(pos, end, &count) != 0 || count > (uint64_t)(end - *pos) / 2)
        return 1;
    for (uint64_t i = 0; i < count; i++) {
        if (ltk_snap_varint(pos, end, &key) != 0 || ltk_snap_varint(pos, end, &value) != 0 ||
            value >= limit || map_get(m, key) != FUSE_NO_ID)
            return 1;
        if (ltk_u64map_put(m, key, (uint32_t)value) != 0)
            return -1;
    }
    return 0;
}

int ltk_fuse_load(logtk_parser *p, void *state, const uint8_t *data, size_t len)
{
    ltk_fuse_state *st = state;
    const uint8_t *pos = data, *end = data + len;
    uint64_t ntemplates = (uint64_t)ltk_tmpl_count(p) + 1, v, k;
    if (ntemplates > 1 && ltk_fuse_ensure_redirect(st, (uint32_t)(ntemplates - 1)) != 0)
        return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
    int rc = load_map(&pos, end, &st->exact, ntemplates);
    if (rc == 0)
        rc = load_map(&pos, end, &st->groups, UINT32_MAX);
    if (rc == 0)
        rc = load_map(&pos, end, &st->by_text, ntemplates);
    if (rc < 0)
        return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
    if (rc > 0)
        return FUSE_BAD("bad map");
    if (ltk_snap_varint(&pos, end, &v) != 0 || v > (uint64_t)(end - pos) / 3)
        return FUSE_BAD("bad group count");
    ltk_fuse_free_groups(st); /* the snapshot's groups and pools replace any */
    for (uint64_t g = 0; g < v; g++)
        if (ltk_fuse_new_group(st) == FUSE_NO_ID)
            return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
    for (size_t g = 0; g < st->ngroups; g++) {
        ltk_fuse_group *grp = ltk_fuse_group_at(st, (uint32_t)g);
        uint64_t position, promoted, nvalues, stem, pool, next, value;
        if (ltk_snap_varint(&pos, end, &position) != 0 || position > UINT32_MAX ||
            ltk_snap_varint(&pos, end, &promoted) != 0 || promoted >= 1u << 16 ||
            ltk_snap_varint(&pos, end, &stem) != 0 ||
            ltk_snap_varint(&pos, end, &pool) != 0 || pool > UINT32_MAX ||
            ltk_snap_varint(&pos, end, &next) != 0 || next > st->ngroups ||
            ltk_snap_varint(&pos, end, &nvalues) != 0 || nvalues > 8)
            return FUSE_BAD("bad group");
        /* stem: no longer read; an older state's non_numbered 0 (one stem)
           still holds (numbered names only) */
        (void)stem;
        grp->pool = (uint32_t)(pool - 1); /* FUSE_NO_ID when 0; checked against the pools below */
        grp->next_in_pool = (uint32_t)(next - 1);
        grp->non_event = (uint8_t)(promoted >> 6 & 1);
        grp->non_numbered = (uint8_t)(promoted >> 7 & 1);
        /* one bit: a slot that saw two is promoted, so it needs the count no more */
        grp->dotted_names = (uint8_t)(promoted >> 8 & 1);
        grp->quoted_words = (uint8_t)(promoted >> 9 & 1);
        /* a state saved before rule booleans holds none: its slots wait for the threshold */
        grp->booleans = (uint8_t)((promoted >> 10 & 1) << 7 | (promoted >> 11 & 0x0fu));
        /* a state saved before rule enum-slots: its slots wait for the threshold */
        grp->non_constant = (uint8_t)!(promoted >> 15 & 1);
        grp->position = (uint32_t)position;
        grp->promoted = (uint8_t)(promoted & 1);
        grp->varform_seen = (uint8_t)(promoted >> 1 & 1);
        grp->value_like = (uint8_t)(promoted >> 2 & 1);
        grp->shape_seen = (uint8_t)(promoted >> 3 & 1);
        grp->non_unit = (uint8_t)(promoted >> 4 & 1);
        grp->plain_word = (uint8_t)(promoted >> 5 & 1);
        for (uint64_t i = 0; i < nvalues; i++) {
            if (ltk_snap_varint(&pos, end, &value) != 0 ||
                ltk_snap_varint(&pos, end, &k) != 0 || k == 0 || k >= ntemplates)
                return FUSE_BAD("bad group member");
            if (ltk_fuse_group_keep(st, grp, value, (uint32_t)k) != 0)
                return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
        }
    }
    for (size_t i = 0; i < st->groups.nslots; i++)
        if (st->groups.used[i] && st->groups.slots[i].value >= st->ngroups)
            return FUSE_BAD("bad group index");
    uint64_t nredirect;
    if (ltk_snap_varint(&pos, end, &nredirect) != 0 || nredirect > (uint64_t)(end - pos) / 2)
        return FUSE_BAD("bad redirect count");
    for (uint64_t i = 0; i < nredirect; i++) {
        if (ltk_snap_varint(&pos, end, &k) != 0 || k == 0 || k >= ntemplates ||
            ltk_snap_varint(&pos, end, &v) != 0 || v == 0 || v >= ntemplates || v == k)
            return FUSE_BAD("bad redirect");
        st->redirect[k] = (uint32_t)v;
    }
    rc = load_map(&pos, end, &st->pools, UINT32_MAX);
    if (rc < 0)
        return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
    if (rc > 0 || ltk_snap_varint(&pos, end, &v) != 0 || v > (uint64_t)(end - pos) / 3 ||
        v > st->ngroups)
        return FUSE_BAD("bad pool count");
    for (uint64_t made = 0; made < v; made++)
        if (ltk_fuse_new_pool(st) == FUSE_NO_ID)
            return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
    for (size_t pk = 0; pk < st->npools; pk++) {
        ltk_fuse_pool *pool = ltk_fuse_pool_at(st, (uint32_t)pk);
        uint64_t first, varform, nvalues, value;
        if (ltk_snap_varint(&pos, end, &first) != 0 || first > st->ngroups ||
            ltk_snap_varint(&pos, end, &varform) != 0 || varform > 1 ||
            ltk_snap_varint(&pos, end, &nvalues) != 0 || nvalues > 8)
            return FUSE_BAD("bad pool");
        pool->first_group = (uint32_t)(first - 1);
        pool->varform_seen = (uint8_t)varform;
        for (uint64_t i = 0; i < nvalues; i++) {
            if (ltk_snap_varint(&pos, end, &value) != 0)
                return FUSE_BAD("bad pool value");
            if (ltk_fuse_pool_keep(st, pool, value) != 0)
                return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
        }
    }
    if (pos < end) { /* rule text-tails' families and keys */
        rc = load_map(&pos, end, &st->text_tails, UINT32_MAX);
        if (rc == 0)
            rc = load_map(&pos, end, &st->text_keys, 2);
        if (rc < 0)
            return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
        if (rc > 0)
            return FUSE_BAD("bad text tails");
    }
    if (pos < end) { /* rule transitions' families */
        rc = load_map(&pos, end, &st->transitions, FUSE_TRANSITION_LIMIT);
        if (rc < 0)
            return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
        if (rc > 0)
            return FUSE_BAD("bad transitions");
    }
    uint64_t nplaces = 0;
    if (pos < end && (ltk_snap_varint(&pos, end, &nplaces) != 0 ||
                      nplaces > (uint64_t)(end - pos) / 2))
        return FUSE_BAD("bad template places");
    /* read before the checks below: kept, then taken once the redirects hold */
    const uint8_t *places_at = pos;
    for (uint64_t i = 0; i < nplaces; i++)
        if (ltk_snap_varint(&pos, end, &k) != 0 || k == 0 || k >= ntemplates ||
            ltk_snap_varint(&pos, end, &v) != 0)
            return FUSE_BAD("bad template places");
    if (pos != end)
        return FUSE_BAD("trailing bytes");
    for (size_t i = 0; i < st->pools.nslots; i++)
        if (st->pools.used[i] && st->pools.slots[i].value >= st->npools)
            return FUSE_BAD("bad pool index");
    /* every group of a pool is on that pool's chain, once: chains end */
    size_t chained = 0;
    for (size_t pk = 0; pk < st->npools; pk++)
        for (uint32_t g = ltk_fuse_pool_at(st, (uint32_t)pk)->first_group; g != FUSE_NO_ID;
             g = ltk_fuse_group_at(st, g)->next_in_pool) {
            if (ltk_fuse_group_at(st, g)->pool != pk || ++chained > st->ngroups)
                return FUSE_BAD("bad pool chain");
        }
    for (size_t g = 0; g < st->ngroups; g++) {
        uint32_t pool = ltk_fuse_group_at(st, (uint32_t)g)->pool;
        if (pool != FUSE_NO_ID && pool >= st->npools)
            return FUSE_BAD("bad group pool");
        else if (pool != FUSE_NO_ID)
            chained--;
    }
    if (chained != 0)
        return FUSE_BAD("bad pool chain");
    /* a redirect chain must end: at most one step per template */
    for (uint32_t id = 1; id < ntemplates; id++) {
        uint32_t r = id;
        for (uint64_t steps = 0; r < st->redirect_cap && st->redirect[r] != 0 && st->redirect[r] != r;
             steps++) {
            if (steps >= ntemplates)
                return FUSE_BAD("redirect cycle");
            r = st->redirect[r];
        }
    }
    if (ltk_fuse_note_templates(p, st) != 0) /* from the groups */
        return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
    for (uint64_t i = 0; i < nplaces; i++) { /* (checked above) */
        (void)ltk_snap_varint(&places_at, end, &k);
        (void)ltk_snap_varint(&places_at, end, &v);
        if (ltk_fuse_take_places(p, st, ltk_fuse_resolve(st, (uint32_t)k), v) != 0)
            return ltk_parser_error(p, LOGTK_ERR_NOMEM, "out of memory");
    }
    return LOGTK_OK;
}
