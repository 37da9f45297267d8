/* test_core.c - arena, strbuf, varints, hash table, version. */
#include "config.h"

#include "test_harness.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "logtk.h"
#include "saved_frame.h"
#include "arena.h"
#include "hashtab.h"
#include "strbuf.h"
#include "u64map.h"

TEST(test_arena)
{
    ltk_arena a;
    ltk_arena_init(&a, 1024);
    char *s = ltk_arena_strndup(&a, "hello", 5);
    CHECK(s != NULL && strcmp(s, "hello") == 0);
    void *big = ltk_arena_alloc(&a, 100000); /* larger than a chunk */
    CHECK(big != NULL && ((uintptr_t)big % 16) == 0);
    memset(big, 1, 100000);
    char *t = ltk_arena_strndup(&a, "world", 5);
    CHECK(t != NULL && strcmp(t, "world") == 0 && strcmp(s, "hello") == 0);
    for (int i = 0; i < 1000; i++)
        CHECK(ltk_arena_alloc(&a, 37) != NULL);
    ltk_arena_reset(&a);
    CHECK(a.head != NULL && a.total == 1024 + 32);
    CHECK(ltk_arena_alloc(&a, 10) != NULL);
    ltk_arena_free(&a);
    ltk_arena_free(&a); /* twice is harmless */
}

TEST(test_strbuf)
{
    ltk_strbuf b = LTK_STRBUF_INIT;
    CHECK(ltk_strbuf_puts(&b, "ab") == 0);
    CHECK(ltk_strbuf_putc(&b, 'c') == 0);
    CHECK(ltk_strbuf_printf(&b, "%d-%s", 42, "x") == 0);
    CHECK_BYTES(b.data, b.len, "abc42-x");
    char longtext[600];
    memset(longtext, 'z', sizeof longtext - 1);
    longtext[sizeof longtext - 1] = '\0';
    CHECK(ltk_strbuf_printf(&b, "%s", longtext) == 0);
    CHECK(b.len == 7 + 599 && b.data[b.len] == '\0');
    ltk_strbuf_clear(&b);
    CHECK(b.len == 0 && b.cap > 0);

    const uint64_t values[] = {0, 1, 127, 128, 300, 16383, 16384, UINT32_MAX, UINT64_MAX};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        CHECK(ltk_strbuf_put_varint(&b, values[i]) == 0);
    const uint8_t *p = (const uint8_t *)b.data, *end = p + b.len;
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        uint64_t v = 0;
        CHECK(ltk_varint_get(&p, end, &v) == 0 && v == values[i]);
    }
    CHECK(p == end);
    uint64_t v;
    const uint8_t truncated[] = {0x80, 0x80};
    const uint8_t *q = truncated;
    CHECK(ltk_varint_get(&q, truncated + 2, &v) == -1 && q == truncated);
    const uint8_t overlong[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};
    q = overlong;
    CHECK(ltk_varint_get(&q, overlong + sizeof overlong, &v) == -1);
    ltk_strbuf_free(&b);
}

TEST(test_hashtab)
{
    ltk_hashtab h;
    CHECK(ltk_hashtab_init(&h, 4) == 0);
    char key[32];
    int inserted;
    for (int i = 0; i < 5000; i++) {
        int n = snprintf(key, sizeof key, "key-%d", i);
        CHECK(ltk_hashtab_intern(&h, key, (size_t)n, &inserted) == i && inserted == 1);
    }
    CHECK(h.count == 5000);
    for (int i = 0; i < 5000; i += 7) {
        int n = snprintf(key, sizeof key, "key-%d", i);
        CHECK(ltk_hashtab_find(&h, key, (size_t)n) == i);
        CHECK(ltk_hashtab_intern(&h, key, (size_t)n, &inserted) == i && inserted == 0);
        size_t len;
        const char *k = ltk_hashtab_key(&h, (uint32_t)i, &len);
        CHECK_BYTES(k, len, key);
    }
    CHECK(ltk_hashtab_find(&h, "absent", 6) == -1);
    /* keys with NUL bytes and the empty key are distinct keys */
    CHECK(ltk_hashtab_intern(&h, "a\0b", 3, NULL) == 5000);
    CHECK(ltk_hashtab_intern(&h, "a", 1, NULL) == 5001);
    CHECK(ltk_hashtab_intern(&h, "", 0, NULL) == 5002);
    CHECK(ltk_hash_bytes("abc", 3) == ltk_hash_bytes("abc", 3));
    CHECK(ltk_hash_bytes("abc", 3) != ltk_hash_bytes("abd", 3));
    ltk_hashtab_free(&h);
}

