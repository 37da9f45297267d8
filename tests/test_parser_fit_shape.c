/*
 * test_parser_fit_shape.c - fitting a line by its shape (fit_by_shape in
 * parser.c): a line of the shape of one fitted before (the same length and
 * bytes, digits aside) is given that line's parameter offsets instead of a
 * fit.  These tests feed lines of one shape through a test algorithm that
 * assigns every line to a template the test chooses and gives the shape as
 * fuse does, and check that each line still gets its own parameters and a
 * template that matches it: when the template holds a digit, when its text
 * changed, when it shows another template's text, and when a mask changed
 * the line.  Each of those cases breaks if its guard in fit_by_shape() or
 * fit_keep_shape() is taken out.  logtk_parser_extract() fits by shape too,
 * in a table of its own: the cases that hold for both run both ways
 * (fit_expect), fed and extracted.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuse_shape.h"
#include "logtk.h"
#include "parser_impl.h"
#include "parser_state.h" /* ltk_parser_create */
#include "test_harness.h"
#include "parser_test_util.h"
#include "rebuild_check.h"

/* ------------------------------------------------- the test algorithm */

static uint32_t assign_to;     /* the template every line goes to */
static uint64_t constant_shape; /* nonzero: the shape given for every line (a broken one) */

static int fixed_feed(logtk_parser *p, void *state, const ltk_parse_line *line,
                      uint32_t *template_id)
{
    (void)state;
    ltk_parser_note_shape(p, constant_shape ? constant_shape
                                            : ltk_line_shape(line->masked.ptr, line->masked.len));
    *template_id = assign_to;
    return LOGTK_OK;
}

static const ltk_parser_algo fixed_algo = {
    .name = "fixed",
    .summary = "test: every line to one template",
    .online = 1,
    .tokens_on_demand = 1,
    .feed = fixed_feed,
};

static logtk_parser *fixed_parser(void)
{
    logtk_parser *p = NULL;
    CHECK_STATUS(ltk_parser_create(&p, &fixed_algo), LOGTK_OK);
    return p;
}

/*
 * Feeds line and checks its event: the template text matches the line, and
 * the parameters are `want` (NULL-ended), the line's own text.
 */
static void feed_expect(logtk_parser *p, const char *line, const char *const *want)
{
    logtk_event ev;
    CHECK_STATUS(logtk_parser_feed(p, line, strlen(line), &ev), LOGTK_OK);
    CHECK_STATUS(logtk_template_match(ev.template_text.ptr, ev.template_text.len, line,
                                      strlen(line), NULL, 0, NULL),
                 LOGTK_OK);
    size_t n = 0;
    while (want[n])
        n++;
    CHECK(ev.nparams == n);
    for (size_t i = 0; i < n && i < ev.nparams; i++) {
        CHECK(ev.params[i].ptr >= line && ev.params[i].ptr + ev.params[i].len <= line + strlen(line));
        CHECK_BYTES(ev.params[i].ptr, ev.params[i].len, want[i]);
    }
}

/*
 * Extracts line's parameters against template id and checks them: `want`
 * (NULL-ended), the line's own text; want NULL: the line does not match.
 */
static void extract_expect(logtk_parser *p, uint32_t id, const char *line, const char *const *want)
{
    logtk_event ev;
    int rc = logtk_parser_extract(p, id, line, strlen(line), &ev);
    if (want == NULL) {
        CHECK_STATUS(rc, LOGTK_ERR_NOT_FOUND);
        return;
    }
    CHECK_STATUS(rc, LOGTK_OK);
    CHECK(rebuilds(ev.template_text.ptr, ev.template_text.len, ev.params, ev.nparams, line,
                   strlen(line)));
    size_t n = 0;
    while (want[n])
        n++;
    CHECK(ev.nparams == n);
    for (size_t i = 0; i < n && i < ev.nparams; i++) {
        CHECK(ev.params[i].ptr >= line && ev.params[i].ptr + ev.params[i].len <= line + strlen(line));
        CHECK_BYTES(ev.params[i].ptr, ev.params[i].len, want[i]);
    }
}

/* The two ways a line is fitted by shape: fed, or extracted against assign_to. */
enum fit_path { BY_FEED, BY_EXTRACT };

static void fit_expect(logtk_parser *p, enum fit_path path, const char *line,
                       const char *const *want)
{
    if (path == BY_FEED)
        feed_expect(p, line, want);
    else
        extract_expect(p, assign_to, line, want);
}

/* --------------------------------------------------------------- tests */

