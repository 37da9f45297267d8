/*
 * test_parser_brain.c - Brain on small hand-made inputs: a position whose
 * words reach the threshold becomes a variable, one below it keeps its
 * words, mostly-digit words are variables with the split separators glued
 * back, bad parameters are refused, and no lines give no template.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logtk.h"
#include "test_harness.h"
#include "parser_test_util.h"

TEST(test_brain)
{
    /* 6 lines of one template with a variable user; 2 lines of another */
    static const char *const lines[] = {
        "session opened for user alice",  "session opened for user bob",
        "session opened for user carol",  "session opened for user dave",
        "session opened for user erin",   "session opened for user frank",
        "connection closed by peer",      "connection closed by peer",
    };
    logtk_parser *p = run_parser("brain", lines, 8, "threshold", "3");
    CHECK(p != NULL);
    CHECK_TEXT(p, 0, "session opened for user <*>");
    CHECK(same_text(p, 0, 5));
    CHECK_TEXT(p, 6, "connection closed by peer");
    CHECK(logtk_parser_template_count(p) == 2);
    logtk_parser_free(p);

    /* below the threshold, a position keeps its words: two templates */
    static const char *const two[] = {"service start ok", "service stop ok",
                                      "service start ok", "service stop ok"};
    p = run_parser("brain", two, 4, "threshold", "3");
    CHECK(!same_text(p, 0, 1));
    CHECK(same_text(p, 0, 2));
    logtk_parser_free(p);

    /* mostly-digit words are variables; split separators glue back in the template */
    static const char *const kv[] = {"retry count=12 of 30", "retry count=7 of 30",
                                     "retry count=9 of 30"};
    p = run_parser("brain", kv, 3, "split", ", =");
    CHECK_TEXT(p, 0, "retry count=<*> of <*>");
    CHECK(same_text(p, 0, 2));
    logtk_parser_free(p);

    /* bad parameters are refused */
    CHECK_STATUS(logtk_parser_new(&p, "brain"), LOGTK_OK);
    CHECK_STATUS(logtk_parser_set_option(p, "threshold", "0"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_parser_set_option(p, "delimiter", "(unclosed"), LOGTK_ERR_SYNTAX);
    CHECK_STATUS(logtk_parser_set_option(p, "nope", "1"), LOGTK_ERR_NOT_FOUND);
    logtk_parser_free(p);

    /* no lines at all */
    p = run_parser("brain", NULL, 0, NULL, NULL);
    CHECK(logtk_parser_template_count(p) == 0);
    logtk_parser_free(p);
}
