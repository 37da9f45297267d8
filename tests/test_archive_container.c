/*
 * test_archive_container.c - the archive container's checksum, against
 * values worked out from its definition in logtk-archive(5) (by a separate
 * implementation of that text), so that an archive checks the same on a
 * host of either byte order: the words are little-endian by definition.
 */
#include <stdint.h>
#include <string.h>

#include "archive_container.h"
#include "test_harness.h"

TEST(checksum_known_values)
{
    /* 0 bytes; 1 byte (tail only); 43 (one round, one word, a 3-byte tail); 100 (three rounds, a 4-byte tail) */
    CHECK(ltk_checksum32("", 0) == 0x8b241646u);
    CHECK(ltk_checksum32("a", 1) == 0x5f780cdcu);
    const char *fox = "The quick brown fox jumps over the lazy dog";
    CHECK(ltk_checksum32(fox, strlen(fox)) == 0x0c4354c2u);
    uint8_t counting[100];
    for (int i = 0; i < 100; i++)
        counting[i] = (uint8_t)i;
    CHECK(ltk_checksum32(counting, sizeof counting) == 0x678b5907u);
}

TEST(checksum_reads_unaligned_words)
{
    /* the same bytes at every alignment give the same checksum */
    uint8_t buf[100 + 8];
    for (int off = 0; off < 8; off++) {
        for (int i = 0; i < 100; i++)
            buf[off + i] = (uint8_t)i;
        CHECK(ltk_checksum32(buf + off, 100) == 0x678b5907u);
    }
}
