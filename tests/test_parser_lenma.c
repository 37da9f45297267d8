/*
 * test_parser_lenma.c - LenMa on small hand-made inputs: word-length vectors that join,
 * a first word or too few equal words that keep lines apart, the threshold.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logtk.h"
#include "test_harness.h"
#include "parser_test_util.h"

static void test_lenma(void)
{
    static const char *const lines[] = {
        "Accepted password for alice from host port 22",
        "Accepted password for bobby from host port 23",
        "Accepted something else entirely different here now ok",
        "Rejected password for alice from host port 22",
        "Accepted password for carol from host port 25",
    };
    logtk_parser *p = new_parser("lenma");
    feed_all(p, lines, 5);
    CHECK(tid(p, 0) == tid(p, 1) && tid(p, 0) == tid(p, 4));
    CHECK(tid(p, 2) != tid(p, 0)); /* same length, too few equal words */
    CHECK(tid(p, 3) != tid(p, 0)); /* first word differs */
    CHECK(template_is(p, tid(p, 0), "Accepted password for <*> from host port <*>"));
    logtk_parser_free(p);

    /* a strict threshold keeps different word lengths apart */
    static const char *const shapes[] = {
        "job a started on node x",
        "job abcdefghijklmnop started on node xyzxyzxyzxyzxyzxyz",
    };
    p = new_parser("lenma");
    CHECK_STATUS(logtk_parser_set_param(p, "threshold", "0.99"), LOGTK_OK);
    feed_all(p, shapes, 2);
    CHECK(tid(p, 0) != tid(p, 1));
    logtk_parser_free(p);
    p = new_parser("lenma");
    feed_all(p, shapes, 2);
    CHECK(tid(p, 0) != tid(p, 1)); /* cosine of lengths about 0.6 < 0.9 */
    logtk_parser_free(p);
}

int main(void)
{
    test_lenma();
    return TEST_SUMMARY();
}
