/*
 * test_suite3.c - the last published parsers (LFA, Logram, LogSig, LKE,
 * MoLFI) on small hand-made inputs: lines that must share a template, lines
 * that must not, the template text where the algorithm fixes it, parameter
 * checking, determinism of the randomised ones; and the dataset presets of
 * these parsers: every parameter a preset sets must be one the parser
 * accepts, since logtk_dataset_configure() silently skips unknown names.
 * Degenerate input (empty lines, huge lines) is covered for every
 * registered parser by test_suite.c.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dataset_registry.h"
#include "logtk.h"
#include "test_harness.h"
#include "parser_test_util.h"

/* -------------------------------------------------------------------- LFA */

static void test_lfa(void)
{
    static const char *const lines[] = {
        "open file a.txt ok",
        "open file b.txt ok",
        "open file c.txt ok",
        "close file d.txt",  /* counts 1 4 1: split at 1, only "file" stays */
        "three unique words", /* all counts 1: kept whole */
        "lonely",             /* one word: kept whole */
        "<*> only one word",  /* "<*>" is left out of the counts: the rest tie, kept */
    };
    logtk_parser *p = new_parser("lfa");
    CHECK_STATUS(logtk_parser_set_param(p, "anything", "1"), LOGTK_ERR_NOT_FOUND);
    feed_all(p, lines, sizeof lines / sizeof lines[0]);
    CHECK(tid(p, 0) == tid(p, 1) && tid(p, 1) == tid(p, 2));
    CHECK(tid(p, 3) != tid(p, 0));
    CHECK(template_is(p, tid(p, 0), "open file <*> ok"));
    CHECK(template_is(p, tid(p, 3), "<*> file <*>"));
    CHECK(template_is(p, tid(p, 4), "three unique words"));
    CHECK(template_is(p, tid(p, 5), "lonely"));
    CHECK(logtk_parser_template_count(p) == 5);
    logtk_parser_free(p);

    /* largest gap: counts 1 (x/y/z), 3 ("ping"), 6 ("host" at position 0) */
    static const char *const gaps[] = {
        "host ping x", "host ping y", "host ping z",
        "host pong q", "host pong r", "host pong s",
    };
    p = new_parser("lfa");
    feed_all(p, gaps, 6);
    /* sorted counts 1 3 6: gaps 2 and 3, the split is at 3, so "ping" goes too */
    CHECK(template_is(p, tid(p, 0), "host <*> <*>"));
    CHECK(tid(p, 0) == tid(p, 5));
    logtk_parser_free(p);
}

/* ----------------------------------------------------------------- Logram */

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

/* ----------------------------------------------------------------- LogSig */

static const char *const two_events[] = {
    "user alice logged in 1 times", "disk sda is full",
    "user bob logged in 22 times",  "disk sdb is full",
    "user carol logged in 3 times", "disk sdc is full",
};

static void logsig_run(const char *group_num, const char *seed, uint32_t *ids)
{
    logtk_parser *p = new_parser("logsig");
    CHECK_STATUS(logtk_parser_set_param(p, "group_num", group_num), LOGTK_OK);
    if (seed)
        CHECK_STATUS(logtk_parser_set_param(p, "seed", seed), LOGTK_OK);
    CHECK_STATUS(logtk_parser_add_mask(p, "\\d+", NULL), LOGTK_OK);
    feed_all(p, two_events, 6);
    for (int i = 0; i < 6; i++)
        ids[i] = tid(p, (uint64_t)i);
    if (strcmp(group_num, "2") == 0) {
        /* word pairs separate the two events; the signature keeps the words
           seen in at least half of the group's messages; masked words are
           dropped (the reference deletes what its regexes match) */
        CHECK(ids[0] == ids[2] && ids[2] == ids[4]);
        CHECK(ids[1] == ids[3] && ids[3] == ids[5]);
        CHECK(ids[0] != ids[1]);
        CHECK(template_is(p, ids[0], "user <*> logged in <*> times"));
        CHECK(template_is(p, ids[1], "disk <*> is full"));
    } else {
        /* one group: both sequences are frequent; the first seen wins, and
           the text shown matches the lines of both events */
        CHECK(template_is(p, ids[1], "<*> <*> <*> <*>"));
        CHECK(logtk_parser_template_count(p) == 1);
    }
    logtk_parser_free(p);
}

static void test_logsig(void)
{
    logtk_parser *p = new_parser("logsig");
    CHECK_STATUS(logtk_parser_set_param(p, "group_num", "0"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_parser_set_param(p, "seed", "-1"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_parser_set_param(p, "max_passes", "0"), LOGTK_ERR_INVALID);
    logtk_parser_free(p);
    uint32_t a[6], b[6], c[6];
    logsig_run("2", NULL, a);
    logsig_run("2", NULL, b);
    logsig_run("2", "7", c);
    CHECK(memcmp(a, b, sizeof a) == 0); /* deterministic */
    logsig_run("1", NULL, a);
}

/* -------------------------------------------------------------------- LKE */

static void test_lke(void)
{
    static const char *const lines[] = {
        "user alice logged in",  "disk sda is now full", "user bob logged in",
        "disk sdb is now full",  "user carol logged in", "disk sdc is now full",
    };
    logtk_parser *p = new_parser("lke");
    CHECK_STATUS(logtk_parser_set_param(p, "split_threshold", "0"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_parser_set_param(p, "split_threshold", "2"), LOGTK_OK);
    feed_all(p, lines, 6);
    /* edit distance links each event's messages; with 3 distinct user names
       and split_threshold 2 the groups are not split, and the template is the
       common subsequence of the group */
    CHECK(tid(p, 0) == tid(p, 2) && tid(p, 2) == tid(p, 4));
    CHECK(tid(p, 1) == tid(p, 3) && tid(p, 3) == tid(p, 5));
    CHECK(tid(p, 0) != tid(p, 1));
    CHECK(template_is(p, tid(p, 0), "user <*> logged in")); /* shown: the names come back as <*> */
    CHECK(template_is(p, tid(p, 1), "disk <*> is now full"));
    logtk_parser_free(p);

    /* the default split_threshold 4 lets the 3 distinct names split the group:
       each message becomes its own template */
    p = new_parser("lke");
    feed_all(p, lines, 6);
    CHECK(tid(p, 0) != tid(p, 2) && tid(p, 2) != tid(p, 4) && tid(p, 0) != tid(p, 4));
    CHECK(template_is(p, tid(p, 2), "user bob logged in"));
    logtk_parser_free(p);
}

/* ---------------------------------------------------------------- presets */

static void test_presets(void)
{
    static const char *const algos[] = {"lfa", "logram", "logsig", "lke"};
    for (size_t d = 0; d < dataset_count(); d++) {
        const logtk_dataset *ds = logtk_dataset_at(d);
        for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
            logtk_parser *p = new_parser(algos[a]);
            if (p == NULL)
                continue;
            const char *name, *value;
            for (size_t i = 0; dataset_param_at(ds, algos[a], i, &name, &value); i++) {
                int rc = logtk_parser_set_param(p, name, value);
                if (rc != LOGTK_OK)
                    fprintf(stderr, "%s %s: %s=%s rejected (%d)\n", logtk_dataset_name(ds),
                            algos[a], name, value, rc);
                CHECK(rc == LOGTK_OK);
            }
            CHECK_STATUS(logtk_dataset_configure(ds, p), LOGTK_OK);
            logtk_parser_free(p);
        }
    }
}

int main(void)
{
    test_lfa();
    test_logram();
    test_logsig();
    test_lke();
    test_presets();
    return TEST_SUMMARY();
}
