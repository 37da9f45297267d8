/* test_mask.c - masking rules, span map back to the original, tokenizer. */
#include "config.h"

#include <string.h>
#include <time.h>

#include "mask.h"
#include "test_harness.h"
#include "tokenize.h"

static ltk_errbuf err;

/* Masks text with the masker and returns the masked text as a C string. */
static const char *apply(ltk_masker *m, const char *text, int *rc_out)
{
    static char out[4096];
    const char *masked;
    size_t mlen;
    int rc = ltk_masker_apply(m, text, strlen(text), &masked, &mlen, &err);
    if (rc_out)
        *rc_out = rc;
    snprintf(out, sizeof out, "%.*s", (int)mlen, masked);
    return out;
}

/* The original text behind masked range [a, b). */
static const char *orig_of(ltk_masker *m, const char *orig, size_t a, size_t b)
{
    static char out[4096];
    size_t oa, ob;
    ltk_masker_map(m, a, b, &oa, &ob);
    snprintf(out, sizeof out, "%.*s", (int)(ob - oa), orig + oa);
    return out;
}

TEST(test_identity)
{
    ltk_masker *m;
    CHECK_STATUS(ltk_masker_new(&m), LOGTK_OK);
    const char *t = "nothing to mask here";
    const char *masked;
    size_t mlen;
    CHECK_STATUS(ltk_masker_apply(m, t, strlen(t), &masked, &mlen, &err), LOGTK_OK);
    CHECK(masked == t && mlen == strlen(t));
    CHECK(!ltk_masker_changed(m));
    CHECK(strcmp(orig_of(m, t, 8, 10), "to") == 0);
    CHECK_STATUS(ltk_masker_add(m, "\\d+", NULL, &err), LOGTK_OK);
    CHECK_STATUS(ltk_masker_apply(m, t, strlen(t), &masked, &mlen, &err), LOGTK_OK);
    CHECK(masked == t); /* no match: no copy */
    ltk_masker_free(m);
}

TEST(test_order_and_map)
{
    ltk_masker *m;
    CHECK_STATUS(ltk_masker_new(&m), LOGTK_OK);
    CHECK_STATUS(ltk_masker_add(m, "blk_-?\\d+", NULL, &err), LOGTK_OK);
    CHECK_STATUS(ltk_masker_add(m, "\\d+", NULL, &err), LOGTK_OK);
    CHECK(ltk_masker_count(m) == 2);
    CHECK(strcmp(ltk_masker_pattern(m, 1), "\\d+") == 0);
    CHECK(strcmp(ltk_masker_replacement(m, 0), "<*>") == 0);
    const char *t = "blk_-12 size 345 end";
    CHECK(strcmp(apply(m, t, NULL), "<*> size <*> end") == 0);
    CHECK(ltk_masker_changed(m));
    CHECK(strcmp(orig_of(m, t, 0, 3), "blk_-12") == 0);
    CHECK(strcmp(orig_of(m, t, 9, 12), "345") == 0);
    CHECK(strcmp(orig_of(m, t, 4, 8), "size") == 0);
    CHECK(strcmp(orig_of(m, t, 0, 16), "blk_-12 size 345 end") == 0);
    CHECK(strcmp(orig_of(m, t, 13, 16), "end") == 0);
    /* a second line reuses the buffers and gives its own map */
    const char *t2 = "x 1 y 22";
    CHECK(strcmp(apply(m, t2, NULL), "x <*> y <*>") == 0);
    CHECK(strcmp(orig_of(m, t2, 8, 11), "22") == 0);
    ltk_masker_free(m);
}

TEST(test_composition)
{
    /* the second rule matches text the first one produced */
    ltk_masker *m;
    CHECK_STATUS(ltk_masker_new(&m), LOGTK_OK);
    CHECK_STATUS(ltk_masker_add(m, "\\d+", NULL, &err), LOGTK_OK);
    CHECK_STATUS(ltk_masker_add(m, "<\\*>\\.<\\*>", "<F>", &err), LOGTK_OK);
    const char *t = "took 12.345 s, 7 tries";
    CHECK(strcmp(apply(m, t, NULL), "took <F> s, <*> tries") == 0);
    CHECK(strcmp(orig_of(m, t, 5, 8), "12.345") == 0);
    CHECK(strcmp(orig_of(m, t, 12, 15), "7") == 0);
    CHECK(strcmp(orig_of(m, t, 15, 21), " tries") == 0);
    ltk_masker_free(m);
}

TEST(test_lookaround_and_replacement)
{
    ltk_masker *m;
    CHECK_STATUS(ltk_masker_new(&m), LOGTK_OK);
    CHECK_STATUS(ltk_masker_add(m, "(?<=size=)\\d+(?= )", "<NUM>", &err), LOGTK_OK);
    const char *t = "size=42 size=7";
    CHECK(strcmp(apply(m, t, NULL), "size=<NUM> size=7") == 0);
    CHECK(strcmp(orig_of(m, t, 5, 10), "42") == 0);
    ltk_masker_free(m);
}

