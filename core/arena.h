/*
 * arena.h - bump allocator for data that lives as long as its owner (internal).
 *
 * Templates, interned strings and per-run tables are allocated here and freed
 * all at once; hot paths never call malloc per line.  ltk_arena_reset()
 * keeps the first chunk so a reused arena stops allocating.
 */
#ifndef LTK_ARENA_H
#define LTK_ARENA_H

#include <stddef.h>

typedef struct ltk_arena_chunk ltk_arena_chunk;

typedef struct ltk_arena {
    ltk_arena_chunk *head;
    size_t chunk_size; /* default size of new chunks */
    size_t total;      /* bytes obtained from malloc, for memory reports */
} ltk_arena;

/** Initialises an empty arena; chunk_size 0 picks 64 KiB. */
void ltk_arena_init(ltk_arena *a, size_t chunk_size);

/** Allocates n bytes aligned for any type; NULL when out of memory. */
void *ltk_arena_alloc(ltk_arena *a, size_t n);

/** Copies n bytes into the arena and adds a NUL; NULL when out of memory. */
char *ltk_arena_strndup(ltk_arena *a, const char *s, size_t n);

/** Frees everything but the newest chunk, which is emptied for reuse. */
void ltk_arena_reset(ltk_arena *a);

/** Frees everything. */
void ltk_arena_free(ltk_arena *a);

#endif
