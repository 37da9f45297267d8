/*
 * test_parser_logsig.c - LogSig on small hand-made inputs: word pairs that
 * separate two events, the signature's words, one group, determinism of the
 * randomised search, and parameter checking.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logtk.h"
#include "test_harness.h"
#include "parser_test_util.h"

/* ----------------------------------------------------------------- LogSig */

static const char *const two_events[] = {
    "user alice logged in 1 times", "disk sda is full",
    "user bob logged in 22 times",  "disk sdb is full",
    "user carol logged in 3 times", "disk sdc is full",
};

static void logsig_run(const char *group_num, const char *seed, uint32_t *ids)
{
    logtk_parser *p = new_parser("logsig");
    CHECK_STATUS(logtk_parser_set_option(p, "group_num", group_num), LOGTK_OK);
    if (seed)
        CHECK_STATUS(logtk_parser_set_option(p, "seed", seed), LOGTK_OK);
    CHECK_STATUS(logtk_parser_add_mask(p, "\\d+", NULL), LOGTK_OK);
    feed_all(p, two_events, 6);
    for (int i = 0; i < 6; i++)
        ids[i] = tid(p, (uint64_t)i);
    if (strcmp(group_num, "2") == 0) {
        /* word pairs separate the two events; the signature keeps the words
           seen in at least half of the group's messages; masked words are
           dropped (the reference deletes what its regexes match) */
        CHECK(ids[0] == ids[2] && ids[2] == ids[4]);
        CHECK(ids[1] == ids[3] && ids[3] == ids[5]);
        CHECK(ids[0] != ids[1]);
        CHECK(template_is(p, ids[0], "user <*> logged in <*> times"));
        CHECK(template_is(p, ids[1], "disk <*> is full"));
    } else {
        /* one group: both sequences are frequent; the first seen wins, and
           the text shown matches the lines of both events */
        CHECK(template_is(p, ids[1], "<*> <*> <*> <*>"));
        CHECK(logtk_parser_template_count(p) == 1);
    }
    logtk_parser_free(p);
}

TEST(test_logsig)
{
    logtk_parser *p = new_parser("logsig");
    CHECK_STATUS(logtk_parser_set_option(p, "group_num", "0"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_parser_set_option(p, "seed", "-1"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_parser_set_option(p, "max_passes", "0"), LOGTK_ERR_INVALID);
    logtk_parser_free(p);
    uint32_t a[6], b[6], c[6];
    logsig_run("2", NULL, a);
    logsig_run("2", NULL, b);
    logsig_run("2", "7", c);
    CHECK(memcmp(a, b, sizeof a) == 0); /* deterministic */
    logsig_run("1", NULL, a);
}

/* A line past LOGSIG_MAX_TOKENS is read as its first 255 tokens and one
 * wildcard, and the cap is counted and named (logtk_parser_capped). */
TEST(logsig_reports_its_token_cap)
{
    logtk_parser *p = new_parser("logsig");
    char line[4096];
    size_t len = 0;
    for (int i = 0; i < 300; i++)
        len += (size_t)snprintf(line + len, sizeof line - len, "%sw%d", i ? " " : "", i);
    CHECK_STATUS(logtk_parser_feed(p, "short line here", 15, NULL), LOGTK_OK);
    CHECK_STATUS(logtk_parser_feed(p, line, len, NULL), LOGTK_OK);
    CHECK_STATUS(logtk_parser_finish(p), LOGTK_OK);
    const char *what = NULL;
    CHECK(logtk_parser_capped(p, &what) == 1);
    CHECK(what != NULL && strstr(what, "logsig") != NULL && strstr(what, "256") != NULL);
    logtk_parser_free(p);
}