/* emplace inserts an absent key with its value, and finds a present one
   untouched, across the table's growth; get and put agree with it */
TEST(test_u64map_emplace)
{
    ltk_u64map m;
    CHECK(ltk_u64map_init(&m, 4) == 0);
    for (uint64_t k = 0; k < 3000; k++) {
        int added = -1;
        uint32_t *v = ltk_u64map_emplace(&m, k * 0x9e3779b97f4a7c15ULL, (uint32_t)k + 7, &added);
        CHECK(v != NULL && added == 1 && *v == (uint32_t)k + 7);
    }
    CHECK(m.count == 3000);
    for (uint64_t k = 0; k < 3000; k++) {
        int added = -1;
        uint32_t *v = ltk_u64map_emplace(&m, k * 0x9e3779b97f4a7c15ULL, 1, &added);
        CHECK(v != NULL && added == 0 && *v == (uint32_t)k + 7);
        *v = (uint32_t)k; /* the value in the table itself */
    }
    CHECK(m.count == 3000);
    for (uint64_t k = 0; k < 3000; k++) {
        uint32_t *v = ltk_u64map_find(&m, k * 0x9e3779b97f4a7c15ULL);
        CHECK(v != NULL && *v == (uint32_t)k);
    }
    CHECK(ltk_u64map_find(&m, 1) == NULL);
    CHECK(ltk_u64map_put(&m, 1, 5) == 0);
    int added = -1;
    uint32_t *v = ltk_u64map_emplace(&m, 1, 9, &added);
    CHECK(v != NULL && added == 0 && *v == 5);
    ltk_u64map_free(&m);
}

/* emplace_at inserts at the spot its lookup left, or probes again when that
   spot no longer holds: taken by another key, the key inserted since, the
   table grown since or full now; every key keeps its own value */
