/*
 * test_metrics.c - GA, PA, FGA, FTA on small hand-computed cases, and the
 * Loghub dataset registry.
 *
 * Each metric case is small enough to verify on paper; the expected values
 * are written out with the reasoning next to them.  Strings are copied into
 * separate buffers so grouping by string content, not by pointer, is tested.
 * With LOGTK_LOGHUB set, every preset's format is also checked against its
 * dataset (the byte-exact originals, CRLF): all 2,000 lines match and each
 * content equals the ground truth's Content column up to whitespace.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dataset_registry.h"
#include "logtk.h"
#include "test_harness.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

/* Holds copies of the strings of one case, so equal strings never share a pointer. */
typedef struct string_case {
    size_t n;
    logtk_slice parsed[16];
    logtk_slice truth[16];
} string_case;

static void case_init(string_case *c, const char *const *parsed, const char *const *truth,
                      size_t n)
{
    c->n = n;
    for (size_t i = 0; i < n; i++) {
        c->parsed[i].ptr = strdup(parsed[i]);
        c->parsed[i].len = strlen(parsed[i]);
        c->truth[i].ptr = strdup(truth[i]);
        c->truth[i].len = strlen(truth[i]);
    }
}

static void case_free(string_case *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free((void *)c->parsed[i].ptr);
        free((void *)c->truth[i].ptr);
    }
}

static logtk_parse_metrics evaluate(const char *const *parsed, const char *const *truth, size_t n)
{
    string_case c;
    logtk_parse_metrics m;
    case_init(&c, parsed, truth, n);
    CHECK_STATUS(logtk_evaluate(c.n, c.parsed, c.truth, &m), LOGTK_OK);
    case_free(&c);
    return m;
}

TEST(test_perfect)
{
    const char *t[] = {"open <*>", "close <*>", "open <*>", "read <*> bytes"};
    logtk_parse_metrics m = evaluate(t, t, 4);
    CHECK(m.messages == 4 && m.true_templates == 3 && m.parsed_templates == 3);
    CHECK(NEAR(m.ga, 1) && NEAR(m.pa, 1) && NEAR(m.fga, 1) && NEAR(m.fta, 1));
}

/* A parsed group equal to a true group but with another string: counts for GA
   and FGA, not for PA and FTA. */
TEST(test_same_group_other_string)
{
    const char *truth[] = {"A <*>", "A <*>", "B", "B", "C"};
    const char *parsed[] = {"A x", "A x", "B", "B", "C"};
    logtk_parse_metrics m = evaluate(parsed, truth, 5);
    CHECK(NEAR(m.ga, 1.0));      /* every parsed group equals a true group */
    CHECK(NEAR(m.pa, 3.0 / 5));  /* "A x" != "A <*>" for messages 0, 1 */
    CHECK(NEAR(m.fga, 1.0));     /* 3 correct of P = G = 3 */
    CHECK(NEAR(m.fta, 2.0 / 3)); /* 2 correct templates: P = R = 2/3 */
}

/* Split and merge.  True groups A={0,1,2} B={3,4} C={5}; parsed A={0,1}
   (a strict subset: wrong), D={2,3,4} (mixed: wrong), C={5} (right). */
TEST(test_split_and_merge)
{
    const char *truth[] = {"A", "A", "A", "B", "B", "C"};
    const char *parsed[] = {"A", "A", "D", "D", "D", "C"};
    logtk_parse_metrics m = evaluate(parsed, truth, 6);
    CHECK(m.true_templates == 3 && m.parsed_templates == 3);
    CHECK(NEAR(m.ga, 1.0 / 6));  /* only message 5 */
    CHECK(NEAR(m.pa, 3.0 / 6));  /* messages 0, 1, 5 have the right string */
    CHECK(NEAR(m.fga, 1.0 / 3)); /* 1 of 3 and 1 of 3 */
    CHECK(NEAR(m.fta, 1.0 / 3));
}

/* P != G.  True A={0,1} B={2} C={3}; parsed A={0,1} right, Z={2,3} mixed.
   PGA = 1/2, RGA = 1/3, F1 = 2 * (1/2)(1/3) / (5/6) = 0.4. */
