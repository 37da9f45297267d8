/*
 * test_parser_lke.c - LKE as logparser's LKE.py runs it: edit-distance links
 * and split_threshold; the initial groups come from a depth-first walk over
 * forward links only (not connected components); words are the text left
 * after the masks' matches are deleted (not the tokens of the masked text);
 * the same input gives the same result.
 *
 * The inputs are small enough to follow by hand; each comment gives the
 * links the 2-means threshold leaves, so a failure points at the step.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logtk.h"
#include "test_harness.h"
#include "parser_test_util.h"

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

/*
 * Six 4-word lines (v = 4).  The 2-means puts the threshold at 3.18 (the
 * smallest far distance), which keeps exactly two links, both forward into
 * line 2: 0 -> 2 (1.86) and 1 -> 2 (1.46); lines 0 and 1 are far apart.  The walk from line 0 takes line 2; the walk from line 1 finds
 * 2 taken and stays alone.  Connected components would put 0, 1 and 2 in
 * one group, whose common part is not line 1's own words.
 */
static void test_forward_walk(void)
{
    static const char *const lines[] = {
        "a a d d", "a d a a", "a d a d", "b c a d", "d c b a", "b d d c",
    };
    logtk_parser *p = new_parser("lke");
    CHECK_STATUS(logtk_parser_set_param(p, "split_threshold", "2"), LOGTK_OK);
    feed_all(p, lines, 6);
    CHECK(tid(p, 0) == tid(p, 2));
    CHECK(tid(p, 1) != tid(p, 0));
    /* {0, 2}: split_threshold 2 forbids a split; the common subsequence read
       back with the reference's tie order */
    CHECK(template_is(p, tid(p, 0), "a <*>a d<*>")); /* "a a d" shown so that it matches both lines */
    CHECK(template_is(p, tid(p, 1), "a d a a"));
    for (size_t i = 3; i < 6; i++) {
        CHECK(tid(p, i) != tid(p, 0) && tid(p, i) != tid(p, 1));
        CHECK(template_is(p, tid(p, i), lines[i]));
    }
    CHECK(logtk_parser_template_count(p) == 5);
    logtk_parser_free(p);

    /* the default split_threshold 4 lets {0, 2} split by its variable runs:
       every line is its own template */
    p = new_parser("lke");
    feed_all(p, lines, 6);
    for (size_t i = 0; i < 6; i++)
        CHECK(template_is(p, tid(p, i), lines[i]));
    CHECK(logtk_parser_template_count(p) == 6);
    logtk_parser_free(p);
}

/*
 * The reference deletes what a mask matches, then splits: "x=17" becomes
 * the word "x", the same word as a literal "x"; a token that was all match
 * disappears.  So "job x=1 done", "job x=22 done" and "job x done" are one
 * word sequence "job x done", and "run 5 now" (the "5" masked whole by a
 * second rule) is "run now".
 */
static void test_deleted_matches(void)
{
    static const char *const lines[] = {
        "job x=1 done", "job x=22 done", "job x done",  "run 5 now",
        "run 77 now",   "stop all jobs", "stop all jobs",
    };
    logtk_parser *p = new_parser("lke");
    CHECK_STATUS(logtk_parser_add_mask(p, "=\\d+", NULL), LOGTK_OK);
    CHECK_STATUS(logtk_parser_add_mask(p, "\\b\\d+\\b", NULL), LOGTK_OK);
    feed_all(p, lines, 7);
    CHECK(tid(p, 0) == tid(p, 1) && tid(p, 1) == tid(p, 2));
    /* the masked text is deleted from the algorithm's template ("job x
       done", "run now"), and comes back as "<*>" in the text shown */
    CHECK(template_is(p, tid(p, 0), "job x<*> done"));
    CHECK(tid(p, 3) == tid(p, 4));
    CHECK(template_is(p, tid(p, 3), "run <*> now"));
    CHECK(tid(p, 5) == tid(p, 6) && tid(p, 5) != tid(p, 0) && tid(p, 5) != tid(p, 3));
    CHECK(template_is(p, tid(p, 5), "stop all jobs"));
    logtk_parser_free(p);
}

/* Same input, same result (nothing depends on allocation or hashing order),
   and equal messages always share the template last given to their words. */
static void test_deterministic(void)
{
    char buf[64][48];
    const char *lines[128];
    for (int i = 0; i < 64; i++) {
        snprintf(buf[i], sizeof buf[i], "%s %d from %s port %d",
                 i % 3 ? "accepted" : "refused", i * 7 % 13, i % 2 ? "alpha" : "beta",
                 i * 31 % 97);
        lines[i] = lines[i + 64] = buf[i];
    }
    uint32_t first[128];
    for (int round = 0; round < 2; round++) {
        logtk_parser *p = new_parser("lke");
        feed_all(p, lines, 128);
        for (int i = 0; i < 128; i++) {
            if (round == 0)
                first[i] = tid(p, (uint64_t)i);
            else
                CHECK(tid(p, (uint64_t)i) == first[i]);
        }
        for (int i = 0; i < 64; i++)
            CHECK(tid(p, (uint64_t)i) == tid(p, (uint64_t)i + 64));
        logtk_parser_free(p);
    }
}

int main(void)
{
    test_lke();
    test_forward_walk();
    test_deleted_matches();
    test_deterministic();
    return TEST_SUMMARY();
}
