/*
 * u64map.h - open-addressing map from 64-bit keys to 32-bit values (internal).
 *
 * Parsers key their tables by 64-bit hashes (token sequences, (token,
 * position) pairs); this is the one table they share.  Every key is allowed
 * (a separate `used` byte marks occupied slots, so 0 and UINT64_MAX need no
 * sentinel); linear probing over a power-of-two table kept at most half full.
 * The fields are readable so callers can iterate (slot order is not key
 * order: sort when the order must not depend on the table's layout).
 */
#ifndef LTK_U64MAP_H
#define LTK_U64MAP_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mix.h" /* ltk_mix64, which callers use to make keys */

/*
 * A key and its value side by side, so that a probe that finds its key
 * reads one cache line, not one in a key array and one in a value array;
 * the key's 8 bytes are kept at 4-byte alignment so that a slot takes 12
 * bytes, not 16 (a parser's tables are most of what it touches in fresh
 * memory).  Read the key with ltk_u64map_key() (one load where unaligned
 * loads are allowed).
 */
typedef struct ltk_u64map_slot {
    uint32_t key[2]; /* the key's bytes, as memcpy() puts them */
    uint32_t value;
} ltk_u64map_slot;

/** The key a slot holds. */
static inline uint64_t ltk_u64map_key(const ltk_u64map_slot *s)
{
    uint64_t key;
    memcpy(&key, s->key, sizeof key);
    return key;
}

typedef struct ltk_u64map {
    ltk_u64map_slot *slots;
    uint8_t *used;  /* 1 where the slot holds a key (dense: a probe's run of it stays cached) */
    size_t nslots;  /* power of two */
    size_t count;
    uint64_t seed;  /* ltk_hash_seed(), kept so that a lookup need not ask for it */
} ltk_u64map;

/** Initialises an empty map sized for about `expected` keys.  Returns 0 or -1. */
int ltk_u64map_init(ltk_u64map *m, size_t expected);

/** Frees the map; it is empty and must be initialised again before use. */
void ltk_u64map_free(ltk_u64map *m);

/** Pointer to key's value, or NULL when the key is absent. */
uint32_t *ltk_u64map_find(const ltk_u64map *m, uint64_t key);

/** The slot where the probe for key starts (its run of occupied slots follows). */
static inline size_t ltk_u64map_home(const ltk_u64map *m, uint64_t key)
{
    return (size_t)ltk_mix64(key ^ m->seed) & (m->nslots - 1);
}

/**
 * Where a probe for a key ended: the key's slot, or the empty slot where
 * the key would go, and the table's size then.  A caller that looks a key
 * up and may insert it later keeps this so that the insert need not probe
 * again (ltk_u64map_emplace_at): a parser learning a new line looks up a
 * key per word, then inserts most of them.
 */
typedef struct ltk_u64map_spot {
    size_t slot;
    size_t nslots;
} ltk_u64map_spot;

/** ltk_u64map_lookup(), also telling where its probe ended (*spot). */
static inline uint32_t *ltk_u64map_lookup_spot(const ltk_u64map *m, uint64_t key,
                                               ltk_u64map_spot *spot)
{
    spot->nslots = m->nslots;
    spot->slot = 0;
    if (m->nslots == 0)
        return NULL;
    size_t mask = m->nslots - 1;
    size_t i = ltk_u64map_home(m, key);
    for (; m->used[i]; i = (i + 1) & mask)
        if (ltk_u64map_key(&m->slots[i]) == key) {
            spot->slot = i;
            return &m->slots[i].value;
        }
    spot->slot = i;
    return NULL;
}

/**
 * ltk_u64map_find(), inline: for the per-token lookups of a parser's hot
 * path, where the call and the seed's atomic load cost as much as the probe.
 */
static inline uint32_t *ltk_u64map_lookup(const ltk_u64map *m, uint64_t key)
{
    if (m->nslots == 0)
        return NULL;
    size_t mask = m->nslots - 1;
    for (size_t i = ltk_u64map_home(m, key); m->used[i]; i = (i + 1) & mask)
        if (ltk_u64map_key(&m->slots[i]) == key)
            return &m->slots[i].value;
    return NULL;
}

/** Sets key's value (inserting the key).  Returns 0 or -1 (out of memory). */
int ltk_u64map_put(ltk_u64map *m, uint64_t key, uint32_t value);

/**
 * Key's value, the key inserted with `value` when absent (*added is then 1,
 * else 0): one probe where a lookup and then a put take two.  NULL when out
 * of memory (nothing inserted).
 */
uint32_t *ltk_u64map_emplace(ltk_u64map *m, uint64_t key, uint32_t value, int *added);

/**
 * ltk_u64map_emplace() of a key whose lookup left `spot`
 * (ltk_u64map_lookup_spot on this map, the same key), in one store when the
 * spot's slot is still empty and the table has neither grown since nor is
 * to grow now: keys are never removed, so the slots the probe passed over
 * still hold other keys, and had the key been inserted since, it would have
 * taken that very slot.  Otherwise (the slot taken, the table grown or
 * full) it probes as ltk_u64map_emplace() does.
 */
static inline uint32_t *ltk_u64map_emplace_at(ltk_u64map *m, uint64_t key, ltk_u64map_spot spot,
                                              uint32_t value, int *added)
{
    if (spot.nslots != m->nslots || m->nslots == 0 || m->used[spot.slot] ||
        (m->count + 1) * 2 > m->nslots)
        return ltk_u64map_emplace(m, key, value, added);
    ltk_u64map_slot *s = &m->slots[spot.slot];
    m->used[spot.slot] = 1;
    memcpy(s->key, &key, sizeof key);
    s->value = value;
    m->count++;
    *added = 1;
    return &s->value;
}

/** Adds one to key's value (a new key starts at 0).  Returns 0 or -1. */
int ltk_u64map_increment(ltk_u64map *m, uint64_t key);

/**
 * Starts loading the memory a probe for key reads first, so that the probes
 * of many keys wait for memory at once rather than one after another (a
 * hint: the map is unchanged).
 */
static inline void ltk_u64map_prefetch(const ltk_u64map *m, uint64_t key)
{
#if defined(__GNUC__)
    if (m->nslots == 0)
        return;
    size_t i = ltk_u64map_home(m, key);
    __builtin_prefetch(&m->used[i]);
    __builtin_prefetch(&m->slots[i]);
#else
    (void)m, (void)key;
#endif
}

#endif