TEST(lines_of_one_shape_take_their_own_parameters)
{
    for (enum fit_path path = BY_FEED; path <= BY_EXTRACT; path++) {
        logtk_parser *p = fixed_parser();
        assign_to = make_template(p, "user <*> logged <*>");
        fit_expect(p, path, "user 12 logged in", (const char *const[]){"12", "in", NULL});
        fit_expect(p, path, "user 34 logged in", (const char *const[]){"34", "in", NULL});
        fit_expect(p, path, "user 98 logged in", (const char *const[]){"98", "in", NULL});
        fit_expect(p, path, "user 7 logged out", (const char *const[]){"7", "out", NULL});
        fit_expect(p, path, "user 5 logged out", (const char *const[]){"5", "out", NULL});
        /* the second line of each shape on, by shape */
        CHECK((path == BY_FEED ? p->feed_fits.hits : p->extract_fits.hits) == 3);
        logtk_parser_free(p);
    }
}

TEST(a_template_holding_a_digit_is_fitted_anew)
{
    /* "retry 2 of 5" has the shape of "retry 1 of 5", which fits the template
       as it is; this one does not, and the template must widen to match it */
    logtk_parser *p = fixed_parser();
    assign_to = make_template(p, "retry 1 of <*>");
    feed_expect(p, "retry 1 of 5", (const char *const[]){"5", NULL});
    feed_expect(p, "retry 2 of 5", (const char *const[]){"2", "5", NULL});
    logtk_parser_free(p);
}

TEST(a_template_holding_a_digit_fits_by_shape_where_the_lines_text_outside_its_values_is_the_same)
{
    /* the digits of "jk2_init()" and "ssh2" are the template's, paired
       token by token: lines that print them alike fit as the first did */
    logtk_parser *p = fixed_parser();
    assign_to = make_template(p, "jk2_init() Found child <*> in slot <*> ssh2");
    feed_expect(p, "jk2_init() Found child 6725 in slot 10 ssh2",
                (const char *const[]){"6725", "10", NULL});
    feed_expect(p, "jk2_init() Found child 6726 in slot 11 ssh2",
                (const char *const[]){"6726", "11", NULL});
    feed_expect(p, "jk2_init() Found child 9999 in slot 99 ssh2",
                (const char *const[]){"9999", "99", NULL});
    CHECK(p->feed_fits.hits == 2);
    /* the same shape, another digit where the template has its own: fitted anew */
    feed_expect(p, "jk3_init() Found child 6725 in slot 10 ssh2",
                (const char *const[]){"jk3", "6725", "10", NULL});
    CHECK(p->feed_fits.hits == 2);
    logtk_parser_free(p);
}

TEST(a_digit_of_the_template_inside_a_glob_matched_token_is_not_fitted_by_shape)
{
    /* "<*>5<*>" takes "1525" as "1", "25", and "5515" (the same shape, the
       same text outside those values) as "", "515": the earliest '5' */
    logtk_parser *p = fixed_parser();
    assign_to = make_template(p, "v <*>5<*> end");
    feed_expect(p, "v 1525 end", (const char *const[]){"1", "25", NULL});
    feed_expect(p, "v 5515 end", (const char *const[]){"", "515", NULL});
    CHECK(p->feed_fits.hits == 0);
    logtk_parser_free(p);
}

TEST(a_changed_template_is_fitted_anew)
{
    for (enum fit_path path = BY_FEED; path <= BY_EXTRACT; path++) {
        logtk_parser *p = fixed_parser();
        assign_to = make_template(p, "user <*> logged in");
        fit_expect(p, path, "user 12 logged in", (const char *const[]){"12", NULL});
        logtk_slice tok[SPLIT_MAX];
        size_t n = split_at_spaces("user <*> logged <*>", tok);
        CHECK_STATUS(ltk_tmpl_set(p, assign_to, tok, n), LOGTK_OK);
        /* read back, so that the new text is rendered before the next line comes */
        logtk_slice text;
        CHECK_STATUS(logtk_parser_template(p, assign_to, &text, NULL), LOGTK_OK);
        CHECK_BYTES(text.ptr, text.len, "user <*> logged <*>");
        fit_expect(p, path, "user 34 logged in", (const char *const[]){"34", "in", NULL});
        logtk_parser_free(p);
    }
}