TEST(test_u64map_emplace_at)
{
    ltk_u64map m;
    CHECK(ltk_u64map_init(&m, 4) == 0);
    const size_t first_nslots = m.nslots;
    /* looked up, then inserted at once: across the growths */
    for (uint64_t k = 0; k < 3000; k++) {
        ltk_u64map_spot spot;
        uint64_t key = k * 0x9e3779b97f4a7c15ULL;
        CHECK(ltk_u64map_lookup_spot(&m, key, &spot) == NULL);
        int added = -1;
        uint32_t *v = ltk_u64map_emplace_at(&m, key, spot, (uint32_t)k + 7, &added);
        CHECK(v != NULL && added == 1 && *v == (uint32_t)k + 7);
        CHECK(m.count * 2 <= m.nslots);
        if (m.count * 2 > m.nslots)
            break; /* past half full, a lookup of an absent key may find no empty slot */
    }
    CHECK(m.count == 3000 && m.nslots > first_nslots);
    for (uint64_t k = 0; k < 3000; k++) {
        ltk_u64map_spot spot;
        uint32_t *v = ltk_u64map_lookup_spot(&m, k * 0x9e3779b97f4a7c15ULL, &spot);
        CHECK(v != NULL && *v == (uint32_t)k + 7 && v == &m.slots[spot.slot].value);
    }
    ltk_u64map_free(&m);

    /* a spot another key took since: that key's slot is not overwritten */
    CHECK(ltk_u64map_init(&m, 4) == 0);
    ltk_u64map_spot mine, theirs;
    const uint64_t key = 0x1234567;
    CHECK(ltk_u64map_lookup_spot(&m, key, &mine) == NULL);
    uint64_t other = 1;
    while (ltk_u64map_lookup_spot(&m, other, &theirs) == NULL && theirs.slot != mine.slot)
        other++;
    int added = -1;
    CHECK(ltk_u64map_emplace_at(&m, other, theirs, 11, &added) != NULL && added == 1);
    uint32_t *v = ltk_u64map_emplace_at(&m, key, mine, 22, &added);
    CHECK(v != NULL && added == 1 && *v == 22 && m.count == 2);
    uint32_t *found_other = ltk_u64map_find(&m, other), *found_key = ltk_u64map_find(&m, key);
    CHECK(found_other != NULL && *found_other == 11 && found_key != NULL && *found_key == 22);
    /* the key inserted since its lookup: found, not inserted twice */
    const uint64_t late = 0xabcdef;
    CHECK(ltk_u64map_lookup_spot(&m, late, &mine) == NULL);
    CHECK(ltk_u64map_put(&m, late, 5) == 0);
    v = ltk_u64map_emplace_at(&m, late, mine, 9, &added);
    CHECK(v != NULL && added == 0 && *v == 5 && m.count == 3);
    /*
     * The table grown since the lookups: their spots are of the old table.
     * The keys are absent ones: above 2^40, where `other` (a count from 1)
     * never gets, with low bits that the keys grown in with (k << 32) lack;
     * multiples of 0x51 failed when `other` was one (4 runs in 1,000).
     */
#define ABSENT_KEY(k) (((k) + 1) << 40 | 0x51u)
    ltk_u64map_spot spots[200];
    for (uint64_t k = 0; k < 200; k++)
        CHECK(ltk_u64map_lookup_spot(&m, ABSENT_KEY(k), &spots[k]) == NULL);
    const size_t nslots = m.nslots;
    for (uint64_t k = 1; m.nslots < 4 * nslots; k++)
        CHECK(ltk_u64map_put(&m, k << 32, 1) == 0);
    size_t count = m.count;
    for (uint64_t k = 0; k < 200; k++) {
        v = ltk_u64map_emplace_at(&m, ABSENT_KEY(k), spots[k], (uint32_t)k, &added);
        CHECK(v != NULL && added == 1 && *v == (uint32_t)k);
    }
    CHECK(m.count == count + 200);
    for (uint64_t k = 0; k < 200; k++) {
        v = ltk_u64map_find(&m, ABSENT_KEY(k));
        CHECK(v != NULL && *v == (uint32_t)k);
    }
#undef ABSENT_KEY
    ltk_u64map_free(&m);
}

/* The inverse of hashtab.c's mixing step (x ^= x >> 32 undoes itself; the
 * multiplier is odd, so it has an inverse modulo 2^64). */
static uint64_t unmix64(uint64_t x)
{
    const uint64_t m = 0xd6e8feb86659fd93ULL;
    uint64_t inv = m; /* Newton: each step doubles the correct low bits */
    for (int i = 0; i < 6; i++)
        inv *= 2 - m * inv;
    x ^= x >> 32;
    x *= inv;
    x ^= x >> 32;
    x *= inv;
    x ^= x >> 32;
    return x;
}

/* Keys that collide completely under the unseeded hash are easy to compute
 * (each step is invertible): 16-byte keys whose second word undoes the
 * first.  In a table they used to share one bucket run, so n such lines cost
 * n^2 probes; with the per-process seed they spread over the table. */
