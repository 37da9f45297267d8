/* test_regex.c - core/regex.h: compile errors, matching, limits, the adaptive limit. */
#include "config.h"

#include <string.h>
#include <time.h>

#include "logtk.h"
#include "regex.h"
#include "test_harness.h"

/* The log format's settings (core/format.c), the ones the adaptive limit was made for. */
static const ltk_regex_config format_like = {
    .flags = LTK_REGEX_NEWLINE_LF,
    .match_limit = 2000000,
    .depth_limit = 10000,
    .jit_stack_max = 1024 * 1024,
    .lower_after = 8,
    .lower_divisor = 100,
    .lower_floor = 20000,
    .success_margin = 10,
};

static ltk_regex *compile(const char *pattern, const ltk_regex_config *cfg)
{
    ltk_regex *re = NULL;
    ltk_regex_error err;
    int rc = ltk_regex_compile(&re, pattern, (size_t)-1, cfg, &err);
    CHECK(rc == LOGTK_OK);
    return re;
}

static int match(ltk_regex *re, const char *s)
{
    return ltk_regex_match(re, s, strlen(s), 0, 0);
}

/* n copies of c, NUL-terminated, in a static buffer. */
static const char *run_of(char c, size_t n, const char *tail)
{
    static char buf[512];
    memset(buf, c, n);
    snprintf(buf + n, sizeof buf - n, "%s", tail);
    return buf;
}

TEST(compile_error_has_offset)
{
    ltk_regex *re = (ltk_regex *)1;
    ltk_regex_error err;
    ltk_regex_config cfg = {0};
    CHECK_STATUS(ltk_regex_compile(&re, "ab(c", (size_t)-1, &cfg, &err), LOGTK_ERR_SYNTAX);
    CHECK(re == NULL);
    CHECK(err.code == LOGTK_ERR_SYNTAX);
    CHECK(err.offset == 4);
    CHECK(strstr(err.reason, "parenthesis") != NULL);
}

TEST(match_offsets_groups_and_info)
{
    ltk_regex_config cfg = {.match_limit = 1000000};
    ltk_regex *re = compile("b(?<num>\\d+)(x)?", &cfg);
    CHECK(ltk_regex_capture_count(re) == 2);
    CHECK(ltk_regex_group_number(re, "num") == 1);
    CHECK(ltk_regex_group_number(re, "none") == 0);
    CHECK(ltk_regex_min_length(re) == 2);
    unsigned char first = 0;
    CHECK(ltk_regex_first_byte(re, &first) == 1 && first == 'b');
    const char *s = "a b42 c";
    CHECK(ltk_regex_match(re, s, strlen(s), 0, 0) == 2);
    const size_t *ov = ltk_regex_ovector(re);
    CHECK(ov[0] == 2 && ov[1] == 5 && ov[2] == 3 && ov[3] == 5);
    CHECK(ltk_regex_match(re, s, strlen(s), 3, 0) == LTK_REGEX_NOMATCH); /* from offset 3 */
    CHECK(ltk_regex_match(re, NULL, 0, 0, 0) == LTK_REGEX_NOMATCH);
    ltk_regex_free(re);

    /* an empty match at the start offset is refused on request */
    re = compile("x*", &cfg);
    CHECK(ltk_regex_match(re, "ab", 2, 0, 0) == 1);
    CHECK(ltk_regex_match(re, "ab", 2, 0, LTK_REGEX_NOTEMPTY_ATSTART) == 1);
    ov = ltk_regex_ovector(re);
    CHECK(ov[0] == 1 && ov[1] == 1); /* the empty match after 'a', not at 0 */
    ltk_regex_free(re);
}

TEST(flags_caseless_literal_newline)
{
    ltk_regex_config cfg = {.flags = LTK_REGEX_CASELESS | LTK_REGEX_LITERAL};
    ltk_regex *re = compile("A.B", &cfg);
    CHECK(match(re, "xa.by") > 0);
    CHECK(match(re, "xaxby") == LTK_REGEX_NOMATCH);
    unsigned char first;
    CHECK(ltk_regex_first_byte(re, &first) == 0); /* caseless: no single first byte */
    ltk_regex_free(re);

    /* with LF the only newline, '$' does not stop before a CR */
    ltk_regex_config lf = {.flags = LTK_REGEX_NEWLINE_LF};
    re = compile("^a.$", &lf);
    CHECK(match(re, "a\r") > 0);
    CHECK(match(re, "ab\n") > 0);
    ltk_regex_free(re);
}

