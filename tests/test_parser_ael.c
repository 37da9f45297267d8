/*
 * test_parser_ael.c - AEL on small hand-made inputs: bins merged with masks and
 * merge_percent, a bin too small to merge (min_event_count), and parameter
 * checking.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logtk.h"
#include "test_harness.h"
#include "parser_test_util.h"

static void test_ael(void)
{
    static const char *const lines[] = {
        "Connection from 10.0.0.1 closed",
        "User alice logged in",
        "Connection from 10.0.0.2 closed",
        "User bob logged in",
        "Disk sda failed now",
        "User carol logged in",
    };
    logtk_parser *p = new_parser("ael");
    CHECK_STATUS(logtk_parser_add_mask(p, "(\\d+\\.){3}\\d+", NULL), LOGTK_OK);
    CHECK_STATUS(logtk_parser_set_param(p, "merge_percent", "0.5"), LOGTK_OK);
    CHECK_STATUS(logtk_parser_set_param(p, "min_event_count", "2"), LOGTK_OK);
    feed_all(p, lines, 6);
    CHECK(tid(p, 0) == tid(p, 2));
    CHECK(tid(p, 1) == tid(p, 3) && tid(p, 1) == tid(p, 5));
    CHECK(tid(p, 4) != tid(p, 1) && tid(p, 4) != tid(p, 0));
    CHECK(template_is(p, tid(p, 0), "Connection from <*> closed"));
    CHECK(template_is(p, tid(p, 1), "User <*> logged in"));
    CHECK(template_is(p, tid(p, 4), "Disk sda failed now"));
    logtk_parser_free(p);

    /* a bin with no more than min_event_count events is not merged */
    p = new_parser("ael");
    CHECK_STATUS(logtk_parser_set_param(p, "min_event_count", "5"), LOGTK_OK);
    feed_all(p, lines + 1, 3);
    CHECK(tid(p, 0) != tid(p, 2));
    CHECK_STATUS(logtk_parser_set_param(p, "merge_percent", "2"), LOGTK_ERR_INVALID);
    logtk_parser_free(p);
}

int main(void)
{
    test_ael();
    return TEST_SUMMARY();
}
