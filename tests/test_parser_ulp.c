/*
 * test_parser_ulp.c - ULP on small hand-made inputs: the key of plain words ('-' and
 * times removed), the local frequency that makes values "<*>", and that ULP
 * takes no parameters.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logtk.h"
#include "test_harness.h"
#include "parser_test_util.h"

static void test_ulp(void)
{
    static const char *const lines[] = {
        "Received block blk_1 of size 67",
        "Received block blk_2 of size 68",
        "Deleting file /tmp/x now",
        "User alice logged in",
        "User bob logged in",
        "start-up done",   /* '-' is deleted from the key: "startup done" */
        "startup done",
        "took 12:30:45 ms", /* ULP's time regex removes the word from the key */
        "took ms",
    };
    logtk_parser *p = new_parser("ulp");
    CHECK_STATUS(logtk_parser_set_param(p, "anything", "1"), LOGTK_ERR_NOT_FOUND);
    feed_all(p, lines, sizeof lines / sizeof lines[0]);
    CHECK(tid(p, 0) == tid(p, 1));
    CHECK(tid(p, 0) != tid(p, 2));
    /* plain words are the key: different user names are different groups */
    CHECK(tid(p, 3) != tid(p, 4));
    CHECK(tid(p, 5) == tid(p, 6));
    CHECK(tid(p, 7) == tid(p, 8));
    /* local frequency: blk_1/blk_2 occur in one of two messages; integers go too */
    CHECK(template_is(p, tid(p, 0), "Received block <*> of size <*>"));
    CHECK(template_is(p, tid(p, 2), "Deleting file /tmp/x now"));
    logtk_parser_free(p);
}

int main(void)
{
    test_ulp();
    return TEST_SUMMARY();
}
