/*
 * test_parser_lke.c - LKE gives the same result for the same input: nothing
 * depends on allocation or hashing order, and equal messages always share
 * the template last given to their words.  Its grouping rules (edit-distance
 * links, split_threshold, the forward walk, deleted mask matches) are cases
 * written as data in tests/parser_cases/lke.test.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logtk.h"
#include "test_harness.h"
#include "parser_test_util.h"

/* Same input, same result (nothing depends on allocation or hashing order),
   and equal messages always share the template last given to their words. */
TEST(test_deterministic)
{
    char buf[64][48];
    const char *lines[128];
    for (int i = 0; i < 64; i++) {
        snprintf(buf[i], sizeof buf[i], "%s %d from %s port %d",
                 i % 3 ? "accepted" : "refused", i * 7 % 13, i % 2 ? "alpha" : "beta",
                 i * 31 % 97);
        lines[i] = lines[i + 64] = buf[i];
    }
    uint32_t first[128];
    for (int round = 0; round < 2; round++) {
        logtk_parser *p = new_parser("lke");
        feed_all(p, lines, 128);
        for (int i = 0; i < 128; i++) {
            if (round == 0)
                first[i] = tid(p, (uint64_t)i);
            else
                CHECK(tid(p, (uint64_t)i) == first[i]);
        }
        for (int i = 0; i < 64; i++)
            CHECK(tid(p, (uint64_t)i) == tid(p, (uint64_t)i + 64));
        logtk_parser_free(p);
    }
}
