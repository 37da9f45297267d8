/*
 * fuse_state.c - what fuse's state holds, apart from how it learns
 * (parser_fuse.c): its parameters, its release, and the store of its
 * sibling groups and prefix pools.  Groups and pools live in blocks of
 * FUSE_BLOCK entries that never move (a pointer to a group stays valid as
 * more are made); a slot's words 2 to FUSE_SLOT_VALUES go to a side block
 * made only when a second word arrives (most slots never get one).  The
 * fast paths (a new group, a kept word) are inline in fuse_impl.h; what
 * allocates is here.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuse_impl.h"
#include "growarray.h"

int ltk_fuse_add_block(void ***blocks, size_t *nblocks, size_t *cap, size_t elem)
{
    void *block = malloc((size_t)FUSE_BLOCK * elem);
    if (block == NULL || ltk_array_reserve((void **)blocks, cap, *nblocks + 1, sizeof **blocks) != 0) {
        free(block);
        return -1;
    }
    (*blocks)[(*nblocks)++] = block;
    return 0;
}

uint32_t ltk_fuse_new_more(ltk_fuse_state *st)
{
    if (st->nmore >= UINT32_MAX - 1 ||
        ltk_array_reserve((void **)&st->more_list, &st->more_cap, st->nmore + 1,
                          sizeof *st->more_list) != 0)
        return 0;
    return (uint32_t)++st->nmore;
}

void ltk_fuse_free_groups(ltk_fuse_state *st)
{
    for (size_t b = 0; b < st->group_nblocks; b++)
        free(st->group_blocks[b]);
    for (size_t b = 0; b < st->pool_nblocks; b++)
        free(st->pool_blocks[b]);
    free(st->group_blocks);
    free(st->pool_blocks);
    st->group_blocks = NULL;
    st->pool_blocks = NULL;
    st->ngroups = st->group_nblocks = st->group_blocks_cap = 0;
    st->npools = st->pool_nblocks = st->pool_blocks_cap = 0;
    st->ntwin_groups = 0;
}

void ltk_fuse_destroy(void *state)
{
    ltk_fuse_state *st = state;
    ltk_u64map_free(&st->exact);
    ltk_u64map_free(&st->groups);
    ltk_u64map_free(&st->by_text);
    ltk_u64map_free(&st->pools);
    ltk_u64map_free(&st->text_tails);
    ltk_u64map_free(&st->text_keys);
    ltk_u64map_free(&st->transitions);
    ltk_fuse_free_groups(st);
    free(st->more_list);
    free(st->redirect);
    free(st->word_slots);
    free(st->unsettled);
    free(st->twin_groups);
    ltk_strbuf_free(&st->norm);
    free(st->tok_off);
    free(st->tok_len);
    free(st->tok_hash);
    free(st->tok_wild);
    free(st->tok_form);
    free(st->tok);
    free(st->kept);
    free(st->wf_prefix);
    free(st->wf_suffix);
    free(st->wf_hash);
    free(st->sib_key);
    free(st->sib_group);
    free(st->sib_known);
    free(st->sib_spot);
    free(st->stash_off);
    free(st->salt_tok);
    free(st->salt_wf);
    free(st->stash_len);
    ltk_strbuf_free(&st->stash);
    ltk_strbuf_free(&st->wform);
    ltk_strbuf_free(&st->wfscratch);
    free(st->edit);
    free(st->memo);
    ltk_fuse_shape_free(&st->shapes);
}

int ltk_fuse_set_param(logtk_parser *p, void *state, const char *name, const char *value)
{
    ltk_fuse_state *st = state;
    if (strcmp(name, "threshold") == 0)
        return ltk_param_int(p, name, value, 2, 8, &st->threshold);
    if (strcmp(name, "max_entries") == 0)
        return ltk_param_int(p, name, value, 1024, 1L << 30, &st->max_entries);
    if (strcmp(name, "header") == 0) {
        if (strcmp(value, "auto") != 0 && strcmp(value, "none") != 0)
            return ltk_parser_error(p, LOGTK_ERR_INVALID,
                                      "header: expected auto or none, got '%s'", value);
        st->header_auto = strcmp(value, "auto") == 0;
        ltk_fuse_shape_clear(&st->shapes); /* lines now split into header and message otherwise */
        return LOGTK_OK;
    }
    if (strcmp(name, "line_cache") == 0) {
        /* a cache of a pure function: "none" parses the same, only slower,
           which is what the tests hold it to (test_parser_fuse.c, fuzz_parse) */
        if (strcmp(value, "shapes") != 0 && strcmp(value, "none") != 0)
            return ltk_parser_error(p, LOGTK_ERR_INVALID,
                                      "line_cache: expected shapes or none, got '%s'", value);
        st->line_cache = strcmp(value, "shapes") == 0;
        ltk_fuse_shape_clear(&st->shapes);
        return LOGTK_OK;
    }
    return LOGTK_ERR_NOT_FOUND;
}
