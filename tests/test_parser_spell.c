/*
 * test_parser_spell.c - Spell on small hand-made inputs: lines that must share a template,
 * lines that must not, the template text (with the lines' own '=' put back),
 * the tau threshold and parameter checking.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logtk.h"
#include "test_harness.h"
#include "parser_test_util.h"

static void test_spell(void)
{
    static const char *const lines[] = {
        "Received block blk_1 of size 67 from 10.0.0.1",
        "Received block blk_2 of size 68 from 10.0.0.2",
        "Deleting file /tmp/x now",
        "Received block blk_3 of size 99 from 10.0.0.9",
        "session opened for user=root by uid=0",
        "session opened for user=bob by uid=1000",
    };
    logtk_parser *p = new_parser("spell");
    feed_all(p, lines, 6);
    CHECK(tid(p, 0) == tid(p, 1));
    CHECK(tid(p, 0) == tid(p, 3));
    CHECK(tid(p, 0) != tid(p, 2));
    CHECK(tid(p, 4) == tid(p, 5));
    CHECK(tid(p, 4) != tid(p, 0));
    CHECK(template_is(p, tid(p, 0), "Received block <*> of size <*> from <*>"));
    /* '=' separates tokens, as in the reference; the text shown puts the
       lines' own '=' back, so that it matches them */
    CHECK(template_is(p, tid(p, 4), "session opened for user=<*> by uid=<*>"));
    CHECK(template_is(p, tid(p, 2), "Deleting file /tmp/x now"));
    logtk_parser_free(p);

    /* tau: with 0.9 the two block lines (5 of 8 tokens common) stay apart */
    p = new_parser("spell");
    CHECK_STATUS(logtk_parser_set_param(p, "tau", "0.9"), LOGTK_OK);
    feed_all(p, lines, 2);
    CHECK(tid(p, 0) != tid(p, 1));
    CHECK_STATUS(logtk_parser_set_param(p, "tau", "x"), LOGTK_ERR_INVALID);
    logtk_parser_free(p);
    p = new_parser("spell");
    CHECK_STATUS(logtk_parser_set_param(p, "tau", "1.5"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_parser_set_param(p, "nope", "1"), LOGTK_ERR_NOT_FOUND);
    logtk_parser_free(p);
}

int main(void)
{
    test_spell();
    return TEST_SUMMARY();
}