TEST(test_hashtab_flood)
{
    const uint64_t c = 0x632be59bd9b4e019ULL;
    const uint64_t h0 = 0x9e3779b97f4a7c15ULL ^ (16 * 0xff51afd7ed558ccdULL);
    const uint64_t target = 0x0123456789abcdefULL; /* the state after both words */
    ltk_hashtab h;
    CHECK(ltk_hashtab_init(&h, 256) == 0);
    uint64_t first_hash = 0;
    int all_collide = 1;
    for (uint64_t i = 0; i < 256; i++) {
        uint64_t w[2];
        w[0] = i * 0x9e3779b97f4a7c15ULL + 1;
        /* as ltk_hash_bytes runs: h1 = mix(h0 ^ w0) + c, h2 = mix(h1 ^ w1) + c;
           w1 is chosen so that h2 is the target */
        unsigned char key[16];
        memcpy(key, &w[0], 8);
        uint64_t x = h0 ^ w[0];
        x ^= x >> 32;
        x *= 0xd6e8feb86659fd93ULL;
        x ^= x >> 32;
        x *= 0xd6e8feb86659fd93ULL;
        x ^= x >> 32;
        uint64_t h1 = x + c;
        w[1] = unmix64(target - c) ^ h1;
        memcpy(key + 8, &w[1], 8);
        uint64_t hb = ltk_hash_bytes(key, 16);
        if (i == 0)
            first_hash = hb;
        all_collide &= hb == first_hash;
        CHECK(ltk_hashtab_intern(&h, key, 16, NULL) == (int64_t)i);
    }
    CHECK(all_collide); /* the crafted keys do collide without a seed */
    size_t distinct = 0;
    for (size_t i = 0; i < 256; i++) {
        size_t j = 0;
        while (j < i && h.hashes[j] != h.hashes[i])
            j++;
        distinct += j == i;
    }
    CHECK(distinct == 256); /* the table's own hashes are seeded: no two equal */
    CHECK(ltk_hash_bytes_seeded("abc", 3, 0) == ltk_hash_bytes("abc", 3));
    CHECK(ltk_hash_seed() != 0 && ltk_hash_seed() == ltk_hash_seed());
    ltk_hashtab_free(&h);
}

TEST(test_errors)
{
    CHECK(strcmp(logtk_strerror(LOGTK_ERR_NOMEM), "out of memory") == 0);
    CHECK(strcmp(logtk_strerror(-999), "unknown error") == 0);
    CHECK(logtk_version()[0] >= '0' && logtk_version()[0] <= '9');
    {
        /* the header's numbers, the library's string and configure's version agree */
        char want[32];
        snprintf(want, sizeof want, "%d.%d.%d", LOGTK_VERSION_MAJOR, LOGTK_VERSION_MINOR,
                 LOGTK_VERSION_PATCH);
        CHECK(strcmp(logtk_version(), want) == 0);
        CHECK(strcmp(PACKAGE_VERSION, want) == 0);
        CHECK(logtk_version_number() == LOGTK_VERSION_NUMBER);
        CHECK(LOGTK_VERSION_NUMBER == LOGTK_VERSION_MAJOR * 10000 + LOGTK_VERSION_MINOR * 100 +
                                          LOGTK_VERSION_PATCH);
    }
    logtk_free(NULL);
}

/* Two outputs committed only when both were written: prepare flushes and
 * closes without renaming, commit then only renames; a failed or abandoned
 * output leaves its target as it was. */
