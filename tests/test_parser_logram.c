/*
 * test_parser_logram.c - Logram on small hand-made inputs: 2-gram and 3-gram
 * thresholds, the first token's rule, commas deleted from templates, and
 * parameter checking.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logtk.h"
#include "test_harness.h"
#include "parser_test_util.h"

static void test_logram(void)
{
    static const char *const lines[] = {
        "session opened for alice now",
        "session opened for bob now",
        "session opened for carol now",
        "hello 42", /* no 3-gram: never a variable */
    };
    logtk_parser *p = new_parser("logram");
    CHECK_STATUS(logtk_parser_set_param(p, "double_threshold", "-1"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_parser_set_param(p, "tri_threshold", "x"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_parser_set_param(p, "double_threshold", "2"), LOGTK_OK);
    CHECK_STATUS(logtk_parser_set_param(p, "tri_threshold", "2"), LOGTK_OK);
    feed_all(p, lines, sizeof lines / sizeof lines[0]);
    /* (opened, for, alice) is rare, but (opened, for) and (now, session), the
       wrap-around pair, are frequent; only the names stay variables */
    CHECK(tid(p, 0) == tid(p, 1) && tid(p, 1) == tid(p, 2));
    CHECK(template_is(p, tid(p, 0), "session opened for <*> now"));
    CHECK(template_is(p, tid(p, 3), "hello 42"));
    logtk_parser_free(p);

    /* the first token needs a 2-gram seen MORE than double_threshold times */
    static const char *const first[] = {"alpha beta gamma", "alpha beta delta"};
    p = new_parser("logram");
    CHECK_STATUS(logtk_parser_set_param(p, "double_threshold", "2"), LOGTK_OK);
    feed_all(p, first, 2);
    /* (alpha, beta) twice: not more than 2, so alpha is a variable; beta is
       kept by (alpha, beta) >= 2 */
    CHECK(template_is(p, tid(p, 0), "<*> beta <*>"));
    CHECK(tid(p, 0) == tid(p, 1));
    logtk_parser_free(p);

    /* commas are deleted from templates; a token of only commas vanishes
       from the algorithm's template, and the text shown puts back what the
       lines have there */
    static const char *const commas[] = {"x, y z", "x y z", ",, solo"};
    p = new_parser("logram");
    CHECK_STATUS(logtk_parser_set_param(p, "tri_threshold", "0"), LOGTK_OK);
    feed_all(p, commas, 3);
    CHECK(tid(p, 0) == tid(p, 1));
    CHECK(template_is(p, tid(p, 0), "x<*> y z"));
    CHECK(template_is(p, tid(p, 2), ",, solo"));
    logtk_parser_free(p);
}

int main(void)
{
    test_logram();
    return TEST_SUMMARY();
}