TEST(test_empty_matches)
{
    /* Python: re.sub('x*', '-', 'abxd') == '-a-b--d-' */
    ltk_masker *m;
    CHECK_STATUS(ltk_masker_new(&m), LOGTK_OK);
    CHECK_STATUS(ltk_masker_add(m, "x*", "-", &err), LOGTK_OK);
    CHECK(strcmp(apply(m, "abxd", NULL), "-a-b--d-") == 0);
    CHECK(strcmp(apply(m, "", NULL), "-") == 0);
    ltk_masker_free(m);
    /* an empty replacement removes text; the map still points into the original */
    CHECK_STATUS(ltk_masker_new(&m), LOGTK_OK);
    CHECK_STATUS(ltk_masker_add(m, "#\\d+", "", &err), LOGTK_OK);
    const char *t = "a#1 b#22 c";
    CHECK(strcmp(apply(m, t, NULL), "a b c") == 0);
    CHECK(strcmp(orig_of(m, t, 2, 3), "b") == 0);
    CHECK(strcmp(orig_of(m, t, 4, 5), "c") == 0);
    ltk_masker_free(m);
}

/* Inline (?i) is invisible in PCRE2_INFO_ALLOPTIONS, yet the first code unit
 * PCRE2 reports is then caseless: the memchr prefilter must not skip "ERROR". */
TEST(test_inline_caseless)
{
    ltk_masker *m;
    CHECK_STATUS(ltk_masker_new(&m), LOGTK_OK);
    CHECK_STATUS(ltk_masker_add(m, "(?i)error", "<E>", &err), LOGTK_OK);
    /* Python: re.sub('(?i)error', '<E>', ...) */
    CHECK(strcmp(apply(m, "ERROR here, Error there", NULL), "<E> here, <E> there") == 0);
    CHECK(strcmp(apply(m, "only ERROR", NULL), "only <E>") == 0);
    ltk_masker_free(m);
    CHECK_STATUS(ltk_masker_new(&m), LOGTK_OK);
    CHECK_STATUS(ltk_masker_add(m, "(?mi:warn)", "<W>", &err), LOGTK_OK);
    CHECK(strcmp(apply(m, "a WARN b", NULL), "a <W> b") == 0);
    ltk_masker_free(m);
    CHECK_STATUS(ltk_masker_new(&m), LOGTK_OK);
    CHECK_STATUS(ltk_masker_add(m, "a(?i:b)", "-", &err), LOGTK_OK);
    CHECK(strcmp(apply(m, "AB aB ab", NULL), "AB - -") == 0);
    ltk_masker_free(m);
}

/* After an empty match Python searches again at the same position for a
 * non-empty match: re.sub('(?=b)|b', '-', 'ab') == 'a--',
 * re.sub(r'\b|:', '-', 'a:b') == '-a---b-'. */
TEST(test_empty_then_nonempty)
{
    ltk_masker *m;
    CHECK_STATUS(ltk_masker_new(&m), LOGTK_OK);
    CHECK_STATUS(ltk_masker_add(m, "(?=b)|b", "-", &err), LOGTK_OK);
    CHECK(strcmp(apply(m, "ab", NULL), "a--") == 0);
    ltk_masker_free(m);
    CHECK_STATUS(ltk_masker_new(&m), LOGTK_OK);
    CHECK_STATUS(ltk_masker_add(m, "\\b|:", "-", &err), LOGTK_OK);
    CHECK(strcmp(apply(m, "a:b", NULL), "-a---b-") == 0);
    ltk_masker_free(m);
}

TEST(test_errors_and_limits)
{
    ltk_masker *m;
    CHECK_STATUS(ltk_masker_new(&m), LOGTK_OK);
    CHECK_STATUS(ltk_masker_add(m, "(unclosed", NULL, &err), LOGTK_ERR_SYNTAX);
    CHECK(strstr(err.msg, "(unclosed") != NULL);
    CHECK(strstr(err.msg, "offset") != NULL);
    CHECK(ltk_masker_count(m) == 0);
    /* catastrophic backtracking hits the limit instead of hanging */
    CHECK_STATUS(ltk_masker_add(m, "(a+)+$", NULL, &err), LOGTK_OK);
    CHECK_STATUS(ltk_masker_add(m, "b", NULL, &err), LOGTK_OK);
    char line[200];
    memset(line, 'a', sizeof line - 2);
    line[sizeof line - 2] = 'b';
    line[sizeof line - 1] = '\0';
    int rc;
    const char *out = apply(m, line, &rc);
    CHECK(rc == LOGTK_ERR_LIMIT);
    CHECK(strstr(err.msg, "(a+)+$") != NULL);
    /* the failing rule is skipped, the next still applies */
    CHECK(strlen(out) == sizeof line - 2 + 3 && strcmp(out + sizeof line - 2, "<*>") == 0);
    ltk_masker_free(m);
    ltk_masker_free(NULL);
}