/* UTF: '.' is one character, and invalid UTF-8 in a log line is not an error. */
TEST(utf_mode)
{
    ltk_regex_config bytes = {0}, utf = {.flags = LTK_REGEX_UTF};
    ltk_regex *b = compile("^.$", &bytes);
    ltk_regex *u = compile("^.$", &utf);
    CHECK(match(b, "\xc3\xa9") == LTK_REGEX_NOMATCH); /* two bytes */
    CHECK(match(u, "\xc3\xa9") > 0);                    /* one character */
    CHECK(match(u, "\xff") == LTK_REGEX_NOMATCH);      /* invalid: no match, no error */
    ltk_regex_free(b);
    ltk_regex_free(u);
}

TEST(limit_without_adaptation_stays)
{
    ltk_regex_config cfg = {.match_limit = 100000, .depth_limit = 10000};
    ltk_regex *re = compile("^(x+x+)+[yz]", &cfg);
    for (int i = 0; i < 20; i++)
        CHECK(match(re, run_of('x', 40, "")) == LTK_REGEX_LIMIT);
    CHECK(ltk_regex_limit_hits(re) == 20);
    CHECK(ltk_regex_lowerings(re) == 0);
    CHECK(ltk_regex_match_limit(re) == 100000);
    CHECK(match(re, run_of('x', 40, "y")) > 0);
    ltk_regex_free(re);
}

/* Masks' rule: every hit divides the limit by 8, down to the floor. */
TEST(limit_lowered_after_each_hit)
{
    ltk_regex_config cfg = {.match_limit = 1000000, .lower_after = 1, .lower_divisor = 8,
                              .lower_floor = 10000};
    ltk_regex *re = compile("^(x+x+)+[yz]", &cfg);
    CHECK(match(re, run_of('x', 40, "")) == LTK_REGEX_LIMIT);
    CHECK(ltk_regex_match_limit(re) == 125000);
    CHECK(match(re, run_of('x', 40, "")) == LTK_REGEX_LIMIT);
    CHECK(ltk_regex_match_limit(re) == 15625);
    CHECK(match(re, run_of('x', 40, "")) == LTK_REGEX_LIMIT);
    CHECK(ltk_regex_match_limit(re) == 10000);
    CHECK(ltk_regex_lowerings(re) == 3);
    ltk_regex_free(re);
}

/*
 * The case: a catastrophic pattern on 2,000 lines it cannot match.
 * Before the adaptive limit every line cost the whole 2,000,000 steps
 * (about 7 s of CPU here); now 8 lines do and the rest get 20,000.
 */
TEST(catastrophic_pattern_2000_lines_bounded)
{
    ltk_regex *re = compile("^(x+x+)+[yz]\\s(.*?)$", &format_like);
    clock_t t0 = clock();
    for (int i = 0; i < 2000; i++)
        CHECK(match(re, run_of('x', 50 + i % 30, "")) == LTK_REGEX_LIMIT);
    double cpu = (double)(clock() - t0) / CLOCKS_PER_SEC;
    CHECK(ltk_regex_limit_hits(re) == 2000);
    CHECK(ltk_regex_lowerings(re) == 1);
    CHECK(ltk_regex_match_limit(re) == 20000);
    /* 8 x 2,000,000 + 1,992 x 20,000 steps, about 0.1 s; 2,000 x 2,000,000 took 7 s */
    CHECK(cpu < 2.0);
    /* a line the pattern matches quickly still matches under the lowered limit */
    CHECK(match(re, run_of('x', 60, "y tail")) > 0);
    ltk_regex_free(re);
}

/* Hits that are not in a row (a success in between) do not lower the limit. */
TEST(scattered_hits_keep_the_limit)
{
    ltk_regex *re = compile("^(x+x+)+[yz]", &format_like);
    for (int i = 0; i < 50; i++) {
        CHECK(match(re, run_of('x', 40, "")) == LTK_REGEX_LIMIT);
        if (i % 7 == 6)
            CHECK(match(re, "xxy") > 0);
    }
    CHECK(ltk_regex_lowerings(re) == 0);
    CHECK(ltk_regex_match_limit(re) == 2000000);
    ltk_regex_free(re);
}

/*
 * A pattern whose matching lines are themselves expensive: the first
 * alternative backtracks through about 2^14 ways before the second matches.  The
 * lowered limit stays at ten times what such a line was measured to need,
 * so it keeps matching after the lowering.
 */
