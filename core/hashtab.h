/*
 * hashtab.h - byte-string interning table (internal).
 *
 * Maps byte strings to dense ids 0..count-1 with open addressing and
 * linear probing; keys are copied into the table's arena.  Used for template
 * strings, tokens and dictionary columns, where the same few thousand strings
 * are looked up millions of times.  Size it up front with the expected count.
 */
#ifndef LTK_HASHTAB_H
#define LTK_HASHTAB_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"

typedef struct ltk_hashtab {
    uint32_t *slots;     /* id + 1, 0 = empty */
    size_t nslots;       /* power of two */
    const char **keys;   /* id -> key bytes (NUL-terminated copy) */
    uint32_t *key_lens;
    uint64_t *hashes;    /* id -> seeded hash, so growing never rehashes keys */
    uint64_t seed;       /* ltk_hash_seed() */
    size_t count;
    size_t cap;
    ltk_arena arena;
} ltk_hashtab;

/** 64-bit hash of bytes (fast, not cryptographic, stable across runs and machines). */
uint64_t ltk_hash_bytes(const void *data, size_t len);

/**
 * The same hash started from a seed (seed 0 gives ltk_hash_bytes()).
 * Tables keyed by line content hash with ltk_hash_seed() so that crafted
 * lines cannot pile their keys into one bucket run (a flood turns every
 * lookup into a scan); such hashes differ from run to run, so they may only
 * place keys, never order output or be saved.
 */
uint64_t ltk_hash_bytes_seeded(const void *data, size_t len, uint64_t seed);

/** The per-process random seed (getrandom(), once; thread-safe, never 0). */
uint64_t ltk_hash_seed(void);

/** Initialises a table for about `expected` keys.  Returns 0 or -1. */
int ltk_hashtab_init(ltk_hashtab *h, size_t expected);

/** Id of key, or -1 when absent. */
int64_t ltk_hashtab_find(const ltk_hashtab *h, const void *key, size_t len);

/**
 * Id of key, inserting it when absent (*inserted set to 1 then, when non-NULL).
 * Returns the id, or -1 when out of memory.
 */
int64_t ltk_hashtab_intern(ltk_hashtab *h, const void *key, size_t len, int *inserted);

/** Key bytes of id (NUL-terminated); *len receives the length when non-NULL. */
const char *ltk_hashtab_key(const ltk_hashtab *h, uint32_t id, size_t *len);

/** Frees the table. */
void ltk_hashtab_free(ltk_hashtab *h);

#endif