TEST(a_template_shown_as_another_is_fitted_to_that_one)
{
    for (enum fit_path path = BY_FEED; path <= BY_EXTRACT; path++) {
        logtk_parser *p = fixed_parser();
        uint32_t narrow = make_template(p, "user <*> logged in");
        uint32_t wide = make_template(p, "<*> <*> logged in");
        assign_to = narrow;
        fit_expect(p, path, "user 12 logged in", (const char *const[]){"12", NULL});
        CHECK_STATUS(ltk_tmpl_alias(p, narrow, wide), LOGTK_OK);
        fit_expect(p, path, "user 34 logged in", (const char *const[]){"user", "34", NULL});
        logtk_parser_free(p);
    }
}

TEST(one_shape_fitted_to_two_templates_takes_the_parameters_of_each)
{
    for (enum fit_path path = BY_FEED; path <= BY_EXTRACT; path++) {
        logtk_parser *p = fixed_parser();
        uint32_t a = make_template(p, "user <*> logged in");
        uint32_t b = make_template(p, "<*> <*> logged <*>");
        assign_to = a;
        fit_expect(p, path, "user 12 logged in", (const char *const[]){"12", NULL});
        assign_to = b;
        fit_expect(p, path, "user 34 logged in", (const char *const[]){"user", "34", "in", NULL});
        assign_to = a;
        fit_expect(p, path, "user 56 logged in", (const char *const[]){"56", NULL});
        logtk_parser_free(p);
    }
}

TEST(a_masked_line_is_fitted_by_its_own_text)
{
    /* both lines mask to "took <*> now": one shape, but not one length */
    logtk_parser *p = fixed_parser();
    CHECK_STATUS(logtk_parser_add_mask(p, "[0-9]+ms", NULL), LOGTK_OK);
    assign_to = make_template(p, "took <*> now");
    feed_expect(p, "took 5ms now", (const char *const[]){"5ms", NULL});
    feed_expect(p, "took 12345ms now", (const char *const[]){"12345ms", NULL});
    feed_expect(p, "took 6ms now", (const char *const[]){"6ms", NULL});
    logtk_parser_free(p);
}

TEST(a_line_too_long_for_the_table_is_fitted_and_extracted_anew)
{
    /* "<70,000 x> value 12" and "... 34": one shape, the second value past
       the 16-bit offsets of the table, so neither line's fit is kept */
    const size_t pad = 70000;
    char *xs = malloc(pad + 1), *a = malloc(pad + 16), *b = malloc(pad + 16);
    CHECK(xs != NULL && a != NULL && b != NULL);
    if (xs && a && b) {
        memset(xs, 'x', pad);
        xs[pad] = '\0';
        memcpy(a, xs, pad);
        memcpy(a + pad, " value 12", sizeof " value 12");
        memcpy(b, xs, pad);
        memcpy(b + pad, " value 34", sizeof " value 34");
        logtk_parser *p = fixed_parser();
        assign_to = make_template(p, "<*> value <*>");
        feed_expect(p, a, (const char *const[]){xs, "12", NULL});
        feed_expect(p, b, (const char *const[]){xs, "34", NULL});
        /* and neither is extracted by the other's fit */
        extract_expect(p, assign_to, a, (const char *const[]){xs, "12", NULL});
        extract_expect(p, assign_to, b, (const char *const[]){xs, "34", NULL});
        logtk_parser_free(p);
    }
    free(xs);
    free(a);
    free(b);
}

TEST(a_shape_given_for_lines_of_two_lengths_is_not_trusted)
{
    /* an algorithm whose shape does not tell lengths apart: the table keeps
       each fit's line length and fits a line of another length anew */
    logtk_parser *p = fixed_parser();
    constant_shape = 42;
    assign_to = make_template(p, "<*> done");
    feed_expect(p, "ab done", (const char *const[]){"ab", NULL});
    feed_expect(p, "abcd done", (const char *const[]){"abcd", NULL});
    feed_expect(p, "xy done", (const char *const[]){"xy", NULL});
    constant_shape = 0;
    logtk_parser_free(p);
}

TEST(lines_of_many_shapes_grow_the_table_and_keep_their_parameters)
{
    /* 3,000 shapes (lines of 3,000 lengths), each twice in a row (the second
       fitted by shape), three times over: they push one another out of
       1,024 slots while half the lines are answered, so the table grows */
    enum { SHAPES = 3000 };
    char *line = malloc(SHAPES + 32), want[16];
    CHECK(line != NULL);
    if (line == NULL)
        return;
    logtk_parser *p = fixed_parser();
    assign_to = make_template(p, "<*> took <*> ms");
    for (int round = 0; round < 3; round++)
        for (int k = 1; k <= SHAPES; k++)
            for (int twice = 0; twice < 2; twice++) {
                memset(line, 'w', (size_t)k);
                int ms = (k * 7 + round + twice) % 10; /* one digit: the shape stays */
                snprintf(line + k, 32, " took %d ms", ms);
                snprintf(want, sizeof want, "%d", ms);
                line[k] = '\0';
                char *word = strdup(line);
                line[k] = ' ';
                CHECK(word != NULL);
                if (word)
                    feed_expect(p, line, (const char *const[]){word, want, NULL});
                free(word);
            }
    CHECK(p->feed_fits.nslots > 1024);
    logtk_parser_free(p);
    free(line);
}

