/* hashtab.c - byte-string interning table.  See hashtab.h. */
#include "config.h"
#include "hashtab.h"
#include "mix.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* A simple multiply-mix hash over 8-byte words (wyhash-like in spirit, written
   for this project).  Stable across runs so that content hashes can key
   templates merged across shards: hash_round is part of that definition
   (the general mixer is ltk_mix64, in mix.h). */
static inline uint64_t hash_round(uint64_t x)
{
    x ^= x >> 32;
    x *= 0xd6e8feb86659fd93ULL;
    x ^= x >> 32;
    x *= 0xd6e8feb86659fd93ULL;
    x ^= x >> 32;
    return x;
}

uint64_t ltk_hash_bytes(const void *data, size_t len)
{
    return ltk_hash_bytes_seeded(data, len, 0);
}

/* With a secret seed in the starting state, two inputs that differ before
   their last word reach states that differ by an unknown amount, so
   colliding keys cannot be computed offline as they can for seed 0 (each
   step is invertible). */
uint64_t ltk_hash_bytes_seeded(const void *data, size_t len, uint64_t seed)
{
    const unsigned char *p = data;
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ (len * 0xff51afd7ed558ccdULL) ^ seed;
    if (seed)
        h = hash_round(h);
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = hash_round(h ^ w) + 0x632be59bd9b4e019ULL;
        p += 8;
        len -= 8;
    }
    uint64_t tail = 0;
    for (size_t i = 0; i < len; i++)
        tail |= (uint64_t)p[i] << (8 * i);
    return hash_round(h ^ tail ^ 0xa0761d6478bd642fULL);
}

static atomic_uint_fast64_t process_seed;

uint64_t ltk_hash_seed(void)
{
    uint64_t s = atomic_load_explicit(&process_seed, memory_order_acquire);
    if (s)
        return s;
    uint64_t fresh = 0;
    if (getrandom(&fresh, sizeof fresh, GRND_NONBLOCK) != (ssize_t)sizeof fresh)
        fresh = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)&fresh;
    fresh = ltk_mix64(fresh) | 1; /* 0 means "not drawn yet" */
    uint_fast64_t expected = 0;
    /* the first thread's seed wins: every table of the process must use one */
    atomic_compare_exchange_strong(&process_seed, &expected, fresh);
    return atomic_load_explicit(&process_seed, memory_order_acquire);
}

int ltk_hashtab_init(ltk_hashtab *h, size_t expected)
{
    memset(h, 0, sizeof *h);
    h->seed = ltk_hash_seed();
    size_t n = 16;
    while (n < expected * 2)
        n *= 2;
    h->slots = calloc(n, sizeof *h->slots);
    h->nslots = n;
    h->cap = expected > 8 ? expected : 8;
    h->keys = malloc(h->cap * sizeof *h->keys);
    h->key_lens = malloc(h->cap * sizeof *h->key_lens);
    h->hashes = malloc(h->cap * sizeof *h->hashes);
    ltk_arena_init(&h->arena, 0);
    if (!h->slots || !h->keys || !h->key_lens || !h->hashes) {
        ltk_hashtab_free(h);
        return -1;
    }
    return 0;
}

static int64_t probe(const ltk_hashtab *h, uint64_t hash, const void *key, size_t len,
                     size_t *slot_out)
{
    size_t mask = h->nslots - 1;
    size_t i = (size_t)hash & mask;
    for (;;) {
        uint32_t s = h->slots[i];
        if (s == 0) {
            *slot_out = i;
            return -1;
        }
        uint32_t id = s - 1;
        if (h->hashes[id] == hash && h->key_lens[id] == len &&
            memcmp(h->keys[id], key, len) == 0)
            return id;
        i = (i + 1) & mask;
    }
}

int64_t ltk_hashtab_find(const ltk_hashtab *h, const void *key, size_t len)
{
    size_t slot;
    if (h->nslots == 0)
        return -1;
    return probe(h, ltk_hash_bytes_seeded(key, len, h->seed), key, len, &slot);
}

static int grow_slots(ltk_hashtab *h)
{
    size_t n = h->nslots * 2;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (slots == NULL)
        return -1;
    for (size_t id = 0; id < h->count; id++) {
        size_t i = (size_t)h->hashes[id] & (n - 1);
        while (slots[i])
            i = (i + 1) & (n - 1);
        slots[i] = (uint32_t)id + 1;
    }
    free(h->slots);
    h->slots = slots;
    h->nslots = n;
    return 0;
}

int64_t ltk_hashtab_intern(ltk_hashtab *h, const void *key, size_t len, int *inserted)
{
    uint64_t hash = ltk_hash_bytes_seeded(key, len, h->seed);
    size_t slot;
    int64_t id = probe(h, hash, key, len, &slot);
    if (inserted)
        *inserted = 0;
    if (id >= 0)
        return id;
    if (len > UINT32_MAX || h->count >= UINT32_MAX - 1)
        return -1;
    if (h->count == h->cap) {
        size_t cap = h->cap * 2;
        const char **keys = realloc(h->keys, cap * sizeof *keys);
        if (keys == NULL)
            return -1;
        h->keys = keys;
        uint32_t *lens = realloc(h->key_lens, cap * sizeof *lens);
        if (lens == NULL)
            return -1;
        h->key_lens = lens;
        uint64_t *hashes = realloc(h->hashes, cap * sizeof *hashes);
        if (hashes == NULL)
            return -1;
        h->hashes = hashes;
        h->cap = cap;
    }
    char *copy = ltk_arena_strndup(&h->arena, key, len);
    if (copy == NULL)
        return -1;
    id = (int64_t)h->count++;
    h->keys[id] = copy;
    h->key_lens[id] = (uint32_t)len;
    h->hashes[id] = hash;
    h->slots[slot] = (uint32_t)id + 1;
    if (h->count * 2 > h->nslots && grow_slots(h) != 0)
        return -1;
    if (inserted)
        *inserted = 1;
    return id;
}

const char *ltk_hashtab_key(const ltk_hashtab *h, uint32_t id, size_t *len)
{
    if (id >= h->count)
        return NULL;
    if (len)
        *len = h->key_lens[id];
    return h->keys[id];
}

void ltk_hashtab_free(ltk_hashtab *h)
{
    free(h->slots);
    free(h->keys);
    free(h->key_lens);
    free(h->hashes);
    ltk_arena_free(&h->arena);
    memset(h, 0, sizeof *h);
}
