/*
 * test_tmatch_pieces.c - ltk_tmatch_glob's pieces of fixed text, where the
 * line holds them byte for byte (the matcher's shortcut) and where a blank
 * run at a piece's end or start meets a longer run in the line: the run is
 * taken whole, so the "<*>" next to it captures no blanks.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "template_match.h"
#include "test_harness.h"

/* Matches t against s; checks the captures joined by '|' equal `want`. */
static int captures(const char *t, const char *s, const char *want)
{
    logtk_slice caps[64];
    if (!ltk_tmatch_glob(t, strlen(t), s, strlen(s), caps))
        return 0;
    size_t n = ltk_tmatch_count_wildcards(t, strlen(t));
    char got[512] = "";
    for (size_t i = 0; i < n; i++) {
        if (i)
            strcat(got, "|");
        strncat(got, caps[i].ptr, caps[i].len);
    }
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "  \"%s\" on \"%s\": captured \"%s\", want \"%s\"\n", t, s, got, want);
        return 0;
    }
    return 1;
}

TEST(a_piece_held_byte_for_byte_gives_the_text_between)
{
    CHECK(captures("PacketResponder <*> for block <*> terminating",
                   "PacketResponder 1 for block blk_-38 terminating", "1|blk_-38"));
    CHECK(captures("<*> is added to <*>", "10.0.0.1:50010 is added to blk_7", "10.0.0.1:50010|blk_7"));
    CHECK(captures("no star here", "no star here", ""));
    CHECK(!ltk_tmatch_glob("no star here", 12, "no star herex", 13, NULL));
}

TEST(a_blank_run_ending_a_piece_takes_the_lines_whole_run)
{
    CHECK(captures("foo <*>", "foo   bar", "bar"));
    CHECK(captures("a <*> b <*>", "a 1 b    2", "1|2"));
    CHECK(captures("a <*> b <*>", "a 1   b 2", "1|2"));
    CHECK(captures("x\t<*>", "x\t \tvalue", "value"));
}

TEST(a_blank_run_starting_the_last_piece_takes_the_lines_whole_run)
{
    CHECK(captures("<*> end", "x   end", "x"));
    CHECK(captures("<*> <*> end", "a b  \t end", "a|b"));
    CHECK(captures("start <*> end", "start  mid   end", "mid"));
}

/* The matcher keeps the first 32 "<*>" positions it finds; a template with
 * more looks the rest up again. */
TEST(a_template_with_more_stars_than_kept_captures_each)
{
    char t[512] = "", s[512] = "", want[512] = "";
    for (int i = 0; i < 40; i++) {
        char part[16];
        snprintf(part, sizeof part, "%sk%d=<*>", i ? " " : "", i);
        strcat(t, part);
        snprintf(part, sizeof part, "%sk%d=v%d", i ? " " : "", i, i);
        strcat(s, part);
        snprintf(part, sizeof part, "%sv%d", i ? "|" : "", i);
        strcat(want, part);
    }
    CHECK(captures(t, s, want));
}

/* "<*>" are counted left to right without overlap, a '<' that starts none skipped */
TEST(wildcards_are_counted_without_overlap)
{
    static const struct {
        const char *text;
        size_t len, stars;
    } cases[] = {
        {"", 0, 0},          {"<*", 2, 0},          {"<*>", 3, 1},
        {"<*>", 2, 0},       {"<<*>", 4, 1},        {"<*><*>", 6, 2},
        {"<*>*>", 5, 1},     {"a<*>b<", 6, 1},      {"<<<*>>>", 7, 1},
        {"x <*> y <*", 10, 1}, {"<* <*> <*>", 10, 2}, {"<*> <*> <*> <*> <*>", 19, 5},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        CHECK(ltk_tmatch_count_wildcards(cases[i].text, cases[i].len) == cases[i].stars);
}
