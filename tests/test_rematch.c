/*
 * test_rematch.c - logtk_parser_rematch_reader(): the classify pass of a
 * sharded run that knows each line's shard template gives every line what
 * logtk_parser_match() gives it; and ltk_tmatch_may_share(), the test of
 * two templates its plan rests on.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "logtk.h"
#include "parser_impl.h"
#include "template_match.h"
#include "test_harness.h"
#include "parser_test_util.h"

static uint32_t match_id(logtk_parser *p, const char *line, size_t len)
{
    logtk_event ev;
    int rc = logtk_parser_match(p, line, len, &ev);
    return rc == LOGTK_OK || rc == LOGTK_ERR_LIMIT ? ev.template_id : 0;
}

/* Rematches n lines (shard ids in ids, answers back in ids), the lines joined
   in memory; f may be NULL. */
static void rematch(logtk_parser *merged, logtk_parser *shard, logtk_format *f,
                    const char *const *lines, size_t n, uint32_t *ids)
{
    size_t used = 0;
    for (size_t i = 0; i < n; i++)
        used += strlen(lines[i]) + 1;
    char *buf = malloc(used + 1), *at = buf;
    for (size_t i = 0; i < n; i++) {
        memcpy(at, lines[i], strlen(lines[i]));
        at += strlen(lines[i]);
        *at++ = '\n';
    }
    logtk_reader *r = NULL;
    CHECK_STATUS(logtk_reader_new(&r), LOGTK_OK);
    CHECK_STATUS(logtk_reader_open_memory(r, buf, used, "lines"), LOGTK_OK);
    size_t got = 0;
    CHECK_STATUS(logtk_parser_rematch_reader(merged, shard, f, r, n, ids, &got), LOGTK_OK);
    CHECK(got == n);
    CHECK_STATUS(logtk_parser_rematch_reader(merged, shard, f, r, n, ids, &got), LOGTK_DONE);
    CHECK(got == 0);
    logtk_reader_free(r);
    free(buf);
}

static int may_share(const char *a, const char *b)
{
    int ab = ltk_tmatch_may_share(a, strlen(a), b, strlen(b));
    CHECK(ab == ltk_tmatch_may_share(b, strlen(b), a, strlen(a))); /* symmetric */
    return ab;
}

TEST(may_share_is_zero_only_for_templates_no_line_matches_both)
{
    CHECK(may_share("a <*>", "<*> b") == 1); /* "a b" */
    CHECK(may_share("job <*> done", "job 7 done") == 1);
    CHECK(may_share("job <*> done", "job <*> failed") == 0);
    CHECK(may_share("Receiving block <*>", "Received block <*>") == 0);
    CHECK(may_share("x <*> y", "x <*> z") == 0); /* the same start, other ends */
    CHECK(may_share("<*> a <*>", "<*> b <*>") == 1); /* "a b" */
    CHECK(may_share("a b", "a  b") == 1);            /* blank runs match blank runs */
    CHECK(may_share("a b", "ab") == 1);              /* blanks dropped: a may, not must */
    CHECK(may_share("ab", "abc") == 0);
    CHECK(may_share("a<*>c", "ab<*>") == 1); /* "abc" */
    CHECK(may_share("a<*>c", "<*>bd") == 0);
    CHECK(may_share("<*>", "anything at all") == 1);
    CHECK(may_share("", "") == 1);
    CHECK(may_share("", "a") == 0);
    CHECK(may_share("<*>x<*>y<*>", "<*>y<*>x<*>") == 1); /* "xyx" */
    CHECK(may_share("x<*>y", "y<*>x") == 0);
}

TEST(rematch_gives_a_line_to_the_more_specific_template_that_takes_it)
{
    logtk_parser *merged = new_parser("iplom"); /* a batch parser: no search of its own */
    logtk_parser *shard = new_parser("iplom");
    uint32_t to_any = make_template(merged, "connect to <*>");
    uint32_t to_host = make_template(merged, "connect to host <*>");
    uint32_t closed = make_template(merged, "closed <*>");
    uint32_t s_any = make_template(shard, "connect to <*>");
    uint32_t s_closed = make_template(shard, "closed <*>");
    uint32_t s_new = make_template(shard, "opened <*>");
    static const char *const lines[] = {"connect to h1", "connect to host h9", "closed 4",
                                        "opened 5",      "connect   to x",     "nothing"};
    uint32_t ids[6] = {s_any, s_any, s_closed, s_new, s_any, 0};
    rematch(merged, shard, NULL, lines, 6, ids);
    CHECK(ids[0] == to_any);
    CHECK(ids[1] == to_host); /* "connect to <*>" in the shard, the more specific here */
    CHECK(ids[2] == closed);
    CHECK(ids[3] == 0); /* merged has no such text: matched in full, none matches */
    CHECK(ids[4] == to_any);
    CHECK(ids[5] == 0);
    for (size_t i = 0; i < 6; i++)
        CHECK(ids[i] == match_id(merged, lines[i], strlen(lines[i])));
    logtk_parser_free(shard);
    logtk_parser_free(merged);
}

