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

/* Equal lines are measured once: 10^5 of them (a quadratic pair count or
   walk takes minutes) finish at once with one template, and no cap. */
TEST(test_many_equal_lines_one_template)
{
    logtk_parser *p = new_parser("lke");
    for (int i = 0; i < 100000; i++)
        CHECK_STATUS(logtk_parser_feed(p, "disk full on volume", 19, NULL), LOGTK_OK);
    CHECK_STATUS(logtk_parser_finish(p), LOGTK_OK);
    CHECK(logtk_parser_template_count(p) == 1);
    CHECK(tid(p, 0) == tid(p, 99999));
    const char *what = "unset";
    CHECK(logtk_parser_capped(p, &what) == 0);
    CHECK(what == NULL);
    logtk_parser_free(p);
}

/* Past LKE_MAX_EVENTS (2048) distinct messages the later ones keep their own
   words, and the cap says how many lines it touched. */
TEST(test_distinct_cap_reported)
{
    logtk_parser *p = new_parser("lke");
    char line[64];
    for (int i = 0; i < 2100; i++) {
        int n = snprintf(line, sizeof line, "event w%c%c%c happened", 'a' + i % 26,
                         'a' + i / 26 % 26, 'a' + i / 676);
        CHECK_STATUS(logtk_parser_feed(p, line, (size_t)n, NULL), LOGTK_OK);
    }
    CHECK_STATUS(logtk_parser_finish(p), LOGTK_OK);
    const char *what = NULL;
    CHECK(logtk_parser_capped(p, &what) == 52);
    CHECK(what != NULL && strstr(what, "LKE_MAX_EVENTS") != NULL);
    CHECK(template_is(p, tid(p, 2099), "event wtcd happened"));
    logtk_parser_free(p);
}
