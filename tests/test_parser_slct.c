/*
 * test_parser_slct.c - SLCT as logparser runs it (slct -j -r, then every
 * line matched again against the printed patterns): frequent words at their
 * position, join, refine (common prefix and suffix of a variable word),
 * matching order, outliers, and parameter checking.
 *
 * The cases are small enough to follow by hand: each comment says which
 * candidates, supports and patterns slct finds, so a failure points at the
 * step (join, refine, matching order, outliers) that changed.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logtk.h"
#include "test_harness.h"
#include "parser_test_util.h"

/* ------------------------------------------- LogCluster and SLCT (frequent words) */

static const char *const frequent_lines[] = {
    "Connection from 10.0.0.1 closed",
    "User alice logged in",
    "Connection from 10.0.0.2 closed",
    "User bob logged in",
    "Connection from 10.0.0.3 closed",
    "User carol logged in",
    "Connection from 10.0.0.4 closed",
    "User dave logged in",
    "rare event once",
    "rare event twice",
};
#define NFREQUENT (sizeof frequent_lines / sizeof frequent_lines[0])

static void test_slct(void)
{
    logtk_parser *p = new_parser("slct");
    CHECK_STATUS(logtk_parser_set_param(p, "support", "3"), LOGTK_OK);
    feed_all(p, frequent_lines, NFREQUENT);
    CHECK(tid(p, 0) == tid(p, 2) && tid(p, 0) == tid(p, 6));
    CHECK(tid(p, 1) == tid(p, 3) && tid(p, 1) == tid(p, 7));
    CHECK(tid(p, 0) != tid(p, 1));
    CHECK(tid(p, 8) != tid(p, 9));
    /* slct -r keeps the common prefix of a variable word (see test_slct_refine) */
    CHECK(template_is(p, tid(p, 0), "Connection from 10.0.0.<*> closed"));
    CHECK(template_is(p, tid(p, 1), "User <*> logged in"));
    CHECK(template_is(p, tid(p, 9), "rare event twice"));
    logtk_parser_free(p);

    /* words count at their position: shifted words are not the same word */
    static const char *const shifted[] = {
        "alpha beta gamma", "alpha beta delta", "x alpha beta", "y alpha beta",
    };
    p = new_parser("slct");
    CHECK_STATUS(logtk_parser_set_param(p, "support", "0"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_parser_set_param(p, "support", "2"), LOGTK_OK);
    feed_all(p, shifted, 4);
    CHECK(tid(p, 0) == tid(p, 1));
    CHECK(tid(p, 2) == tid(p, 3));
    CHECK(tid(p, 0) != tid(p, 2));
    CHECK(template_is(p, tid(p, 0), "alpha beta <*>a")); /* common suffix "a" (slct -r) */
    CHECK(template_is(p, tid(p, 2), "<*> alpha beta"));
    logtk_parser_free(p);
}

/* Five "start job" lines; the node is n1 three times, n2 and n3 once. */
static const char *const jobs[] = {
    "start job a on node n1", "start job b on node n1", "start job c on node n1",
    "start job d on node n2", "start job e on node n3",
};
#define NJOBS (sizeof jobs / sizeof jobs[0])

static logtk_parser *slct_with(const char *support, const char *join, const char *shared)
{
    logtk_parser *p = new_parser("slct");
    CHECK_STATUS(logtk_parser_set_param(p, "support", support), LOGTK_OK);
    if (join)
        CHECK_STATUS(logtk_parser_set_param(p, "join", join), LOGTK_OK);
    if (shared)
        CHECK_STATUS(logtk_parser_set_param(p, "shared_outliers", shared), LOGTK_OK);
    return p;
}

/*
 * support 3: candidates {start job on node n1} (3 lines) and {start job on
 * node} (2 lines).  Join gives the general one support 2 + 3 = 5, so it is a
 * cluster; refined over its members in line order, the node word is dropped
 * ("n1" twice: slct drops a word its members agree on) and so is the job
 * word (no common prefix or suffix).  Its text is the longer one, so the
 * wrapper tries it first and every line takes it: the frequent n1 does not
 * split the event.
 */
static void test_slct_join(void)
{
    logtk_parser *p = slct_with("3", NULL, NULL);
    feed_all(p, jobs, NJOBS);
    for (size_t i = 1; i < NJOBS; i++)
        CHECK(tid(p, i) == tid(p, 0));
    CHECK(template_is(p, tid(p, 0), "start job <*> on node <*>"));
    CHECK(logtk_parser_template_count(p) == 1);
    logtk_parser_free(p);

    /* without join only the n1 candidate is a cluster; n2 and n3 match no
       pattern and are outliers with their own templates */
    p = slct_with("3", "0", NULL);
    feed_all(p, jobs, NJOBS);
    CHECK(tid(p, 0) == tid(p, 1) && tid(p, 1) == tid(p, 2));
    CHECK(template_is(p, tid(p, 0), "start job <*> on node n1"));
    CHECK(tid(p, 3) != tid(p, 0) && tid(p, 4) != tid(p, 0) && tid(p, 3) != tid(p, 4));
    CHECK(template_is(p, tid(p, 3), "start job d on node n2"));
    logtk_parser_free(p);

    /* the wrapper as it runs: every unmatched line in one event */
    p = slct_with("3", "0", "1");
    feed_all(p, jobs, NJOBS);
    CHECK(tid(p, 3) == tid(p, 4) && tid(p, 3) != tid(p, 0));
    CHECK(template_is(p, tid(p, 3), "<*>"));
    logtk_parser_free(p);
}

/*
 * Refine: the pattern is as long as the shortest member, a variable word
 * keeps the common prefix and suffix of its members, and a word all members
 * agree on (below support) becomes "<*>" (slct drops overlapping
 * prefix/suffix).  Matching: "<*>" spans several words, so a longer line
 * with the same start joins; the line "disk full" has no frequent word at
 * all but still matches nothing and stays apart.
 */
static void test_slct_refine(void)
{
    static const char *const lines[] = {
        "read block blk_1 done x",  "read block blk_2 done y y", "read block blk_3 done z",
        "read block blk_4 done w w w", "disk full",
    };
    logtk_parser *p = slct_with("4", NULL, NULL);
    feed_all(p, lines, 5);
    for (size_t i = 1; i < 4; i++)
        CHECK(tid(p, i) == tid(p, 0));
    CHECK(template_is(p, tid(p, 0), "read block blk_<*> done <*>"));
    CHECK(tid(p, 4) != tid(p, 0));
    CHECK(template_is(p, tid(p, 4), "disk full"));
    logtk_parser_free(p);

    /* equal variable words: "same" in every member, but below support 5 */
    static const char *const same[] = {
        "open file same now", "open file same now", "open file other now",
        "open file same now", "open file same now",
    };
    p = slct_with("4", NULL, NULL);
    feed_all(p, same, 5);
    /* candidate {open file same now} (4 lines, "same" is frequent at 4) is a
       cluster; {open file now} (1 line) generalises it, so its support is
       1 + 4 = 5: also a cluster.  Its first two members both say "same":
       prefix and suffix overlap and slct drops the word -> "<*>".  The
       longer text "open file same now" is tried first. */
    CHECK(tid(p, 0) == tid(p, 1) && tid(p, 0) == tid(p, 3));
    CHECK(template_is(p, tid(p, 0), "open file same now"));
    CHECK(template_is(p, tid(p, 2), "open file <*> now"));
    logtk_parser_free(p);
}

/*
 * Matching order: longest pattern text first.  {a b c} (3 lines) and, by
 * join, {a b} (2 + 3 lines) are clusters; "a b <*>" is as long as its
 * shortest member and its first two members agree on "c" (dropped), while
 * "a b c d<*>" keeps the common prefix "d".  Both match "a b c d3"; the
 * longer wins.
 */
static void test_slct_order(void)
{
    static const char *const lines[] = {
        "a b c d1", "a b c d2", "a b x1", "a b x2", "a b c d3",
    };
    logtk_parser *p = slct_with("2", NULL, NULL);
    feed_all(p, lines, 5);
    CHECK(tid(p, 0) == tid(p, 1) && tid(p, 0) == tid(p, 4));
    CHECK(template_is(p, tid(p, 0), "a b c d<*>"));
    CHECK(tid(p, 2) == tid(p, 3) && tid(p, 2) != tid(p, 0));
    CHECK(template_is(p, tid(p, 2), "a b <*>"));
    logtk_parser_free(p);
}

static void test_slct_params(void)
{
    logtk_parser *p = new_parser("slct");
    CHECK_STATUS(logtk_parser_set_param(p, "join", "2"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_parser_set_param(p, "refine", "-1"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_parser_set_param(p, "shared_outliers", "x"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_parser_set_param(p, "refine", "0"), LOGTK_OK);
    CHECK_STATUS(logtk_parser_set_param(p, "support", "3"), LOGTK_OK);
    feed_all(p, jobs, NJOBS);
    /* without refine a cluster prints "<*>" for every variable and stops at
       its last constant: "start job <*> on node" is not tried before the
       longer n1 pattern and matches neither n2 nor n3 line (anchored at the
       end), which stay outliers */
    CHECK(template_is(p, tid(p, 0), "start job <*> on node n1"));
    CHECK(tid(p, 1) == tid(p, 0));
    CHECK(template_is(p, tid(p, 3), "start job d on node n2"));
    logtk_parser_free(p);

    /* no line at all, and a support no line reaches */
    p = new_parser("slct");
    CHECK_STATUS(logtk_parser_finish(p), LOGTK_OK);
    CHECK(logtk_parser_template_count(p) == 0);
    logtk_parser_free(p);
    p = slct_with("100", NULL, NULL);
    feed_all(p, jobs, NJOBS);
    CHECK(tid(p, 0) != tid(p, 1));
    CHECK(template_is(p, tid(p, 4), "start job e on node n3"));
    logtk_parser_free(p);
}

int main(void)
{
    test_slct();
    test_slct_join();
    test_slct_refine();
    test_slct_order();
    test_slct_params();
    return TEST_SUMMARY();
}