/*
 * "v x=<*> x=<*> ..." with n slots, and a line of it whose k-th value is
 * `width` digits, each the digit (k + seed) % 10; want[] gets the values.
 */
static void many_values(char *tmpl, char *line, char values[][8], const char **want, int n,
                        int width, int seed)
{
    strcpy(tmpl, "v");
    strcpy(line, "v");
    for (int k = 0; k < n; k++) {
        strcat(tmpl, " x=<*>");
        memset(values[k], '0' + (k + seed) % 10, (size_t)width);
        values[k][width] = '\0';
        strcat(line, " x=");
        strcat(line, values[k]);
        want[k] = values[k];
    }
    want[n] = NULL;
}

/* A slot holds 11 parameters and the table's `more` 16 further: a fit of
   up to 27 is kept whole, one of more is made anew for every line. */
TEST(fits_with_more_parameters_than_a_slot_holds_keep_them_all)
{
    char tmpl[512], line[512], values[32][8];
    const char *want[33];
    for (enum fit_path path = BY_FEED; path <= BY_EXTRACT; path++) {
        const int counts[] = {12, 27, 28};
        for (size_t c = 0; c < 3; c++) {
            logtk_parser *p = fixed_parser();
            many_values(tmpl, line, values, want, counts[c], 1, 0);
            assign_to = make_template(p, tmpl);
            for (int seed = 0; seed < 3; seed++) {
                many_values(tmpl, line, values, want, counts[c], 1, seed);
                fit_expect(p, path, line, want);
            }
            size_t hits = path == BY_FEED ? p->feed_fits.hits : p->extract_fits.hits;
            CHECK(hits == (counts[c] <= 27 ? 2u : 0u));
            logtk_parser_free(p);
        }
    }
}

/* A set's newest fit moves to its second slot when another shape comes,
   and takes its parameters past the slot's own with it. */
TEST(a_fit_pushed_to_its_sets_second_slot_keeps_its_further_parameters)
{
    char tmpl[512], line[512], values[32][8];
    const char *want[33];
    const uint64_t first = (5ULL << 32) | 1, second = (5ULL << 32) | 2; /* one set */
    /* fed only: an extraction takes no shape from the algorithm */
    logtk_parser *p = fixed_parser();
    many_values(tmpl, line, values, want, 20, 1, 0);
    assign_to = make_template(p, tmpl);
    constant_shape = first; /* lines of one-digit values */
    feed_expect(p, line, want);
    constant_shape = second; /* lines of two-digit values, other offsets */
    many_values(tmpl, line, values, want, 20, 2, 3);
    feed_expect(p, line, want);
    constant_shape = first;
    many_values(tmpl, line, values, want, 20, 1, 7);
    feed_expect(p, line, want); /* from the second slot */
    constant_shape = second;
    many_values(tmpl, line, values, want, 20, 2, 5);
    feed_expect(p, line, want); /* from the first */
    CHECK(p->feed_fits.hits == 2);
    constant_shape = 0;
    logtk_parser_free(p);
}

TEST(extract_against_a_template_holding_a_digit_fits_anew)
{
    /* "retry 2 of 5" has the shape of "retry 1 of 5" but does not match */
    logtk_parser *p = fixed_parser();
    uint32_t id = make_template(p, "retry 1 of <*>");
    extract_expect(p, id, "retry 1 of 5", (const char *const[]){"5", NULL});
    extract_expect(p, id, "retry 2 of 5", NULL);
    logtk_parser_free(p);
}

/* A template callback that parses another line (logtk_parser_match: the
   shared layer masks and splits that line, and logtk_parser_extract) */
static logtk_parser *callback_parser;
static const char *callback_other;

static void extract_another_line(void *user, int kind, uint32_t id, const char *text, size_t len)
{
    (void)user;
    (void)kind;
    (void)text;
    (void)len;
    logtk_event ev;
    logtk_parser_match(callback_parser, callback_other, strlen(callback_other), &ev);
    logtk_parser_extract(callback_parser, id, callback_other, strlen(callback_other), &ev);
}