TEST(rematch_matches_in_full_for_a_parser_with_its_own_search_and_refuses_bad_arguments)
{
    static const char *const lines[] = {"a 1", "a 2", "b c d", "zzz"};
    logtk_parser *drain = new_parser("drain");
    feed_all(drain, lines, 3);
    uint32_t ids[4] = {1, 1, 2, 7}; /* 7: not a template of the shard */
    rematch(drain, drain, NULL, lines, 4, ids);
    for (size_t i = 0; i < 4; i++)
        CHECK(ids[i] == match_id(drain, lines[i], strlen(lines[i])));
    logtk_reader *r = NULL;
    CHECK_STATUS(logtk_reader_new(&r), LOGTK_OK);
    CHECK_STATUS(logtk_parser_rematch_reader(drain, NULL, NULL, r, 4, ids, NULL),
                 LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_parser_rematch_reader(drain, drain, NULL, r, 4, NULL, NULL),
                 LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_parser_rematch_reader(NULL, drain, NULL, r, 4, ids, NULL),
                 LOGTK_ERR_INVALID);
    logtk_reader_free(r);
    logtk_parser_free(drain);
}

/* A small deterministic generator, so a failure repeats. */
static uint32_t next_random(uint64_t *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(*state >> 33);
}

static void random_text(uint64_t *rng, char *out, size_t cap, const char *const *words,
                        size_t nwords, int blank_runs)
{
    size_t n = 1 + next_random(rng) % 4, used = 0;
    out[0] = '\0';
    for (size_t k = 0; k < n; k++) {
        const char *w = words[next_random(rng) % nwords];
        const char *gap = !k ? "" : blank_runs && next_random(rng) % 4 == 0 ? " \t " : " ";
        used += (size_t)snprintf(out + used, cap - used, "%s%s", gap, w);
    }
}

/*
 * Random templates on both sides, random lines, each given the first shard
 * template whose text matches it (as a shard parser would have assigned it
 * one that matches): every answer is what logtk_parser_match() gives.
 */
TEST(rematch_agrees_with_match_on_random_templates_and_lines)
{
    enum { MERGED = 12, SHARD = 8, LINES = 200 };
    static const char *const tmpl_words[] = {"a", "b", "ab", "<*>", "a<*>", "<*>b", "c"};
    static const char *const line_words[] = {"a", "b", "ab", "aab", "abb", "ba", "c", "cb"};
    uint64_t rng = 42;
    size_t planned = 0, checked = 0;
    for (int round = 0; round < 300; round++) {
        logtk_parser *merged = new_parser("iplom");
        logtk_parser *shard = new_parser("iplom");
        char text[MERGED][64], stext[SHARD][64];
        for (int k = 0; k < MERGED; k++) {
            random_text(&rng, text[k], sizeof text[k], tmpl_words, 7, 0);
            make_template(merged, text[k]);
        }
        for (int k = 0; k < SHARD; k++) {
            if (k % 4 != 3) /* most of them texts merged has too */
                strcpy(stext[k], text[next_random(&rng) % MERGED]);
            else
                random_text(&rng, stext[k], sizeof stext[k], tmpl_words, 7, 0);
            make_template(shard, stext[k]);
        }
        static char line_buf[LINES][64];
        const char *lines[LINES];
        uint32_t ids[LINES];
        for (int n = 0; n < LINES; n++) {
            random_text(&rng, line_buf[n], sizeof line_buf[n], line_words, 8, 1);
            lines[n] = line_buf[n];
            ids[n] = 0;
            for (uint32_t i = 1; i <= SHARD && ids[n] == 0; i++)
                if (logtk_template_match(stext[i - 1], strlen(stext[i - 1]), lines[n],
                                         strlen(lines[n]), NULL, 0, NULL) == LOGTK_OK)
                    ids[n] = i;
            for (int k = 0; ids[n] && k < MERGED; k++)
                planned += strcmp(text[k], stext[ids[n] - 1]) == 0;
        }
        rematch(merged, shard, NULL, lines, LINES, ids);
        for (int n = 0; n < LINES; n++) {
            uint32_t want = match_id(merged, lines[n], strlen(lines[n]));
            checked++;
            if (ids[n] != want) {
                fprintf(stderr, "round %d: \"%s\": rematched %u, matched %u\n", round, lines[n],
                        ids[n], want);
                CHECK(0);
            }
        }
        logtk_parser_free(shard);
        logtk_parser_free(merged);
    }
    printf("random: %zu lines, %zu of them with a shard template merged has too\n", checked,
           planned);
    CHECK(planned > 2000); /* the plan, not only the full match, was tested */
}

