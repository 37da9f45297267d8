/*
 * mix.h - the library's one 64-bit mixer and one random generator
 * (internal; header only).
 *
 * Two other mixing steps remain, each part of the definition of a value
 * that is kept or compared across runs, so they must not change and must
 * not be used for anything else: the checksum of logtk-archive(5)
 * (compress/archive_container.c) and the round of ltk_hash_bytes, whose
 * values key templates merged across shards (core/hashtab.c).
 */
#ifndef LTK_MIX_H
#define LTK_MIX_H

#include <stdint.h>

/** The finaliser of a 64-bit mix (murmur3's fmix64): spreads every input bit. */
static inline uint64_t ltk_mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/**
 * The next number of a splitmix64 sequence (state advanced by the golden
 * ratio, the result mixed): deterministic for a given seed, so sampling in
 * parsers and models repeats run to run.  Not for secrets.
 */
static inline uint64_t ltk_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

#endif
