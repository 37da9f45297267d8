/* arena.c - bump allocator.  See arena.h. */
#include "config.h"
#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_ALIGN 16

struct ltk_arena_chunk {
    ltk_arena_chunk *next;
    size_t size;
    size_t used;
    /* data follows, ARENA_ALIGN-aligned */
};

static size_t chunk_header(void)
{
    return (sizeof(ltk_arena_chunk) + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
}

void ltk_arena_init(ltk_arena *a, size_t chunk_size)
{
    a->head = NULL;
    a->chunk_size = chunk_size ? chunk_size : (size_t)64 << 10;
    a->total = 0;
}

void *ltk_arena_alloc(ltk_arena *a, size_t n)
{
    size_t need = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    ltk_arena_chunk *c = a->head;
    if (need < n)
        return NULL; /* overflow */
    if (c == NULL || c->size - c->used < need) {
        size_t size = need > a->chunk_size / 4 ? need : a->chunk_size;
        c = malloc(chunk_header() + size);
        if (c == NULL)
            return NULL;
        c->size = size;
        c->used = 0;
        a->total += chunk_header() + size;
        if (size == a->chunk_size || a->head == NULL) {
            c->next = a->head;
            a->head = c;
        } else {
            /* a large one-off block goes behind the current chunk so the
               current chunk's free space is not abandoned */
            c->next = a->head->next;
            a->head->next = c;
            c->used = need;
            return (char *)c + chunk_header();
        }
    }
    void *p = (char *)c + chunk_header() + c->used;
    c->used += need;
    return p;
}

char *ltk_arena_strndup(ltk_arena *a, const char *s, size_t n)
{
    char *p = ltk_arena_alloc(a, n + 1);
    if (p == NULL)
        return NULL;
    if (n)
        memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

void ltk_arena_reset(ltk_arena *a)
{
    ltk_arena_chunk *keep = a->head;
    if (keep == NULL)
        return;
    ltk_arena_chunk *c = keep->next;
    while (c) {
        ltk_arena_chunk *next = c->next;
        a->total -= chunk_header() + c->size;
        free(c);
        c = next;
    }
    keep->next = NULL;
    keep->used = 0;
}

void ltk_arena_free(ltk_arena *a)
{
    ltk_arena_chunk *c = a->head;
    while (c) {
        ltk_arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    a->head = NULL;
    a->total = 0;
}
