/*
 * test_parser_shiso.c - SHISO on small hand-made inputs: the character-class
 * distance, the wildcard at distance 0, merge_threshold and max_child_num,
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

static void test_shiso(void)
{
    static const char *const lines[] = {
        "Connection from 10.0.0.1 closed",
        "Connection from 10.0.0.2 closed",
        "User alice logged in now",
        "User Alice logged in now",
        "Disk full",
        "User admin logged in",
    };
    logtk_parser *p = new_parser("shiso");
    feed_all(p, lines, sizeof lines / sizeof lines[0]);
    CHECK(tid(p, 0) == tid(p, 1));
    /* "Alice" vs "alice": distance 0.24 over 2 * 5 positions, within 0.1 */
    CHECK(tid(p, 2) == tid(p, 3));
    CHECK(tid(p, 0) != tid(p, 2));
    CHECK(tid(p, 4) != tid(p, 0) && tid(p, 4) != tid(p, 2));
    /* a wildcard is at distance 0 from anything: "User" is close to
       "Connection" (both mostly lowercase), so this line joins line 0's format */
    CHECK(tid(p, 5) == tid(p, 0));
    CHECK(template_is(p, tid(p, 0), "<*> <*> <*> <*>"));
    CHECK(template_is(p, tid(p, 2), "User <*> logged in now"));
    CHECK(template_is(p, tid(p, 4), "Disk full"));
    logtk_parser_free(p);

    /* a tight threshold separates words of different character classes */
    p = new_parser("shiso");
    CHECK_STATUS(logtk_parser_set_param(p, "merge_threshold", "0.01"), LOGTK_OK);
    feed_all(p, lines, 4);
    CHECK(tid(p, 0) == tid(p, 1));
    CHECK(template_is(p, tid(p, 0), "Connection from <*> closed"));
    CHECK(tid(p, 2) != tid(p, 3));
    logtk_parser_free(p);

    /* one child per node: new formats descend instead of widening the root */
    p = new_parser("shiso");
    CHECK_STATUS(logtk_parser_set_param(p, "max_child_num", "1"), LOGTK_OK);
    feed_all(p, lines, 5);
    CHECK(tid(p, 0) == tid(p, 1));
    CHECK(tid(p, 2) == tid(p, 3));
    CHECK(tid(p, 0) != tid(p, 2) && tid(p, 0) != tid(p, 4) && tid(p, 2) != tid(p, 4));
    CHECK(logtk_parser_template_count(p) == 3);
    logtk_parser_free(p);

    p = new_parser("shiso");
    CHECK_STATUS(logtk_parser_set_param(p, "max_child_num", "0"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_parser_set_param(p, "merge_threshold", "2"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_parser_set_param(p, "super_format_threshold", "0.85"), LOGTK_OK);
    CHECK_STATUS(logtk_parser_set_param(p, "nope", "1"), LOGTK_ERR_NOT_FOUND);
    logtk_parser_free(p);
}

int main(void)
{
    test_shiso();
    return TEST_SUMMARY();
}