TEST(a_callback_that_parses_another_line_leaves_the_fed_line_its_parameters)
{
    static const char *const lines[] = {
        "job 17 took 12ms on worker alpha",  "job 18 took 40ms on worker alpha",
        "job 19 failed after 3 retries",     "job 20 took 7ms on worker beta",
        "job 21 failed after 12 retries",    "job 22 took 1234ms on worker gamma",
    };
    /* a line of the message of the fed "failed" lines (which no mask changes, so
       their tokens serve the fit): the fed line's tokens, if taken after the
       callback split this one, would fit and give this line's values */
    callback_other = "job 99 failed after 55 retries";
    logtk_parser *p = new_parser("fuse");
    callback_parser = p;
    CHECK_STATUS(logtk_parser_add_named_mask(p, "DURATION", "[0-9]+ms", NULL), LOGTK_OK);
    CHECK_STATUS(logtk_parser_set_callback(p, extract_another_line, NULL), LOGTK_OK);
    for (int round = 0; round < 2; round++)
        for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
            logtk_event ev;
            size_t len = strlen(lines[i]);
            CHECK_STATUS(logtk_parser_feed(p, lines[i], len, &ev), LOGTK_OK);
            CHECK(ev.template_id != 0);
            CHECK(rebuilds(ev.template_text.ptr, ev.template_text.len, ev.params, ev.nparams,
                           lines[i], len));
            for (size_t k = 0; k < ev.nparams; k++)
                CHECK(ev.params[k].ptr >= lines[i] && ev.params[k].ptr + ev.params[k].len <= lines[i] + len);
        }
    logtk_parser_free(p);
}

/*
 * A template token holding blanks (a quoted field a parser keeps as one
 * token, its words as the line printed them) pairs with the line's tokens
 * word by word: the line is fitted as the same text made of one-word tokens
 * is, the extra tokens going to the "<*>" that takes them (the header here)
 * rather than to whatever a match of the whole text finds first.
 */
TEST(a_token_holding_blanks_pairs_word_by_word)
{
    for (int joined = 0; joined <= 1; joined++) {
        logtk_parser *p = fixed_parser();
        const logtk_slice one[] = {{"<*>", 3}, {"<*>", 3}, {"app[<*>]", 8}, {"checking", 8},
                                   {"'a", 2}, {"b", 1}, {"c'", 2}};
        const logtk_slice whole[] = {{"<*>", 3}, {"<*>", 3}, {"app[<*>]", 8}, {"checking", 8},
                                     {"'a b c'", 7}};
        assign_to = joined ? ltk_tmpl_create(p, whole, 5) : ltk_tmpl_create(p, one, 7);
        feed_expect(p, "Jul 4 09:00 app[12] checking 'a b c'",
                    (const char *const[]){"Jul 4", "09:00", "12", NULL});
        extract_expect(p, assign_to, "Dec 31 23:59 app[7] checking 'a b c'",
                       (const char *const[]){"Dec 31", "23:59", "7", NULL});
        logtk_parser_free(p);
    }
}

TEST(fuse_gives_every_line_its_own_parameters)
{
    /* the parser that gives shapes, on lines that repeat their shapes */
    static const char *const lines[] = {
        "Connection from 10.0.0.1 port 4242 closed",
        "Connection from 10.0.0.2 port 4243 closed",
        "Connection from 10.0.0.3 port 4244 closed",
        "Connection from 10.0.0.4 port 4245 closed",
        "Connection from 192.168.1.10 port 22 closed",
        "Connection from 192.168.1.11 port 23 closed",
    };
    static const char *const first[] = {"10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4",
                                        "192.168.1.10", "192.168.1.11"};
    static const char *const second[] = {"4242", "4243", "4244", "4245", "22", "23"};
    logtk_parser *p = new_parser("fuse");
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        feed_expect(p, lines[i], (const char *const[]){first[i], second[i], NULL});
    logtk_parser_free(p);

    /* lines fuzz_parse found: once one shape, now two; each rebuilds from its event */
    static const char *const odd[] = {"\0", "\x03\0"};
    static const size_t odd_len[] = {1, 2};
    p = new_parser("fuse");
    for (size_t i = 0; i < 2; i++) {
        logtk_event ev;
        CHECK_STATUS(logtk_parser_feed(p, odd[i], odd_len[i], &ev), LOGTK_OK);
        CHECK(rebuilds(ev.template_text.ptr, ev.template_text.len, ev.params, ev.nparams, odd[i],
                       odd_len[i]));
    }
    logtk_parser_free(p);
}