TEST(test_unequal_counts)
{
    const char *truth[] = {"A", "A", "B", "C"};
    const char *parsed[] = {"A", "A", "Z", "Z"};
    logtk_parse_metrics m = evaluate(parsed, truth, 4);
    CHECK(m.true_templates == 3 && m.parsed_templates == 2);
    CHECK(NEAR(m.ga, 0.5));
    CHECK(NEAR(m.pa, 0.5));
    CHECK(NEAR(m.fga, 0.4));
    CHECK(NEAR(m.fta, 0.4));

    /* Same grouping, other strings: FGA stays, FTA and PA drop to 0. */
    const char *parsed2[] = {"Q", "Q", "Z", "Z"};
    m = evaluate(parsed2, truth, 4);
    CHECK(NEAR(m.ga, 0.5));
    CHECK(NEAR(m.pa, 0.0));
    CHECK(NEAR(m.fga, 0.4));
    CHECK(NEAR(m.fta, 0.0));
}

/* PA is per message: a parsed string that equals the true string of the
   message counts even when the grouping is wrong. */
TEST(test_pa_without_grouping)
{
    const char *truth[] = {"A", "B", "A", "B"};
    const char *parsed[] = {"A", "A", "A", "A"};
    logtk_parse_metrics m = evaluate(parsed, truth, 4);
    CHECK(NEAR(m.ga, 0.0));
    CHECK(NEAR(m.pa, 0.5));
    CHECK(NEAR(m.fga, 0.0) && NEAR(m.fta, 0.0));
    /* Empty strings are templates like any other. */
    const char *truth2[] = {"", "", "x"};
    const char *parsed2[] = {"", "", "y"};
    m = evaluate(parsed2, truth2, 3);
    CHECK(NEAR(m.ga, 1.0) && NEAR(m.pa, 2.0 / 3) && NEAR(m.fga, 1.0) && NEAR(m.fta, 0.5));
}

TEST(test_bad_arguments)
{
    logtk_slice s = {"a", 1};
    logtk_parse_metrics m;
    CHECK_STATUS(logtk_evaluate(0, &s, &s, &m), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_evaluate(1, &s, &s, NULL), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_evaluate(1, NULL, &s, &m), LOGTK_ERR_INVALID);
}

/* What logtk_evaluate_errors() reported, as rows to compare. */
typedef struct error_row {
    char truth[8], parsed[8];
    size_t messages, first;
    unsigned kind;
} error_row;

typedef struct error_list {
    error_row rows[32];
    size_t n;
    size_t stop_after; /* 0: never stop */
} error_list;

static int collect_error(void *arg, const logtk_group_error *e)
{
    error_list *l = arg;
    CHECK(l->n < 32);
    if (l->n >= 32)
        return -1;
    error_row *r = &l->rows[l->n++];
    snprintf(r->truth, sizeof r->truth, "%.*s", (int)e->truth.len, e->truth.ptr);
    snprintf(r->parsed, sizeof r->parsed, "%.*s", (int)e->parsed.len, e->parsed.ptr);
    r->messages = e->messages;
    r->first = e->first;
    r->kind = e->kind;
    return l->stop_after && l->n == l->stop_after ? 42 : 0;
}

static int list_errors(const char *const *parsed, const char *const *truth, size_t n,
                       error_list *l)
{
    string_case c;
    case_init(&c, parsed, truth, n);
    int rc = logtk_evaluate_errors(c.n, c.parsed, c.truth, collect_error, l);
    case_free(&c);
    return rc;
}

static int row_is(const error_row *r, const char *truth, const char *parsed, size_t messages,
                  size_t first, unsigned kind)
{
    return strcmp(r->truth, truth) == 0 && strcmp(r->parsed, parsed) == 0 &&
           r->messages == messages && r->first == first && r->kind == kind;
}

/* The pairs behind test_split_and_merge, and a right group written otherwise.
   True A={0,1,2} B={3,4} C={5} E={6,7} F={8}; parsed A={0,1} D={2,3,4} C e F. */
TEST(test_errors_split_merged_text)
{
    const char *truth[] = {"A", "A", "A", "B", "B", "C", "E", "E", "F"};
    const char *parsed[] = {"A", "A", "D", "D", "D", "C", "e", "e", "F"};
    error_list l = {0};
    CHECK_STATUS(list_errors(parsed, truth, 9, &l), LOGTK_OK);
    CHECK(l.n == 4);
    CHECK(row_is(&l.rows[0], "A", "A", 2, 0, LOGTK_GROUP_SPLIT));
    CHECK(row_is(&l.rows[1], "A", "D", 1, 2, LOGTK_GROUP_SPLIT | LOGTK_GROUP_MERGED));
    CHECK(row_is(&l.rows[2], "B", "D", 2, 3, LOGTK_GROUP_MERGED));
    CHECK(row_is(&l.rows[3], "E", "e", 2, 6, LOGTK_GROUP_TEXT));
    /* C and F are right groups with their own strings: no row */
}

