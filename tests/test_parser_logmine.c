/*
 * test_parser_logmine.c - LogMine's cost on hostile inputs: repeated
 * messages are measured only against what is new, and the cap on the
 * clusters one message is measured against is counted and reported.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logtk.h"
#include "test_harness.h"
#include "parser_test_util.h"

/* 10^5 empty lines and 10^5 equal two-word lines (whose distance to
   themselves rounds to exactly 0, so each copy opens a cluster, as in the
   reference): quadratic before, at once now, one template each, no cap. */
TEST(test_many_equal_lines)
{
    logtk_parser *p = new_parser("logmine");
    for (int i = 0; i < 100000; i++)
        CHECK_STATUS(logtk_parser_feed(p, "", 0, NULL), LOGTK_OK);
    for (int i = 0; i < 100000; i++)
        CHECK_STATUS(logtk_parser_feed(p, "alpha beta", 10, NULL), LOGTK_OK);
    CHECK_STATUS(logtk_parser_finish(p), LOGTK_OK);
    CHECK(logtk_parser_template_count(p) == 2);
    CHECK(tid(p, 0) == tid(p, 99999));
    CHECK(tid(p, 100000) == tid(p, 199999));
    CHECK(template_is(p, tid(p, 100000), "alpha beta"));
    CHECK(logtk_parser_capped(p, NULL) == 0);
    logtk_parser_free(p);
}

/* max_dist 1 gives the index no bound, so every cluster is a candidate:
   past LOGMINE_MAX_CANDIDATES (4096) clusters each message is counted. */
TEST(test_candidate_cap_reported)
{
    logtk_parser *p = new_parser("logmine");
    CHECK_STATUS(logtk_parser_set_option(p, "max_dist", "1"), LOGTK_OK);
    CHECK_STATUS(logtk_parser_set_option(p, "levels", "1"), LOGTK_OK);
    char line[32];
    for (int i = 0; i < 5000; i++) {
        int n = snprintf(line, sizeof line, "w%c%c%c", 'a' + i % 26, 'a' + i / 26 % 26,
                         'a' + i / 676);
        CHECK_STATUS(logtk_parser_feed(p, line, (size_t)n, NULL), LOGTK_OK);
    }
    CHECK_STATUS(logtk_parser_finish(p), LOGTK_OK);
    const char *what = NULL;
    CHECK(logtk_parser_capped(p, &what) == 5000 - 4097);
    CHECK(what != NULL && strstr(what, "LOGMINE_MAX_CANDIDATES") != NULL);
    CHECK(logtk_parser_template_count(p) == 5000);
    logtk_parser_free(p);
}