/*
 * On Loghub-2k logs (LOGTK_LOGHUB) in 4 shards, as logtk.dask parses them:
 * each shard learned by its own fuse parser with the dataset's preset, the
 * snapshots merged; the rematch of each shard with its ids equals the
 * plain match of its lines.
 */
static void shards_of(const char *dir, const char *dataset, size_t *total_lines)
{
    enum { SHARDS = 4 };
    const logtk_dataset *d = logtk_dataset_find(dataset);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/%s_2k.log", dir, dataset, dataset);
    FILE *fp = fopen(path, "rb");
    CHECK(fp != NULL);
    if (fp == NULL)
        return;
    static char data[1 << 23];
    size_t len = fread(data, 1, sizeof data, fp);
    fclose(fp);
    logtk_format *f = NULL;
    CHECK_STATUS(logtk_format_new(&f), LOGTK_OK);
    CHECK_STATUS(logtk_format_compile(f, logtk_dataset_format(d)), LOGTK_OK);
    size_t cut[SHARDS + 1] = {0};
    for (size_t s = 1; s < SHARDS; s++) {
        const char *nl = memchr(data + len * s / SHARDS, '\n', len - len * s / SHARDS);
        cut[s] = nl ? (size_t)(nl - data) + 1 : len;
    }
    cut[SHARDS] = len;
    logtk_parser *shard[SHARDS];
    void *bufs[SHARDS];
    size_t lens[SHARDS];
    uint32_t *ids[SHARDS];
    size_t nids[SHARDS];
    for (size_t s = 0; s < SHARDS; s++) {
        shard[s] = new_parser("fuse");
        CHECK_STATUS(logtk_dataset_configure(d, shard[s]), LOGTK_OK);
        ids[s] = calloc(4000, sizeof **ids);
        logtk_reader *r = NULL;
        CHECK_STATUS(logtk_reader_new(&r), LOGTK_OK);
        CHECK_STATUS(logtk_reader_open_memory(r, data + cut[s], cut[s + 1] - cut[s], "shard"),
                     LOGTK_OK);
        CHECK_STATUS(logtk_parser_feed_reader(shard[s], f, r, 4000, ids[s], &nids[s]), LOGTK_DONE);
        logtk_reader_free(r);
        CHECK_STATUS(logtk_parser_finish(shard[s]), LOGTK_OK);
        CHECK_STATUS(logtk_parser_save(shard[s], &bufs[s], &lens[s]), LOGTK_OK);
    }
    logtk_parser *merged = NULL;
    CHECK_STATUS(logtk_parser_merge(&merged, SHARDS, (const void *const *)bufs, lens, NULL),
                 LOGTK_OK);
    for (size_t s = 0; s < SHARDS; s++) {
        uint32_t *want = calloc(4000, sizeof *want);
        size_t n = 0;
        logtk_reader *r = NULL;
        CHECK_STATUS(logtk_reader_new(&r), LOGTK_OK);
        CHECK_STATUS(logtk_reader_open_memory(r, data + cut[s], cut[s + 1] - cut[s], "shard"),
                     LOGTK_OK);
        CHECK_STATUS(logtk_parser_match_reader(merged, f, r, 4000, want, &n), LOGTK_DONE);
        logtk_reader_free(r);
        CHECK_STATUS(logtk_reader_new(&r), LOGTK_OK);
        CHECK_STATUS(logtk_reader_open_memory(r, data + cut[s], cut[s + 1] - cut[s], "shard"),
                     LOGTK_OK);
        size_t got = 0;
        CHECK_STATUS(logtk_parser_rematch_reader(merged, shard[s], f, r, nids[s], ids[s], &got),
                     LOGTK_OK);
        logtk_reader_free(r);
        CHECK(n == nids[s] && got == n);
        for (size_t i = 0; i < n; i++)
            if (ids[s][i] != want[i]) {
                fprintf(stderr, "%s shard %zu line %zu: rematched %u, matched %u\n", dataset,
                        s, i + 1, ids[s][i], want[i]);
                CHECK(0);
            }
        *total_lines += n;
        free(want);
        free(ids[s]);
        logtk_free(bufs[s]);
        logtk_parser_free(shard[s]);
    }
    logtk_parser_free(merged);
    logtk_format_free(f);
}

TEST(rematch_agrees_with_match_on_loghub_shards)
{
    const char *dir = getenv("LOGTK_LOGHUB");
    if (dir == NULL || dir[0] == '\0') {
        printf("skipped: LOGTK_LOGHUB not set (rematching Loghub-2k shards)\n");
        return;
    }
    size_t total = 0;
    for (size_t k = 0; logtk_dataset_at(k) != NULL; k++)
        shards_of(dir, logtk_dataset_name(logtk_dataset_at(k)), &total);
    printf("Loghub-2k in 4 shards: %zu lines rematched as matched\n", total);
    CHECK(total == 32000);
}