/* A rule that backtracks catastrophically used its full match limit on every
 * line (53-75 s for 2,200 lines); after its first hits its limit is lowered,
 * so the next 1,000 lines cost about ten first lines, not a thousand.  The
 * lines still report LOGTK_ERR_LIMIT, so they are counted.  Timed by CPU
 * clock against the first line, so a slow machine slows both sides. */
TEST(test_catastrophic_rule_gets_cheaper)
{
    ltk_masker *m;
    CHECK_STATUS(ltk_masker_new(&m), LOGTK_OK);
    CHECK_STATUS(ltk_masker_add(m, "(x+x+)+y", NULL, &err), LOGTK_OK);
    char line[64];
    memset(line, 'x', 40);
    memcpy(line + 40, " end y", 7);
    int rc;
    clock_t t0 = clock();
    apply(m, line, &rc);
    clock_t first = clock() - t0;
    CHECK(rc == LOGTK_ERR_LIMIT);
    int limited = 0;
    t0 = clock();
    for (int i = 0; i < 1000; i++) {
        apply(m, line, &rc);
        limited += rc == LOGTK_ERR_LIMIT;
    }
    clock_t rest = clock() - t0;
    CHECK(limited == 1000);
    if (!(rest < 100 * (first > 0 ? first : 1)))
        fprintf(stderr, "first line %ld ticks, next 1000 lines %ld ticks\n", (long)first,
                (long)rest);
    CHECK(rest < 100 * (first > 0 ? first : 1));
    ltk_masker_free(m);
}

TEST(test_binary_bytes)
{
    ltk_masker *m;
    CHECK_STATUS(ltk_masker_new(&m), LOGTK_OK);
    CHECK_STATUS(ltk_masker_add(m, "\\d+", NULL, &err), LOGTK_OK);
    const char t[] = "a\0001\xff 2";
    const char *masked;
    size_t mlen;
    CHECK_STATUS(ltk_masker_apply(m, t, sizeof t - 1, &masked, &mlen, &err), LOGTK_OK);
    CHECK(mlen == 10 && memcmp(masked, "a\0<*>\xff <*>", 10) == 0);
    ltk_masker_free(m);
}

TEST(test_tokenize)
{
    ltk_tokens t = LTK_TOKENS_INIT;
    const char *s = "  a\tbb\x1c" "c\x1f d\r\n\v\fe  ";
    CHECK_STATUS(ltk_tokenize(&t, s, strlen(s)), LOGTK_OK);
    CHECK(t.n == 5);
    if (t.n == 5) {
        CHECK_BYTES(t.tok[0].ptr, t.tok[0].len, "a");
        CHECK_BYTES(t.tok[1].ptr, t.tok[1].len, "bb");
        CHECK_BYTES(t.tok[2].ptr, t.tok[2].len, "c");
        CHECK_BYTES(t.tok[3].ptr, t.tok[3].len, "d");
        CHECK_BYTES(t.tok[4].ptr, t.tok[4].len, "e");
        CHECK(t.tok[1].ptr == s + 4); /* slices of the input */
    }
    CHECK_STATUS(ltk_tokenize(&t, "", 0), LOGTK_OK);
    CHECK(t.n == 0);
    CHECK_STATUS(ltk_tokenize(&t, " \t ", 3), LOGTK_OK);
    CHECK(t.n == 0);
    /* NUL, NBSP and other bytes are not separators (str.split() on ASCII) */
    const char u[] = "x\0y\xa0z";
    CHECK_STATUS(ltk_tokenize(&t, u, sizeof u - 1), LOGTK_OK);
    CHECK(t.n == 1 && t.tok[0].len == 5);
    CHECK(ltk_is_split_space(' ') && ltk_is_split_space(0x1e) && !ltk_is_split_space(0x1b));
    /* the eight-byte scan stops at any byte <= 0x20: one that is no
       separator (0x01, 0x1b) stays in the token, one that is (0x1c) ends it */
    const char *w = "abcdefgh\x01ijklmnop qrstuvwx\x1b" "yz0123456 aaaaaaaaaa\x1c" "bbbbbbbbbb";
    CHECK_STATUS(ltk_tokenize(&t, w, strlen(w)), LOGTK_OK);
    CHECK(t.n == 4);
    if (t.n == 4) {
        CHECK_BYTES(t.tok[0].ptr, t.tok[0].len, "abcdefgh\x01ijklmnop");
        CHECK_BYTES(t.tok[1].ptr, t.tok[1].len, "qrstuvwx\x1b" "yz0123456");
        CHECK_BYTES(t.tok[2].ptr, t.tok[2].len, "aaaaaaaaaa");
        CHECK_BYTES(t.tok[3].ptr, t.tok[3].len, "bbbbbbbbbb");
    }
    /* many tokens grow the array */
    char many[3000];
    for (int i = 0; i < 1000; i++)
        memcpy(many + 3 * i, "ab ", 3);
    CHECK_STATUS(ltk_tokenize(&t, many, sizeof many), LOGTK_OK);
    CHECK(t.n == 1000);
    ltk_tokens_free(&t);
}
