/*
 * test_parser_logmine.c - LogMine on small hand-made inputs: the max_dist threshold
 * that decides whether one differing word in four joins, the template text,
 * and parameter checking.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logtk.h"
#include "test_harness.h"
#include "parser_test_util.h"

static void test_logmine(void)
{
    static const char *const lines[] = {
        "Connection from alpha closed",
        "Connection from beta closed",
        "Disk sda failed now",
        "Connection from gamma closed",
    };
    /* default max_dist 0.001 (0.1 at level 1): one differing word in four is
     * a distance of 0.25, too far */
    logtk_parser *p = new_parser("logmine");
    feed_all(p, lines, 4);
    CHECK(tid(p, 0) != tid(p, 1));
    logtk_parser_free(p);

    p = new_parser("logmine");
    CHECK_STATUS(logtk_parser_set_param(p, "max_dist", "0.003"), LOGTK_OK);
    feed_all(p, lines, 4);
    CHECK(tid(p, 0) == tid(p, 1) && tid(p, 0) == tid(p, 3));
    CHECK(tid(p, 2) != tid(p, 0));
    CHECK(template_is(p, tid(p, 0), "Connection from <*> closed"));
    CHECK(template_is(p, tid(p, 2), "Disk sda failed now"));
    logtk_parser_free(p);
    p = new_parser("logmine");
    CHECK_STATUS(logtk_parser_set_param(p, "levels", "0"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_parser_set_param(p, "levels", "3"), LOGTK_OK);
    logtk_parser_free(p);
}

int main(void)
{
    test_logmine();
    return TEST_SUMMARY();
}