/* Within a true group the pairs come by their first message, not by the
   order in which the parsed templates first appeared. */
TEST(test_errors_order)
{
    const char *truth[] = {"Y", "X", "X"};
    const char *parsed[] = {"p", "q", "p"};
    error_list l = {0};
    CHECK_STATUS(list_errors(parsed, truth, 3, &l), LOGTK_OK);
    CHECK(l.n == 3);
    CHECK(row_is(&l.rows[0], "Y", "p", 1, 0, LOGTK_GROUP_MERGED));
    CHECK(row_is(&l.rows[1], "X", "q", 1, 1, LOGTK_GROUP_SPLIT));
    CHECK(row_is(&l.rows[2], "X", "p", 1, 2, LOGTK_GROUP_SPLIT | LOGTK_GROUP_MERGED));

    /* a nonzero return stops the walk and is returned */
    error_list stop = {0};
    stop.stop_after = 2;
    CHECK_STATUS(list_errors(parsed, truth, 3, &stop), 42);
    CHECK(stop.n == 2);

    logtk_slice s = {"a", 1};
    CHECK_STATUS(logtk_evaluate_errors(0, &s, &s, collect_error, &l), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_evaluate_errors(1, &s, &s, NULL, NULL), LOGTK_ERR_INVALID);
}

/* On random groupings the rows account for the metrics: the messages of the
   split and merged rows are exactly those outside right groups (1 - GA), and
   every message whose two strings differ is in some row (1 - PA at most). */
TEST(test_errors_account_for_ga)
{
    static const char *const names[] = {"a", "b", "c", "d", "e"};
    unsigned seed = 12345;
    for (int round = 0; round < 200; round++) {
        const char *truth[16], *parsed[16];
        size_t n = 1 + (size_t)(round % 16);
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            truth[i] = names[(seed >> 16) % 3];
            seed = seed * 1103515245u + 12345u;
            parsed[i] = names[(seed >> 16) % 5];
        }
        logtk_parse_metrics m = evaluate(parsed, truth, n);
        error_list l = {0};
        CHECK_STATUS(list_errors(parsed, truth, n, &l), LOGTK_OK);
        size_t grouping = 0, all = 0;
        for (size_t r = 0; r < l.n; r++) {
            all += l.rows[r].messages;
            if (l.rows[r].kind != LOGTK_GROUP_TEXT)
                grouping += l.rows[r].messages;
            CHECK(l.rows[r].kind != 0);
        }
        CHECK(NEAR((double)grouping, (1.0 - m.ga) * (double)n));
        CHECK((double)all + 1e-9 >= (1.0 - m.pa) * (double)n);
    }
}

/* Loghub's EventId is the MD5 prefix of the template: RFC 1321's test
   vectors, one of them one block, one 56 bytes (its length goes into a second
   padding block) and one of two full blocks. */
TEST(test_loghub_event_id)
{
    static const struct {
        const char *text, *id;
    } vectors[] = {
        {"", "d41d8cd9"},
        {"abc", "90015098"},
        {"The quick brown fox jumps over the lazy dog", "9e107d9d"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "8215ef07"},
        {"1234567890123456789012345678901234567890123456789012345678901234567890123456789"
         "0", "57edf4a2"},
    };
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        char id[9];
        logtk_loghub_event_id(vectors[i].text, strlen(vectors[i].text), id);
        CHECK(strcmp(id, vectors[i].id) == 0);
    }
}

/* A larger case checked against counts computed independently: 1000
   messages, true template i % 10, parsed i % 20 (every true group split in
   two), so no group is right but PA counts the messages whose strings agree. */
