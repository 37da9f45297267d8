/*
 * test_suite.c - the published parsers of the suite (Spell, IPLoM, AEL,
 * LenMa, ...) on small hand-made inputs: lines that must share a template,
 * lines that must not, the template text where the algorithm fixes it, and
 * parameter checking.  Then every registered parser (whoever wrote it) is
 * fed degenerate input: empty lines, a line of only whitespace, a
 * 10,000-token line, and a run of one line in total; each must finish and
 * give every line a valid template.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "logtk.h"
#include "test_harness.h"
#include "parser_test_util.h"

/* ------------------------------------------------------------------ Spell */

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

/* ------------------------------------------------------------------ IPLoM */

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

/* -------------------------------------------------------------------- AEL */

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

/* ------------------------------------------------------------------ LenMa */

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

/* ---------------------------------------------------------------- LogMine */

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

/* ------------------------------------------------- every parser, degenerate */

static char *long_line(size_t ntokens)
{
    char *s = malloc(ntokens * 8 + 1);
    size_t len = 0;
    for (size_t i = 0; i < ntokens; i++)
        len += (size_t)sprintf(s + len, "%s%zu", i ? " t" : "t", i % 1000);
    s[len] = '\0';
    return s;
}

static void check_all_assigned(logtk_parser *p, const char *const *contents, size_t n,
                               const char *algo)
{
    uint32_t count = logtk_parser_template_count(p);
    CHECK(count >= 1);
    for (size_t i = 0; i < n; i++) {
        uint32_t id = 0;
        int rc = logtk_parser_assignment(p, i, &id);
        CHECK(rc == LOGTK_OK);
        if (rc != LOGTK_OK || id == 0 || id > count) {
            fprintf(stderr, "%s: line %zu has template %u of %u\n", algo, i, (unsigned)id,
                    (unsigned)count);
            CHECK(0);
            continue;
        }
        logtk_slice text;
        uint64_t lines;
        CHECK_STATUS(logtk_parser_template(p, id, &text, &lines), LOGTK_OK);
        CHECK(lines >= 1);
        logtk_event ev;
        CHECK_STATUS(logtk_parser_extract(p, id, contents[i], strlen(contents[i]), &ev), LOGTK_OK);
    }
}

static void test_degenerate(const char *algo)
{
    char *big = long_line(10000);
    const char *lines[] = {"", "   \t  ", big, "a b c", "", big, "a b d", "\t"};
    size_t n = sizeof lines / sizeof lines[0];
    logtk_parser *p = new_parser(algo);
    if (p == NULL) {
        free(big);
        return;
    }
    for (size_t i = 0; i < n; i++)
        CHECK_STATUS(logtk_parser_feed(p, lines[i], strlen(lines[i]), NULL), LOGTK_OK);
    CHECK_STATUS(logtk_parser_finish(p), LOGTK_OK);
    check_all_assigned(p, lines, n, algo);
    /* the two empty lines and the two identical long lines share templates */
    CHECK(tid(p, 0) == tid(p, 4));
    CHECK(tid(p, 2) == tid(p, 5));
    logtk_parser_free(p);

    /* one line in total, and one empty line in total */
    for (int k = 0; k < 3; k++) {
        const char *one = k == 0 ? "only one line here" : k == 1 ? "" : big;
        p = new_parser(algo);
        CHECK_STATUS(logtk_parser_feed(p, one, strlen(one), NULL), LOGTK_OK);
        CHECK_STATUS(logtk_parser_finish(p), LOGTK_OK);
        check_all_assigned(p, &one, 1, algo);
        logtk_parser_free(p);
    }
    free(big);
}

int main(void)
{
    test_spell();
    test_iplom();
    test_ael();
    test_lenma();
    test_logmine();
    for (size_t i = 0; logtk_parser_algorithm_name(i); i++) {
        const char *algo = logtk_parser_algorithm_name(i);
        CHECK(logtk_parser_algorithm_summary(i) != NULL);
        test_degenerate(algo);
    }
    return TEST_SUMMARY();
}
