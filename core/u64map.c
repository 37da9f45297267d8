/* u64map.c - 64-bit key -> 32-bit value map.  See u64map.h. */
#include "config.h"
#include "u64map.h"

#include <stdlib.h>
#include <string.h>

#include "hashtab.h"

int ltk_u64map_init(ltk_u64map *m, size_t expected)
{
    size_t n = 64;
    while (n < expected * 2)
        n <<= 1;
    m->slots = malloc(n * sizeof *m->slots);
    m->used = calloc(n, 1);
    m->nslots = n;
    m->count = 0;
    m->seed = ltk_hash_seed();
    return m->slots && m->used ? 0 : -1;
}

void ltk_u64map_free(ltk_u64map *m)
{
    free(m->slots);
    free(m->used);
    memset(m, 0, sizeof *m);
}

/* The slot holding key, or the empty slot where it would go.  The keys are
   hashes of line content: the process seed keeps crafted ones from sharing
   a bucket run (slot order, which callers must not rely on, varies by run). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline size_t slot_of(const ltk_u64map *m, uint64_t key)
{
    size_t mask = m->nslots - 1;
    size_t i = ltk_u64map_home(m, key);
    while (m->used[i] && ltk_u64map_key(&m->slots[i]) != key)
        i = (i + 1) & mask;
    return i;
}

uint32_t *ltk_u64map_find(const ltk_u64map *m, uint64_t key)
{
    if (m->nslots == 0)
        return NULL;
    size_t s = slot_of(m, key);
    return m->used[s] ? &m->slots[s].value : NULL;
}

#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int grow(ltk_u64map *m)
{
    ltk_u64map bigger;
    if (ltk_u64map_init(&bigger, m->nslots) != 0) {
        ltk_u64map_free(&bigger);
        return -1;
    }
    for (size_t i = 0; i < m->nslots; i++)
        if (m->used[i]) {
            size_t s = slot_of(&bigger, ltk_u64map_key(&m->slots[i]));
            bigger.used[s] = 1;
            bigger.slots[s] = m->slots[i];
            bigger.count++;
        }
    ltk_u64map_free(m);
    *m = bigger;
    return 0;
}

/* Slot of key, inserted with value 0 when absent; (size_t)-1 when out of memory.
   Inline in each caller: a parser learning new messages puts a key for each
   of their words (fuse's sibling groups), and the calls cost as much as the probe. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline size_t insert(ltk_u64map *m, uint64_t key)
{
    if ((m->count + 1) * 2 > m->nslots && grow(m) != 0)
        return (size_t)-1;
    size_t s = slot_of(m, key);
    if (!m->used[s]) {
        m->used[s] = 1;
        memcpy(m->slots[s].key, &key, sizeof key);
        m->slots[s].value = 0;
        m->count++;
    }
    return s;
}

int ltk_u64map_put(ltk_u64map *m, uint64_t key, uint32_t value)
{
    size_t s = insert(m, key);
    if (s == (size_t)-1)
        return -1;
    m->slots[s].value = value;
    return 0;
}

uint32_t *ltk_u64map_emplace(ltk_u64map *m, uint64_t key, uint32_t value, int *added)
{
    size_t count = m->count;
    size_t s = insert(m, key);
    if (s == (size_t)-1)
        return NULL;
    *added = m->count != count;
    if (*added)
        m->slots[s].value = value;
    return &m->slots[s].value;
}

int ltk_u64map_increment(ltk_u64map *m, uint64_t key)
{
    size_t s = insert(m, key);
    if (s == (size_t)-1)
        return -1;
    m->slots[s].value++;
    return 0;
}
