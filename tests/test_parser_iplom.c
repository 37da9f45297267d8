/*
 * test_parser_iplom.c - IPLoM on small hand-made inputs: the partitions by length and
 * position, the template texts and count, and parameter checking.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logtk.h"
#include "test_harness.h"
#include "parser_test_util.h"

static void test_iplom(void)
{
    static const char *const lines[] = {
        "Connection from 10.0.0.1 closed",
        "User alice logged in",
        "Connection from 10.0.0.2 closed",
        "User bob logged in",
        "Connection from 10.0.0.3 closed",
        "short line",
        "short line",
    };
    logtk_parser *p = new_parser("iplom");
    feed_all(p, lines, 7);
    CHECK(tid(p, 0) == tid(p, 2) && tid(p, 0) == tid(p, 4));
    CHECK(tid(p, 1) == tid(p, 3));
    CHECK(tid(p, 0) != tid(p, 1));
    CHECK(tid(p, 5) == tid(p, 6) && tid(p, 5) != tid(p, 0));
    CHECK(template_is(p, tid(p, 0), "Connection from <*> closed"));
    CHECK(template_is(p, tid(p, 1), "User <*> logged in"));
    CHECK(template_is(p, tid(p, 5), "short line"));
    CHECK(logtk_parser_template_count(p) == 3);
    logtk_parser_free(p);

    p = new_parser("iplom");
    CHECK_STATUS(logtk_parser_set_param(p, "ct", "0.5"), LOGTK_OK);
    CHECK_STATUS(logtk_parser_set_param(p, "lower_bound", "0.1"), LOGTK_OK);
    CHECK_STATUS(logtk_parser_set_param(p, "ct", "-1"), LOGTK_ERR_INVALID);
    logtk_parser_free(p);
}

int main(void)
{
    test_iplom();
    return TEST_SUMMARY();
}
