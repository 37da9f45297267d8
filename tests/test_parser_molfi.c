/*
 * test_parser_molfi.c - MoLFI on small hand-made inputs: the reference's
 * message adaptation as MoLFI sees it (values that become "#spec#",
 * punctuation spacing, the "[LEVEL]" prefix), lines that must share a
 * template, lines that must not, parameter checking, the determinism of the
 * randomised search, and a larger cluster the search must merge.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logtk.h"
#include "test_harness.h"
#include "parser_test_util.h"

/* ------------------------------------------------------------------ MoLFI */

static const char *const molfi_lines[] = {
    "took 12 ms",                       /* 0: number -> #spec# */
    "took 345 ms",                      /* 1: same adapted message as 0 */
    "connect from 10.0.0.1 port",       /* 2: IP -> #spec# */
    "connect from 10.0.0.27 port",      /* 3: same as 2 */
    "[INFO] service started",           /* 4: prefix kept as one word */
    "",                                 /* 5: empty */
    "session opened for user alice now ok",   /* 6..9: one cluster of 7 words */
    "session opened for user bob now ok",
    "session opened for user carol now ok",
    "session opened for user dave now ok",
    "disk /dev/sda1 is full",           /* 10: path -> #spec# */
    "disk /dev/sdb2 is full",           /* 11 */
    "a-->b",                            /* 12: "-->" stays glued: 2 words */
    "   ",                              /* 13: blank: same as the empty line */
};
#define MOLFI_NLINES (sizeof molfi_lines / sizeof molfi_lines[0])

static void molfi_run(const char *seed, uint32_t *ids, char **texts)
{
    logtk_parser *p = new_parser("molfi");
    if (p == NULL)
        return;
    if (seed)
        CHECK_STATUS(logtk_parser_set_option(p, "seed", seed), LOGTK_OK);
    feed_all(p, molfi_lines, MOLFI_NLINES);
    for (size_t i = 0; i < MOLFI_NLINES; i++) {
        ids[i] = tid(p, i);
        logtk_slice t = {0};
        CHECK_STATUS(logtk_parser_template(p, ids[i], &t, NULL), LOGTK_OK);
        texts[i] = malloc(t.len + 1);
        if (texts[i]) {
            memcpy(texts[i], t.ptr, t.len);
            texts[i][t.len] = '\0';
        }
    }
    logtk_parser_free(p);
}

TEST(test_molfi)
{
    logtk_parser *p = new_parser("molfi");
    CHECK_STATUS(logtk_parser_set_option(p, "anything", "1"), LOGTK_ERR_NOT_FOUND);
    CHECK_STATUS(logtk_parser_set_option(p, "population", "1"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_parser_set_option(p, "generations", "0"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_parser_set_option(p, "seed", "-1"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_parser_set_option(p, "population", "8"), LOGTK_OK);
    CHECK_STATUS(logtk_parser_set_option(p, "generations", "5"), LOGTK_OK);
    logtk_parser_free(p);

    uint32_t ids[MOLFI_NLINES], ids2[MOLFI_NLINES], ids3[MOLFI_NLINES];
    char *texts[MOLFI_NLINES] = {0}, *texts2[MOLFI_NLINES] = {0}, *texts3[MOLFI_NLINES] = {0};
    molfi_run(NULL, ids, texts);
    molfi_run(NULL, ids2, texts2);
    molfi_run("7", ids3, texts3);

    /* equal adapted messages share a template, whatever the search does */
    CHECK(ids[0] == ids[1]);
    CHECK(ids[2] == ids[3]);
    CHECK(ids[10] == ids[11]);
    CHECK(ids[5] == ids[13]);
    /* different word counts never share one */
    CHECK(ids[0] != ids[2] && ids[0] != ids[4] && ids[2] != ids[6] && ids[5] != ids[0]);
    CHECK(ids[12] != ids[0] && ids[12] != ids[4]);
    /* a message alone in its cluster keeps its words; values read "<*>" */
    CHECK(texts[0] && strcmp(texts[0], "took <*> ms") == 0);
    CHECK(texts[2] && strcmp(texts[2], "connect from <*> port") == 0);
    CHECK(texts[4] && strcmp(texts[4], "[INFO] service started") == 0);
    CHECK(texts[10] && strcmp(texts[10], "disk <*> is full") == 0);
    /* the algorithm's words are "a-->" "b"; the text shown is the line's */
    CHECK(texts[12] && strcmp(texts[12], "a-->b") == 0);
    CHECK(texts[5] && strcmp(texts[5], "") == 0);
    /* the 7-word cluster: every line gets a template of its own length
       whose fixed words are the line's */
    for (size_t i = 6; i <= 9; i++)
        CHECK(texts[i] && strncmp(texts[i], "session opened for user ", 24) == 0);

    /* the same seed gives the same result; every run covers every line */
    for (size_t i = 0; i < MOLFI_NLINES; i++) {
        CHECK(ids[i] == ids2[i]);
        CHECK(texts[i] && texts2[i] && strcmp(texts[i], texts2[i]) == 0);
        CHECK(ids3[i] != 0);
    }
    for (size_t i = 0; i < MOLFI_NLINES; i++) {
        free(texts[i]);
        free(texts2[i]);
        free(texts3[i]);
    }
}

/* A larger cluster: the search must merge lines that differ in one word
   when that word takes many values (frequency objective), and keep the two
   different events apart. */
TEST(test_molfi_merges)
{
    char buf[64][64];
    const char *lines[64];
    for (int i = 0; i < 32; i++) {
        snprintf(buf[i], sizeof buf[i], "user u%d logged in", i);
        lines[i] = buf[i];
    }
    for (int i = 32; i < 64; i++) {
        snprintf(buf[i], sizeof buf[i], "file f%d was deleted", i);
        lines[i] = buf[i];
    }
    logtk_parser *p = new_parser("molfi");
    feed_all(p, lines, 64);
    size_t same_user = 0, same_file = 0;
    for (int i = 1; i < 32; i++)
        same_user += tid(p, (uint64_t)i) == tid(p, 0);
    for (int i = 33; i < 64; i++)
        same_file += tid(p, (uint64_t)i) == tid(p, 32);
    CHECK(same_user == 31);
    CHECK(same_file == 31);
    CHECK(tid(p, 0) != tid(p, 32));
    CHECK(template_is(p, tid(p, 0), "user <*> logged in"));
    CHECK(template_is(p, tid(p, 32), "file <*> was deleted"));
    logtk_parser_free(p);
}

/* The search is bounded by its input: 100,000 generations asked for on 60
   distinct messages are cut (MOLFI_SEARCH_BUDGET) and the cut reported. */
TEST(test_search_budget_reported)
{
    logtk_parser *p = new_parser("molfi");
    CHECK_STATUS(logtk_parser_set_option(p, "generations", "100000"), LOGTK_OK);
    char line[64];
    for (int i = 0; i < 60; i++) {
        int n = snprintf(line, sizeof line, "event w%c%c happened", 'a' + i % 26, 'a' + i / 26);
        CHECK_STATUS(logtk_parser_feed(p, line, (size_t)n, NULL), LOGTK_OK);
    }
    CHECK_STATUS(logtk_parser_finish(p), LOGTK_OK);
    const char *what = NULL;
    CHECK(logtk_parser_capped(p, &what) == 60);
    CHECK(what != NULL && strstr(what, "8333 generations of 20") != NULL);
    logtk_parser_free(p);
}