TEST(test_larger)
{
    enum { N = 1000 };
    static char pbuf[N][8], tbuf[N][8];
    static logtk_slice parsed[N], truth[N];
    size_t same = 0;
    for (int i = 0; i < N; i++) {
        snprintf(tbuf[i], sizeof tbuf[i], "t%d", i % 10);
        snprintf(pbuf[i], sizeof pbuf[i], "t%d", i % 20);
        parsed[i] = (logtk_slice){pbuf[i], strlen(pbuf[i])};
        truth[i] = (logtk_slice){tbuf[i], strlen(tbuf[i])};
        same += strcmp(pbuf[i], tbuf[i]) == 0;
    }
    logtk_parse_metrics m;
    CHECK_STATUS(logtk_evaluate(N, parsed, truth, &m), LOGTK_OK);
    CHECK(m.true_templates == 10 && m.parsed_templates == 20);
    CHECK(NEAR(m.ga, 0.0) && NEAR(m.fga, 0.0));
    CHECK(NEAR(m.pa, (double)same / N) && same == 500);
}

TEST(test_registry)
{
    static const char *const order[] = {"HDFS",  "Hadoop",      "Spark",     "Zookeeper",
                                        "BGL",   "HPC",         "Thunderbird", "Windows",
                                        "Linux", "Android",     "HealthApp", "Apache",
                                        "Proxifier", "OpenSSH", "OpenStack", "Mac"};
    size_t count = 0;
    while (logtk_dataset_at(count))
        count++;
    CHECK(count == 16);
    CHECK(ltk_dataset_count() == 16);
    for (size_t i = 0; i < 16 && i < count; i++)
        CHECK(strcmp(logtk_dataset_name(logtk_dataset_at(i)), order[i]) == 0);
    CHECK(logtk_dataset_find("hdfs") == logtk_dataset_at(0));
    CHECK(logtk_dataset_find("OPENstack") == logtk_dataset_at(14));
    CHECK(logtk_dataset_find("mac") == logtk_dataset_at(15));
    CHECK(logtk_dataset_find("nosuch") == NULL);
    CHECK(logtk_dataset_find(NULL) == NULL);

    /* Facts spot-checked against settings.tsv. */
    const logtk_dataset *hdfs = logtk_dataset_find("HDFS");
    CHECK(strcmp(logtk_dataset_format(hdfs),
                 "<Date> <Time> <Pid> <Level> <Component>: <Content>") == 0);
    const char *const *masks = ltk_dataset_masks_for(hdfs, "drain");
    CHECK(masks[0] && strcmp(masks[0], "blk_-?\\d+") == 0);
    CHECK(masks[1] && strcmp(masks[1], "(\\d+\\.){3}\\d+(:\\d+)?") == 0);
    CHECK(masks[1] && masks[2] == NULL);
    const char *name, *value;
    CHECK(ltk_dataset_param_at(hdfs, "drain", 0, &name, &value) && strcmp(name, "st") == 0 &&
          strcmp(value, "0.5") == 0);
    CHECK(ltk_dataset_param_at(hdfs, "drain", 1, &name, &value) && strcmp(name, "depth") == 0 &&
          strcmp(value, "4") == 0);
    CHECK(!ltk_dataset_param_at(hdfs, "drain", 2, &name, &value));
    CHECK(!ltk_dataset_param_at(hdfs, "nosuch", 0, &name, &value));
    CHECK(ltk_dataset_masks_for(hdfs, "nosuch") == hdfs->masks);
    /* Logram brings its own HDFS regexes. */
    CHECK(strcmp(ltk_dataset_masks_for(hdfs, "logram")[0], "blk_(|-)[0-9]+") == 0);

    /* Loghub-2.0's benchmark runs Drain with the block-id regex alone on HDFS
       and none on Spark; its other parsers' variants, and every other
       dataset, are Loghub-2k's. */
    const char *const *hdfs2 = ltk_dataset_masks_for_benchmark(hdfs, "Drain", "loghub2");
    CHECK(hdfs2[0] && strcmp(hdfs2[0], "blk_-?\\d+") == 0 && hdfs2[1] == NULL);
    CHECK(ltk_dataset_masks_for_benchmark(hdfs, "drain", NULL) == hdfs->masks);
    CHECK(ltk_dataset_masks_for_benchmark(hdfs, "drain", "loghub") == hdfs->masks);
    CHECK(strcmp(ltk_dataset_masks_for_benchmark(hdfs, "logram", "loghub2")[0],
                 "blk_(|-)[0-9]+") == 0);
    CHECK(ltk_dataset_masks_for_benchmark(hdfs, "fuse", "loghub2")[0] == NULL);
    const logtk_dataset *spark = logtk_dataset_find("Spark");
    CHECK(ltk_dataset_masks_for_benchmark(spark, "drain", "LOGHUB2")[0] == NULL);
    CHECK(ltk_dataset_masks_for_benchmark(spark, "drain", NULL) == spark->masks);
    CHECK(ltk_dataset_masks_for_benchmark(spark, "ael", "loghub2") == spark->masks);
    CHECK(ltk_dataset_masks_for_benchmark(logtk_dataset_find("BGL"), "drain", "loghub2") ==
          logtk_dataset_find("BGL")->masks);
    {
        logtk_parser *p = NULL;
        CHECK_STATUS(logtk_parser_new(&p, "drain"), LOGTK_OK);
        CHECK_STATUS(logtk_dataset_configure_for(hdfs, p, "nosuch"), LOGTK_ERR_NOT_FOUND);
        CHECK_STATUS(logtk_dataset_configure_for(NULL, p, "loghub2"), LOGTK_ERR_INVALID);
        CHECK_STATUS(logtk_dataset_configure_for(spark, p, "loghub2"), LOGTK_OK);
        /* no regex: an address stays in the line Drain sees, and is one of its words */
        logtk_event ev;
        CHECK_STATUS(logtk_parser_feed(p, "Registered at 10.0.0.1 ok", 25, &ev), LOGTK_OK);
        logtk_slice text;
        uint64_t lines;
        CHECK_STATUS(logtk_parser_template(p, ev.template_id, &text, &lines), LOGTK_OK);
        CHECK(text.len == 25 && memcmp(text.ptr, "Registered at 10.0.0.1 ok", 25) == 0);
        logtk_parser_free(p);
    }

    const logtk_dataset *linux_d = logtk_dataset_find("linux");
    CHECK(ltk_dataset_param_at(linux_d, "drain", 0, &name, &value) && strcmp(value, "0.39") == 0);
    CHECK(ltk_dataset_param_at(linux_d, "drain", 1, &name, &value) && strcmp(value, "6") == 0);
    CHECK(strcmp(ltk_dataset_masks_for(linux_d, "brain")[2], "J([a-z]{2})") == 0);
    CHECK(ltk_dataset_masks_for(logtk_dataset_find("HPC"), "brain")[0] == NULL);
    CHECK(strcmp(ltk_dataset_masks_for(logtk_dataset_find("proxifier"), "AEL")[0],
                 "<\\d+\\s?sec") == 0);
    CHECK(ltk_dataset_masks_for(logtk_dataset_find("HealthApp"), "drain")[0] == NULL);
    const logtk_dataset *proxifier = logtk_dataset_find("Proxifier");
    int has_delimiter = 0;
    for (size_t i = 0; ltk_dataset_param_at(proxifier, "brain", i, &name, &value); i++)
        if (strcmp(name, "delimiter") == 0)
            has_delimiter = strcmp(value, "\\(.*?\\)") == 0;
    CHECK(has_delimiter);
    CHECK(strcmp(logtk_dataset_format(logtk_dataset_find("Windows")),
                 "<Date> <Time>, <Level>                  <Component>    <Content>") == 0);

    /* Every format compiles, every mask of every variant compiles, and
       configure succeeds on a Drain parser. */
    for (size_t i = 0; i < count; i++) {
        const logtk_dataset *d = logtk_dataset_at(i);
        logtk_format *f = NULL;
        CHECK_STATUS(logtk_format_new(&f), LOGTK_OK);
        int rc = logtk_format_compile(f, logtk_dataset_format(d));
        if (rc != LOGTK_OK)
            fprintf(stderr, "%s: %s\n", d->name, logtk_format_errmsg(f));
        CHECK_STATUS(rc, LOGTK_OK);
        CHECK(logtk_format_field_count(f) >= 2);
        logtk_format_free(f);

        logtk_parser *p = NULL;
        CHECK_STATUS(logtk_parser_new(&p, "drain"), LOGTK_OK);
        if (!p)
            continue;
        rc = logtk_dataset_configure(d, p);
        if (rc != LOGTK_OK)
            fprintf(stderr, "%s: %s\n", d->name, logtk_parser_errmsg(p));
        CHECK_STATUS(rc, LOGTK_OK);
        logtk_parser_free(p);
        for (size_t v = 0; v < DATASET_MAX_VARIANTS && d->variants[v].algorithm; v++) {
            CHECK_STATUS(logtk_parser_new(&p, "drain"), LOGTK_OK);
            for (size_t k = 0; p && d->variants[v].masks[k]; k++)
                CHECK_STATUS(logtk_parser_add_mask(p, d->variants[v].masks[k], NULL), LOGTK_OK);
            logtk_parser_free(p);
        }
    }
    CHECK_STATUS(logtk_dataset_configure(NULL, NULL), LOGTK_ERR_INVALID);
}

