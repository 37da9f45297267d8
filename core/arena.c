/* arena.c - bump allocator.  See arena.h. */
#include "config.h"
#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_ALIGN 16

struct logtk_arena_chunk {
    logtk_arena_chunk *next;
    size_t size;
    size_t used;
    /* data follows, ARENA_ALIGN-aligned */
};

static size_t chunk_header(void)
{
    return (sizeof(logtk_arena_chunk) + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
}

void logtk_arena_init(logtk_arena *a, size_t chunk_size)
{
    a->head = NULL;
    a->chunk_size = chunk_size ? chunk_size : (size_t)64 << 10;
    a->total = 0;
}

void *logtk_arena_alloc(logtk_arena *a, size_t n)
{
    size_t need = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    logtk_arena_chunk *c = a->head;
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

char *logtk_arena_strndup(logtk_arena *a, const char *s, size_t n)
{
    char *p = logtk_arena_alloc(a, n + 1);
    if (p == NULL)
        return NULL;
    if (n)
        memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

void logtk_arena_reset(logtk_arena *a)
{
    logtk_arena_chunk *keep = a->head;
    if (keep == NULL)
        return;
    logtk_arena_chunk *c = keep->next;
    while (c) {
        logtk_arena_chunk *next = c->next;
        a->total -= chunk_header() + c->size;
        free(c);
        c = next;
    }
    keep->next = NULL;
    keep->used = 0;
}

void logtk_arena_free(logtk_arena *a)
{
    logtk_arena_chunk *c = a->head;
    while (c) {
        logtk_arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    a->head = NULL;
    a->total = 0;
}
