/*
 * arena.h - bump allocator for data that lives as long as its owner (internal).
 *
 * Templates, interned strings and per-run tables are allocated here and freed
 * all at once; hot paths never call malloc per line.  logtk_arena_reset()
 * keeps the first chunk so a reused arena stops allocating.
 */
#ifndef LOGTK_ARENA_H
#define LOGTK_ARENA_H

#include <stddef.h>

typedef struct logtk_arena_chunk logtk_arena_chunk;

typedef struct logtk_arena {
    logtk_arena_chunk *head;
    size_t chunk_size; /* default size of new chunks */
    size_t total;      /* bytes obtained from malloc, for memory reports */
} logtk_arena;

/** Initialises an empty arena; chunk_size 0 picks 64 KiB. */
void logtk_arena_init(logtk_arena *a, size_t chunk_size);

/** Allocates n bytes aligned for any type; NULL when out of memory. */
void *logtk_arena_alloc(logtk_arena *a, size_t n);

/** Copies n bytes into the arena and adds a NUL; NULL when out of memory. */
char *logtk_arena_strndup(logtk_arena *a, const char *s, size_t n);

/** Frees everything but the newest chunk, which is emptied for reuse. */
void logtk_arena_reset(logtk_arena *a);

/** Frees everything. */
void logtk_arena_free(logtk_arena *a);

#endif
