/*
 * test_parser_logcluster.c - LogCluster on small hand-made inputs: frequent
 * words make clusters, rare lines are outliers with their own template,
 * masks deleted as in the reference, support and rsupport checking.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logtk.h"
#include "test_harness.h"
#include "parser_test_util.h"

/* ------------------------------------------- LogCluster and SLCT (frequent words) */

static const char *const frequent_lines[] = {
    "Connection from 10.0.0.1 closed",
    "User alice logged in",
    "Connection from 10.0.0.2 closed",
    "User bob logged in",
    "Connection from 10.0.0.3 closed",
    "User carol logged in",
    "Connection from 10.0.0.4 closed",
    "User dave logged in",
    "rare event once",
    "rare event twice",
};
#define NFREQUENT (sizeof frequent_lines / sizeof frequent_lines[0])

static void test_logcluster(void)
{
    logtk_parser *p = new_parser("logcluster");
    /* support = int(30 * 10 / 100) = 3 */
    CHECK_STATUS(logtk_parser_set_param(p, "rsupport", "30"), LOGTK_OK);
    feed_all(p, frequent_lines, NFREQUENT);
    CHECK(tid(p, 0) == tid(p, 2) && tid(p, 0) == tid(p, 6));
    CHECK(tid(p, 1) == tid(p, 3) && tid(p, 1) == tid(p, 7));
    CHECK(tid(p, 0) != tid(p, 1));
    /* "rare event": 2 lines < support: outliers, each its own content */
    CHECK(tid(p, 8) != tid(p, 9));
    CHECK(tid(p, 8) != tid(p, 0) && tid(p, 8) != tid(p, 1));
    CHECK(template_is(p, tid(p, 0), "Connection from <*> closed"));
    CHECK(template_is(p, tid(p, 1), "User <*> logged in"));
    CHECK(template_is(p, tid(p, 8), "rare event once"));
    logtk_parser_free(p);

    /* masks are deleted as in the reference: "<*>" is no word; the text
       shown is made to match the lines (the addresses share "10.0.0.") */
    p = new_parser("logcluster");
    CHECK_STATUS(logtk_parser_add_mask(p, "(\\d+\\.){3}\\d+", NULL), LOGTK_OK);
    CHECK_STATUS(logtk_parser_set_param(p, "support", "2"), LOGTK_OK);
    feed_all(p, frequent_lines, NFREQUENT);
    CHECK(template_is(p, tid(p, 0), "Connection from 10.0.0.<*> closed"));
    CHECK(tid(p, 8) == tid(p, 9));
    CHECK(template_is(p, tid(p, 8), "rare event <*>"));
    logtk_parser_free(p);

    /* absolute support above every count: all lines are outliers */
    p = new_parser("logcluster");
    CHECK_STATUS(logtk_parser_set_param(p, "rsupport", "101"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_parser_set_param(p, "nope", "1"), LOGTK_ERR_NOT_FOUND);
    CHECK_STATUS(logtk_parser_set_param(p, "support", "5"), LOGTK_OK);
    feed_all(p, frequent_lines, NFREQUENT);
    CHECK(tid(p, 0) != tid(p, 2));
    CHECK(template_is(p, tid(p, 0), "Connection from 10.0.0.1 closed"));
    logtk_parser_free(p);
}

int main(void)
{
    test_logcluster();
    return TEST_SUMMARY();
}
