/*
 * test_parser_lfa.c - LFA on small hand-made inputs: the split at the largest gap
 * between word counts, lines kept whole, and that LFA takes no parameters.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logtk.h"
#include "test_harness.h"
#include "parser_test_util.h"

static void test_lfa(void)
{
    static const char *const lines[] = {
        "open file a.txt ok",
        "open file b.txt ok",
        "open file c.txt ok",
        "close file d.txt",  /* counts 1 4 1: split at 1, only "file" stays */
        "three unique words", /* all counts 1: kept whole */
        "lonely",             /* one word: kept whole */
        "<*> only one word",  /* "<*>" is left out of the counts: the rest tie, kept */
    };
    logtk_parser *p = new_parser("lfa");
    CHECK_STATUS(logtk_parser_set_param(p, "anything", "1"), LOGTK_ERR_NOT_FOUND);
    feed_all(p, lines, sizeof lines / sizeof lines[0]);
    CHECK(tid(p, 0) == tid(p, 1) && tid(p, 1) == tid(p, 2));
    CHECK(tid(p, 3) != tid(p, 0));
    CHECK(template_is(p, tid(p, 0), "open file <*> ok"));
    CHECK(template_is(p, tid(p, 3), "<*> file <*>"));
    CHECK(template_is(p, tid(p, 4), "three unique words"));
    CHECK(template_is(p, tid(p, 5), "lonely"));
    CHECK(logtk_parser_template_count(p) == 5);
    logtk_parser_free(p);

    /* largest gap: counts 1 (x/y/z), 3 ("ping"), 6 ("host" at position 0) */
    static const char *const gaps[] = {
        "host ping x", "host ping y", "host ping z",
        "host pong q", "host pong r", "host pong s",
    };
    p = new_parser("lfa");
    feed_all(p, gaps, 6);
    /* sorted counts 1 3 6: gaps 2 and 3, the split is at 3, so "ping" goes too */
    CHECK(template_is(p, tid(p, 0), "host <*> <*>"));
    CHECK(tid(p, 0) == tid(p, 5));
    logtk_parser_free(p);
}

int main(void)
{
    test_lfa();
    return TEST_SUMMARY();
}