TEST(test_output_prepare)
{
    char dir[] = "/tmp/logtk-test-core.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256];
    snprintf(path, sizeof path, "%s/out", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs("old\n", f);
    fclose(f);

    logtk_output *o = NULL, *full = NULL;
    CHECK_STATUS(logtk_output_open(&o, path), LOGTK_OK);
    fputs("new\n", logtk_output_stream(o));
    CHECK_STATUS(logtk_output_prepare(o), LOGTK_OK);
    CHECK_STATUS(logtk_output_prepare(o), LOGTK_OK); /* twice is harmless */
    char buf[16] = "";
    f = fopen(path, "r");
    CHECK(f != NULL && fgets(buf, sizeof buf, f) && strcmp(buf, "old\n") == 0);
    if (f)
        fclose(f);
    /* the second output fails at flush: the first is abandoned */
    CHECK_STATUS(logtk_output_open(&full, "/dev/full"), LOGTK_OK);
    fputs("x", logtk_output_stream(full));
    CHECK_STATUS(logtk_output_prepare(full), LOGTK_ERR_IO);
    CHECK(strstr(logtk_output_errmsg(full), "/dev/full") != NULL);
    logtk_output_free(full);
    logtk_output_free(o);
    f = fopen(path, "r");
    CHECK(f != NULL && fgets(buf, sizeof buf, f) && strcmp(buf, "old\n") == 0);
    if (f)
        fclose(f);
    /* prepared, then committed: renamed into place */
    CHECK_STATUS(logtk_output_open(&o, path), LOGTK_OK);
    fputs("new\n", logtk_output_stream(o));
    CHECK_STATUS(logtk_output_prepare(o), LOGTK_OK);
    CHECK_STATUS(logtk_output_commit(o), LOGTK_OK);
    logtk_output_free(o);
    f = fopen(path, "r");
    CHECK(f != NULL && fgets(buf, sizeof buf, f) && strcmp(buf, "new\n") == 0);
    if (f)
        fclose(f);
    unlink(path);
    CHECK(rmdir(dir) == 0); /* no temporary file left behind */
}

/* ---- the saved-file frame (core/saved_frame.c) ---- */

TEST(saved_frame_round_trip_and_refusals)
{
    ltk_strbuf b = LTK_STRBUF_INIT;
    CHECK(ltk_strbuf_append(&b, "xy", 2) == 0); /* a frame may start mid-buffer */
    CHECK(ltk_frame_begin(&b, "TESTMAGC", 7) == 0);
    CHECK(ltk_strbuf_append(&b, "payload", 7) == 0);
    CHECK(ltk_frame_end(&b, 2) == 0);
    const uint8_t *f = (const uint8_t *)b.data + 2;
    size_t n = b.len - 2;
    CHECK(n == LTK_FRAME_HEADER_LEN + 7 + LTK_FRAME_TRAILER_LEN);
    CHECK(ltk_le_get_u32(f + 8) == 7 && ltk_le_get_u64(f + 12) == 7);

    ltk_errbuf why;
    ltk_error_clear(&why);
    uint32_t version = 0;
    const uint8_t *payload = NULL;
    size_t plen = 0;
    CHECK_STATUS(ltk_frame_open(f, n, "TESTMAGC", 7, "test file", &version, &payload, &plen, &why),
                 LOGTK_OK);
    CHECK(version == 7 && plen == 7 && memcmp(payload, "payload", 7) == 0);

    /* each fault gets its own message */
    CHECK_STATUS(ltk_frame_open(f, n, "OTHERMAG", 7, "test file", &version, &payload, &plen, &why),
                 LOGTK_ERR_STATE);
    CHECK(strstr(ltk_error_text(&why), "not a logtk test file") != NULL);
    CHECK_STATUS(ltk_frame_open(f, n, "TESTMAGC", 6, "test file", &version, &payload, &plen, &why),
                 LOGTK_ERR_STATE);
    CHECK(strstr(ltk_error_text(&why), "version 7; this logtk reads versions up to 6") != NULL);
    CHECK_STATUS(ltk_frame_open(f, n - 1, "TESTMAGC", 7, "test file", &version, &payload, &plen,
                                  &why),
                 LOGTK_ERR_STATE);
    CHECK(strstr(ltk_error_text(&why), "truncated") != NULL);
    CHECK_STATUS(ltk_frame_open(f, 10, "TESTMAGC", 7, "test file", &version, &payload, &plen,
                                  &why),
                 LOGTK_ERR_STATE);
    CHECK(strstr(ltk_error_text(&why), "truncated") != NULL);
    for (size_t i = LTK_FRAME_HEADER_LEN; i < n; i++) {
        b.data[2 + i] ^= 0x10;
        CHECK_STATUS(ltk_frame_open(f, n, "TESTMAGC", 7, "test file", &version, &payload, &plen,
                                      &why),
                     LOGTK_ERR_STATE);
        CHECK(strstr(ltk_error_text(&why), "damaged (checksum mismatch)") != NULL);
        b.data[2 + i] ^= 0x10;
    }
    ltk_strbuf_free(&b);
}
