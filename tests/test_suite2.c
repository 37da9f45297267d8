/*
 * test_suite2.c - the second half of the published parsers (ULP, SHISO,
 * LogCluster, SLCT) on small hand-made inputs: lines that must share a
 * template, lines that must not, the template text where the algorithm
 * fixes it, parameter checking; and the dataset presets of these parsers
 * (and LogMine's): every parameter a preset sets must be one the parser
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

/* -------------------------------------------------------------------- ULP */

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

/* ------------------------------------------------------------------ SHISO */

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

static void test_logcluster(void)
{
    logtk_parser *p = new_parser("logcluster");
    /* support = int(30 * 10 / 100) = 3 */
    CHECK_STATUS(logtk_parser_set_param(p, "rsupport", "30"), LOGTK_OK);
    feed_all(p, frequent_lines, NFREQUENT);
    CHECK(tid(p, 0) == tid(p, 2) && tid(p, 0) == tid(p, 6));
    CHECK(tid(p, 1) == tid(p, 3) && tid(p, 1) == tid(p, 7));
    CHECK(tid(p, 0) != tid(p, 1));
    /* "rare event": 2 lines < support: outliers, each its own content */
    CHECK(tid(p, 8) != tid(p, 9));
    CHECK(tid(p, 8) != tid(p, 0) && tid(p, 8) != tid(p, 1));
    CHECK(template_is(p, tid(p, 0), "Connection from <*> closed"));
    CHECK(template_is(p, tid(p, 1), "User <*> logged in"));
    CHECK(template_is(p, tid(p, 8), "rare event once"));
    logtk_parser_free(p);

    /* masks are deleted as in the reference: "<*>" is no word; the text
       shown is made to match the lines (the addresses share "10.0.0.") */
    p = new_parser("logcluster");
    CHECK_STATUS(logtk_parser_add_mask(p, "(\\d+\\.){3}\\d+", NULL), LOGTK_OK);
    CHECK_STATUS(logtk_parser_set_param(p, "support", "2"), LOGTK_OK);
    feed_all(p, frequent_lines, NFREQUENT);
    CHECK(template_is(p, tid(p, 0), "Connection from 10.0.0.<*> closed"));
    CHECK(tid(p, 8) == tid(p, 9));
    CHECK(template_is(p, tid(p, 8), "rare event <*>"));
    logtk_parser_free(p);

    /* absolute support above every count: all lines are outliers */
    p = new_parser("logcluster");
    CHECK_STATUS(logtk_parser_set_param(p, "rsupport", "101"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_parser_set_param(p, "nope", "1"), LOGTK_ERR_NOT_FOUND);
    CHECK_STATUS(logtk_parser_set_param(p, "support", "5"), LOGTK_OK);
    feed_all(p, frequent_lines, NFREQUENT);
    CHECK(tid(p, 0) != tid(p, 2));
    CHECK(template_is(p, tid(p, 0), "Connection from 10.0.0.1 closed"));
    logtk_parser_free(p);
}

static void test_slct(void)
{
    logtk_parser *p = new_parser("slct");
    CHECK_STATUS(logtk_parser_set_param(p, "support", "3"), LOGTK_OK);
    feed_all(p, frequent_lines, NFREQUENT);
    CHECK(tid(p, 0) == tid(p, 2) && tid(p, 0) == tid(p, 6));
    CHECK(tid(p, 1) == tid(p, 3) && tid(p, 1) == tid(p, 7));
    CHECK(tid(p, 0) != tid(p, 1));
    CHECK(tid(p, 8) != tid(p, 9));
    /* slct -r keeps the common prefix of a variable word (see test_suite5.c) */
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

/* ---------------------------------------------------------------- presets */

static void test_presets(void)
{
    static const char *const algos[] = {"logmine", "shiso", "logcluster", "slct", "ulp"};
    const logtk_dataset *hdfs = logtk_dataset_find("HDFS");
    CHECK(hdfs != NULL);
    if (hdfs) {
        /* logparser's LogMine benchmark: HDFS max_dist 0.005, k 1 */
        const char *name, *value;
        int found = 0;
        for (size_t i = 0; dataset_param_at(hdfs, "logmine", i, &name, &value); i++)
            if (strcmp(name, "max_dist") == 0)
                found = strcmp(value, "0.005") == 0;
        CHECK(found);
    }
    const logtk_dataset *hpc = logtk_dataset_find("HPC");
    if (hpc) {
        const char *name, *value;
        int found = 0;
        for (size_t i = 0; dataset_param_at(hpc, "shiso", i, &name, &value); i++)
            if (strcmp(name, "max_child_num") == 0)
                found = strcmp(value, "3") == 0;
        CHECK(found);
    }
    for (size_t d = 0; d < dataset_count(); d++) {
        const logtk_dataset *ds = logtk_dataset_at(d);
        for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
            logtk_parser *p = new_parser(algos[a]);
            if (p == NULL)
                continue;
            const char *name, *value;
            size_t nparams = 0;
            for (size_t i = 0; dataset_param_at(ds, algos[a], i, &name, &value); i++) {
                int rc = logtk_parser_set_param(p, name, value);
                if (rc != LOGTK_OK)
                    fprintf(stderr, "%s %s: %s=%s rejected (%d)\n", logtk_dataset_name(ds),
                            algos[a], name, value, rc);
                CHECK(rc == LOGTK_OK);
                nparams++;
            }
            /* ULP has no parameters; the others get theirs from every preset */
            CHECK(strcmp(algos[a], "ulp") == 0 ? nparams == 0 : nparams >= 1);
            CHECK_STATUS(logtk_dataset_configure(ds, p), LOGTK_OK);
            logtk_parser_free(p);
        }
    }
}

int main(void)
{
    test_ulp();
    test_shiso();
    test_logcluster();
    test_slct();
    test_presets();
    return TEST_SUMMARY();
}