TEST(lowered_limit_keeps_room_for_costly_successes)
{
    ltk_regex *re = compile("^(?:(x+x+)+y|x{14}z)", &format_like);
    const char *costly = "xxxxxxxxxxxxxxz";
    CHECK(match(re, costly) > 0);
    uint32_t needed = ltk_regex_costliest_success(re);
    CHECK(needed > 20000); /* more than the floor: without the margin it would be lost */
    for (int i = 0; i < 8; i++)
        CHECK(match(re, run_of('x', 40, "")) == LTK_REGEX_LIMIT);
    CHECK(ltk_regex_lowerings(re) == 1);
    CHECK(ltk_regex_match_limit(re) >= 10 * needed / 2);
    CHECK(match(re, costly) > 0);
    const size_t *ov = ltk_regex_ovector(re);
    CHECK(ov[0] == 0 && ov[1] == 15);
    ltk_regex_free(re);
}

/* A success measured after the lowering that needs more raises the limit again. */
TEST(costly_success_raises_a_lowered_limit)
{
    ltk_regex_config cfg = format_like;
    cfg.lower_divisor = 2; /* 2,000,000 -> 1,000,000: room for the success below */
    ltk_regex *re = compile("^(?:(x+x+)+y|x{18}z)", &cfg);
    for (int i = 0; i < 8; i++)
        CHECK(match(re, run_of('x', 40, "")) == LTK_REGEX_LIMIT);
    CHECK(ltk_regex_match_limit(re) == 1000000);
    CHECK(match(re, "xxxxxxxxxxxxxxxxxxz") > 0);
    uint32_t needed = ltk_regex_costliest_success(re);
    CHECK(needed > 100000);
    CHECK(ltk_regex_match_limit(re) == 2000000); /* 10 x needed, capped at the configured limit */
    ltk_regex_free(re);
}

TEST(clone_has_its_own_state)
{
    ltk_regex_config cfg = {.match_limit = 100000};
    ltk_regex *re = compile("(\\d+)", &cfg);
    ltk_regex *copy;
    CHECK_STATUS(ltk_regex_clone(re, &copy), LOGTK_OK);
    CHECK(match(re, "ab 12") > 0);
    CHECK(match(copy, "345") > 0);
    CHECK(ltk_regex_ovector(re)[0] == 3 && ltk_regex_ovector(copy)[0] == 0);
    CHECK(ltk_regex_is_jit(copy) == ltk_regex_is_jit(re));
    ltk_regex_free(copy);
    ltk_regex_free(re);
    ltk_regex_free(NULL);
}

/* A match deeper than PCRE2's 32 KiB default JIT stack gets the private one. */
TEST(deep_match_gets_a_jit_stack)
{
    ltk_regex_config small = {.match_limit = 10000000};
    ltk_regex_config big = small;
    big.jit_stack_max = 1024 * 1024;
    ltk_regex *a = compile("^(a|b)*c", &small);
    ltk_regex *b = compile("^(a|b)*c", &big);
    static char subject[20002];
    memset(subject, 'a', 20000);
    subject[20000] = 'c';
    subject[20001] = '\0';
    if (ltk_regex_is_jit(a)) /* the interpreter has no JIT stack to run out of */
        CHECK(match(a, subject) == LTK_REGEX_LIMIT);
    CHECK(match(b, subject) > 0);
    ltk_regex_free(a);
    ltk_regex_free(b);
}

/* The same case through the public log format, as `logtk parse --format` runs it. */
TEST(format_catastrophic_regex_bounded)
{
    logtk_format *f;
    CHECK_STATUS(logtk_format_new(&f), LOGTK_OK);
    CHECK_STATUS(logtk_format_compile(f, "<A> (x+x+)+[yz] <Content>"), LOGTK_OK);
    char line[128];
    logtk_record rec;
    int hits = 0;
    clock_t t0 = clock();
    for (int i = 0; i < 2000; i++) {
        int n = snprintf(line, sizeof line, "a %s", run_of('x', 50 + i % 30, ""));
        int rc = logtk_format_match(f, line, (size_t)n, &rec);
        hits += rc == LOGTK_ERR_LIMIT;
        CHECK(!rec.matched);
        if (i == 7) { /* the 8th hit in a row lowers the limit and says so */
            CHECK(logtk_format_limit_lowerings(f) == 1);
            CHECK(strstr(logtk_format_errmsg(f), "(x+x+)+[yz]") != NULL);
            CHECK(strstr(logtk_format_errmsg(f), "lowered to 20000 steps") != NULL);
        }
    }
    double cpu = (double)(clock() - t0) / CLOCKS_PER_SEC;
    CHECK(hits == 2000);
    CHECK(logtk_format_limit_lowerings(f) == 1);
    CHECK(cpu < 2.0);
    const char *ok = "a xxxy rest of it";
    CHECK_STATUS(logtk_format_match(f, ok, strlen(ok), &rec), LOGTK_OK);
    CHECK(rec.matched);
    CHECK_BYTES(rec.content.ptr, rec.content.len, "rest of it");
    logtk_format_free(f);
}