/* Equal after collapsing whitespace runs to one space and trimming both ends. */
static int same_words(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t i = 0, j = 0;
    for (;;) {
        while (i < alen && isspace((unsigned char)a[i]))
            i++;
        while (j < blen && isspace((unsigned char)b[j]))
            j++;
        if (i == alen || j == blen)
            return i == alen && j == blen;
        /* one word from each side */
        while (i < alen && j < blen && !isspace((unsigned char)a[i]) &&
               !isspace((unsigned char)b[j]) && a[i] == b[j]) {
            i++;
            j++;
        }
        int a_end = i == alen || isspace((unsigned char)a[i]);
        int b_end = j == blen || isspace((unsigned char)b[j]);
        if (!a_end || !b_end)
            return 0;
    }
}

/* With the data at hand: each preset's format splits all 2,000 lines of its
   original dataset, and the content equals the ground truth's Content column
   (up to whitespace). */
TEST(test_formats_on_loghub)
{
    const char *dir = getenv("LOGTK_LOGHUB");
    if (!dir || !*dir) {
        printf("skipped: LOGTK_LOGHUB not set (format checks on the Loghub data)\n");
        return;
    }
    for (size_t i = 0; logtk_dataset_at(i); i++) {
        const logtk_dataset *d = logtk_dataset_at(i);
        char log_path[4096], csv_path[4096];
        snprintf(log_path, sizeof log_path, "%s/%s/original/%s_2k.log", dir, d->name, d->name);
        snprintf(csv_path, sizeof csv_path, "%s/%s/original/%s_2k.log_structured.csv", dir,
                 d->name, d->name);
        logtk_reader *r = NULL;
        logtk_csv *c = NULL;
        logtk_format *f = NULL;
        CHECK_STATUS(logtk_reader_new(&r), LOGTK_OK);
        CHECK_STATUS(logtk_csv_new(&c), LOGTK_OK);
        CHECK_STATUS(logtk_format_new(&f), LOGTK_OK);
        if (!r || !c || !f || logtk_reader_open_path(r, log_path) != LOGTK_OK ||
            logtk_csv_open_path(c, csv_path) != LOGTK_OK ||
            logtk_format_compile(f, logtk_dataset_format(d)) != LOGTK_OK) {
            CHECK(!"cannot open the dataset or compile its format");
            goto next;
        }
        const logtk_slice *fields;
        size_t nfields, content_col = SIZE_MAX;
        CHECK_STATUS(logtk_csv_next(c, &fields, &nfields), LOGTK_OK);
        for (size_t k = 0; k < nfields; k++)
            if (fields[k].len == 7 && memcmp(fields[k].ptr, "Content", 7) == 0)
                content_col = k;
        CHECK(content_col != SIZE_MAX);
        size_t lines = 0, unmatched = 0, differ = 0;
        logtk_line line;
        logtk_record rec;
        while (logtk_reader_next(r, &line) == LOGTK_OK) {
            lines++;
            CHECK_STATUS(logtk_format_match(f, line.data, line.len, &rec), LOGTK_OK);
            unmatched += !rec.matched;
            if (logtk_csv_next(c, &fields, &nfields) != LOGTK_OK || content_col >= nfields) {
                differ++;
                continue;
            }
            /* Loghub strips the line before matching, and Mac's ground truth
               holds a line break where the log has a space: compare with
               whitespace runs collapsed. */
            if (!same_words(rec.content.ptr, rec.content.len, fields[content_col].ptr,
                            fields[content_col].len)) {
                if (differ < 2)
                    fprintf(stderr, "%s:%zu: content \"%.*s\" != ground truth \"%.*s\"\n",
                            d->name, lines, (int)rec.content.len, rec.content.ptr,
                            (int)fields[content_col].len, fields[content_col].ptr);
                differ++;
            }
        }
        if (unmatched || differ)
            fprintf(stderr, "%s: %zu lines, %zu unmatched, %zu contents differ\n", d->name,
                    lines, unmatched, differ);
        CHECK(lines == 2000);
        CHECK(unmatched == 0);
        CHECK(differ == 0);
    next:
        logtk_reader_free(r);
        logtk_csv_free(c);
        logtk_format_free(f);
    }
}
