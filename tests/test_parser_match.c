/*
 * test_parser_match.c - the embedding additions to the parser API:
 * logtk_parser_match() (classify without learning), the template text in
 * each event, and named masks with their names reported per parameter.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hashtab.h"
#include "logtk.h"
#include "parser_impl.h"
#include "test_harness.h"
#include "parser_test_util.h"

static int slice_is(logtk_slice s, const char *want)
{
    return s.len == strlen(want) && memcmp(s.ptr, want, s.len) == 0;
}

static const char *const small_log[] = {
    "Received block blk_1 of size 67108864 from 10.0.0.1",
    "Received block blk_2 of size 67108864 from 10.0.0.2",
    "Deleting block blk_1 file /data/1",
    "Received block blk_3 of size 3 from 10.0.0.3",
    "Deleting block blk_2 file /data/2",
    "Served block blk_9 to 10.0.0.9",
    "Served block blk_8 to 10.0.0.8",
    "Verification succeeded for blk_1",
    "Verification succeeded for blk_7",
    "Deleting block blk_5 file /data/5",
    "PacketResponder 1 for block blk_1 terminating",
    "PacketResponder 2 for block blk_3 terminating",
    "PacketResponder 0 for block blk_4 terminating",
    "Served block blk_6 to 10.0.0.6",
};
#define SMALL_N (sizeof small_log / sizeof small_log[0])

TEST(match_drain_gives_the_line_own_template_and_learns_nothing)
{
    logtk_parser *p = new_parser("drain");
    feed_all(p, small_log, SMALL_N);
    uint32_t ntemplates = logtk_parser_template_count(p);
    uint64_t nlines = logtk_parser_line_count(p);
    for (size_t i = 0; i < SMALL_N; i++) {
        logtk_event ev;
        CHECK_STATUS(logtk_parser_match(p, small_log[i], strlen(small_log[i]), &ev), LOGTK_OK);
        CHECK(ev.template_id == tid(p, i));
        logtk_slice text;
        CHECK_STATUS(logtk_parser_template(p, ev.template_id, &text, NULL), LOGTK_OK);
        CHECK(ev.template_text.len == text.len &&
              memcmp(ev.template_text.ptr, text.ptr, text.len) == 0);
        CHECK(ev.created == 0 && ev.changed == 0);
        CHECK(ev.param_names == NULL); /* no named masks */
        CHECK_STATUS(logtk_template_match(text.ptr, text.len, small_log[i], strlen(small_log[i]),
                                          NULL, 0, NULL),
                     LOGTK_OK);
    }
    /* a line of a known shape with new values: classified, nothing learned */
    const char *fresh = "Received block blk_77 of size 5 from 10.9.9.9";
    logtk_event ev;
    CHECK_STATUS(logtk_parser_match(p, fresh, strlen(fresh), &ev), LOGTK_OK);
    CHECK(ev.template_id == tid(p, 0));
    CHECK(ev.nparams == 3);
    CHECK(slice_is(ev.params[0], "blk_77") || slice_is(ev.params[1], "5"));
    CHECK(logtk_parser_template_count(p) == ntemplates);
    CHECK(logtk_parser_line_count(p) == nlines);
    logtk_parser_free(p);
}

TEST(match_unknown_line_is_not_found_with_id_zero)
{
    logtk_parser *p = new_parser("drain");
    feed_all(p, small_log, SMALL_N);
    const char *alien = "kernel panic: not syncing";
    logtk_event ev;
    ev.template_id = 99;
    CHECK_STATUS(logtk_parser_match(p, alien, strlen(alien), &ev), LOGTK_ERR_NOT_FOUND);
    CHECK(ev.template_id == 0);
    CHECK(logtk_parser_template_count(p) > 0);
    logtk_parser_free(p);
    /* an empty parser knows nothing */
    p = new_parser("fuse");
    CHECK_STATUS(logtk_parser_match(p, alien, strlen(alien), &ev), LOGTK_ERR_NOT_FOUND);
    CHECK(logtk_parser_line_count(p) == 0);
    logtk_parser_free(p);
}

TEST(match_follows_template_changes_between_feeds)
{
    logtk_parser *p = new_parser("drain");
    const char *a = "connect from host alpha port 1";
    const char *b = "connect from host beta port 2";
    logtk_event ev;
    CHECK_STATUS(logtk_parser_feed(p, a, strlen(a), NULL), LOGTK_OK);
    CHECK_STATUS(logtk_parser_match(p, a, strlen(a), &ev), LOGTK_OK);
    CHECK(ev.template_id == 1);
    CHECK(slice_is(ev.template_text, "connect from host alpha port 1"));
    CHECK_STATUS(logtk_parser_match(p, b, strlen(b), &ev), LOGTK_ERR_NOT_FOUND);
    /* feeding b widens template 1; the index must see the new text */
    CHECK_STATUS(logtk_parser_feed(p, b, strlen(b), &ev), LOGTK_OK);
    CHECK(ev.template_id == 1 && ev.changed == 1);
    CHECK(slice_is(ev.template_text, "connect from host <*> port <*>"));
    const char *c = "connect from host gamma port 3";
    CHECK_STATUS(logtk_parser_match(p, c, strlen(c), &ev), LOGTK_OK);
    CHECK(ev.template_id == 1 && ev.nparams == 2);
    CHECK(slice_is(ev.params[0], "gamma") && slice_is(ev.params[1], "3"));
    logtk_parser_free(p);
}

TEST(match_prefers_the_most_specific_template)
{
    /* fuse keeps "job <*> done" and the exact "job cleanup done" apart only
       when told; whatever it learned, the answer must match and be the most
       specific of the matching templates */
    logtk_parser *p = new_parser("logmine"); /* batch: templates after finish */
    const char *lines[] = {"job 1 done", "job 2 done", "job 3 done", "status ok"};
    for (size_t i = 0; i < 4; i++)
        CHECK_STATUS(logtk_parser_feed(p, lines[i], strlen(lines[i]), NULL), LOGTK_OK);
    logtk_event ev;
    CHECK_STATUS(logtk_parser_match(p, lines[0], strlen(lines[0]), &ev), LOGTK_ERR_NOT_FOUND);
    CHECK_STATUS(logtk_parser_finish(p), LOGTK_OK);
    for (size_t i = 0; i < 4; i++) {
        CHECK_STATUS(logtk_parser_match(p, lines[i], strlen(lines[i]), &ev), LOGTK_OK);
        logtk_slice text;
        CHECK_STATUS(logtk_parser_template(p, tid(p, i), &text, NULL), LOGTK_OK);
        CHECK(ev.template_text.len == text.len &&
              memcmp(ev.template_text.ptr, text.ptr, text.len) == 0);
    }
    logtk_parser_free(p);
}

/* Every algorithm: after parsing, each line's match is a template that
   matches it, and on this small log the line's own template. */
TEST(match_every_algorithm_agrees_with_its_assignments)
{
    for (size_t a = 0; logtk_parser_algorithm_name(a) != NULL; a++) {
        const char *name = logtk_parser_algorithm_name(a);
        logtk_parser *p = new_parser(name);
        feed_all(p, small_log, SMALL_N);
        size_t same = 0;
        for (size_t i = 0; i < SMALL_N; i++) {
            logtk_event ev;
            CHECK_STATUS(logtk_parser_match(p, small_log[i], strlen(small_log[i]), &ev),
                         LOGTK_OK);
            CHECK_STATUS(logtk_template_match(ev.template_text.ptr, ev.template_text.len,
                                              small_log[i], strlen(small_log[i]), NULL, 0, NULL),
                         LOGTK_OK);
            CHECK(logtk_template_rebuilds(ev.template_text.ptr, ev.template_text.len,
                                          small_log[i], strlen(small_log[i]), ev.params,
                                          ev.nparams) == LOGTK_OK);
            logtk_slice own;
            CHECK_STATUS(logtk_parser_template(p, tid(p, i), &own, NULL), LOGTK_OK);
            same += own.len == ev.template_text.len &&
                    memcmp(own.ptr, ev.template_text.ptr, own.len) == 0;
        }
        if (same != SMALL_N)
            fprintf(stderr, "%s: %zu of %zu lines matched their own template\n", name, same,
                    (size_t)SMALL_N);
        CHECK(same == SMALL_N);
        logtk_parser_free(p);
    }
}

TEST(feed_event_carries_the_template_text)
{
    logtk_parser *p = new_parser("drain");
    logtk_event ev;
    CHECK_STATUS(logtk_parser_feed(p, small_log[0], strlen(small_log[0]), &ev), LOGTK_OK);
    CHECK(slice_is(ev.template_text, small_log[0]));
    CHECK_STATUS(logtk_parser_feed(p, small_log[1], strlen(small_log[1]), &ev), LOGTK_OK);
    CHECK(slice_is(ev.template_text, "Received block <*> of size 67108864 from <*>"));
    logtk_parser_free(p);
    /* a batch parser has no template yet: an empty text */
    p = new_parser("iplom");
    CHECK_STATUS(logtk_parser_feed(p, small_log[0], strlen(small_log[0]), &ev), LOGTK_OK);
    CHECK(ev.template_id == 0 && ev.template_text.len == 0 && ev.template_text.ptr != NULL);
    logtk_parser_free(p);
}

TEST(named_masks_name_the_parameters_they_made)
{
    logtk_parser *p = new_parser("drain");
    CHECK_STATUS(logtk_parser_add_named_mask(p, "IP", "\\d+\\.\\d+\\.\\d+\\.\\d+", NULL),
                 LOGTK_OK);
    CHECK_STATUS(logtk_parser_add_mask(p, "blk_\\d+", NULL), LOGTK_OK);
    CHECK_STATUS(logtk_parser_add_named_mask(p, "NUM", "\\b\\d+\\b", NULL), LOGTK_OK);
    logtk_event ev;
    const char *line = "Received block blk_1 of size 67108864 from 10.0.0.1";
    CHECK_STATUS(logtk_parser_feed(p, line, strlen(line), &ev), LOGTK_OK);
    CHECK(slice_is(ev.template_text, "Received block <*> of size <*> from <*>"));
    CHECK(ev.nparams == 3 && ev.param_names != NULL);
    CHECK(slice_is(ev.params[0], "blk_1") && slice_is(ev.param_names[0], ""));
    CHECK(slice_is(ev.params[1], "67108864") && slice_is(ev.param_names[1], "NUM"));
    CHECK(slice_is(ev.params[2], "10.0.0.1") && slice_is(ev.param_names[2], "IP"));
    /* match and extract report them too */
    const char *other = "Received block blk_2 of size 5 from 192.168.1.1";
    CHECK_STATUS(logtk_parser_match(p, other, strlen(other), &ev), LOGTK_OK);
    CHECK(ev.nparams == 3 && slice_is(ev.param_names[2], "IP") &&
          slice_is(ev.params[2], "192.168.1.1"));
    CHECK_STATUS(logtk_parser_extract(p, 1, other, strlen(other), &ev), LOGTK_OK);
    CHECK(ev.param_names != NULL && slice_is(ev.param_names[1], "NUM"));
    /* names survive a snapshot, and a merge refuses other names */
    void *snap;
    size_t len;
    CHECK_STATUS(logtk_parser_save(p, &snap, &len), LOGTK_OK);
    logtk_parser *q = new_parser("drain");
    CHECK_STATUS(logtk_parser_load(q, snap, len), LOGTK_OK);
    CHECK_STATUS(logtk_parser_match(q, other, strlen(other), &ev), LOGTK_OK);
    CHECK(ev.param_names != NULL && slice_is(ev.param_names[2], "IP"));
    logtk_parser *r = new_parser("drain");
    CHECK_STATUS(logtk_parser_add_named_mask(r, "ADDR", "\\d+\\.\\d+\\.\\d+\\.\\d+", NULL),
                 LOGTK_OK);
    CHECK_STATUS(logtk_parser_add_mask(r, "blk_\\d+", NULL), LOGTK_OK);
    CHECK_STATUS(logtk_parser_add_named_mask(r, "NUM", "\\b\\d+\\b", NULL), LOGTK_OK);
    void *snap2;
    size_t len2;
    CHECK_STATUS(logtk_parser_save(r, &snap2, &len2), LOGTK_OK);
    const void *snaps[2] = {snap, snap2};
    size_t lens[2] = {len, len2};
    logtk_parser *m = NULL;
    CHECK_STATUS(logtk_parser_merge(&m, 2, snaps, lens, NULL), LOGTK_ERR_STATE);
    logtk_parser_free(m);
    logtk_free(snap);
    logtk_free(snap2);
    logtk_parser_free(q);
    logtk_parser_free(r);
    logtk_parser_free(p);
}

/* A version 2 or 3 snapshot (varint version after the magic, an 8-byte
 * ltk_hash_bytes() at the end) made from a version 4 one, whose body is
 * the version 3 body (version 2: the same without mask names, so only for a
 * parser without masks).  Returns a malloc'ed buffer. */
static unsigned char *old_snapshot(const unsigned char *snap, size_t len, int version,
                                   size_t *old_len)
{
    size_t body = len - 20 - 4;
    unsigned char *old = malloc(8 + 1 + body + 8);
    memcpy(old, snap, 8);
    old[8] = (unsigned char)version;
    memcpy(old + 9, snap + 20, body);
    uint64_t sum = ltk_hash_bytes(old, 9 + body);
    for (int k = 0; k < 8; k++)
        old[9 + body + k] = (unsigned char)(sum >> (8 * k));
    *old_len = 9 + body + 8;
    return old;
}

TEST(old_snapshot_versions_still_load)
{
    /* snapshots of earlier builds (versions 2 and 3) load into the same state */
    for (int masked = 0; masked < 2; masked++) {
        logtk_parser *p = new_parser("drain");
        if (masked)
            CHECK_STATUS(logtk_parser_add_named_mask(p, "NUM", "\\d+", NULL), LOGTK_OK);
        CHECK_STATUS(logtk_parser_feed(p, "a 1 b", 5, NULL), LOGTK_OK);
        CHECK_STATUS(logtk_parser_feed(p, "a 2 c", 5, NULL), LOGTK_OK);
        void *snap;
        size_t len;
        CHECK_STATUS(logtk_parser_save(p, &snap, &len), LOGTK_OK);
        CHECK(len > 24 && ((const unsigned char *)snap)[8] == 4);
        size_t old_len;
        unsigned char *old = old_snapshot(snap, len, masked ? 3 : 2, &old_len);
        logtk_parser *q = new_parser("drain");
        CHECK_STATUS(logtk_parser_load(q, old, old_len), LOGTK_OK);
        CHECK(logtk_parser_template_count(q) == logtk_parser_template_count(p));
        void *again;
        size_t again_len;
        CHECK_STATUS(logtk_parser_save(q, &again, &again_len), LOGTK_OK);
        CHECK(again_len == len && memcmp(again, snap, len) == 0);
        /* damage in the old checksum is still caught */
        old[old_len - 1] ^= 1;
        CHECK_STATUS(logtk_parser_load(q, old, old_len), LOGTK_ERR_STATE);
        CHECK(strstr(logtk_parser_errmsg(q), "checksum") != NULL);
        free(old);
        logtk_free(again);
        logtk_free(snap);
        logtk_parser_free(q);
        logtk_parser_free(p);
    }
}

/*
 * On Loghub-2k logs (LOGTK_LOGHUB): after parsing, every line's match is a
 * template that matches it, and for nearly all lines its own template (by
 * text: an alias shows its target's text).  Lines differ where a line
 * matches several templates and the algorithm put it in a more general one
 * than the most specific (see logtk_parser_match()); the floors below are
 * the agreement measured on these logs, a little lower.
 */
static void agreement_on(const char *dir, const char *dataset, const char *algo,
                         double floor_share)
{
    const logtk_dataset *d = logtk_dataset_find(dataset);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/%s_2k.log", dir, dataset, dataset);
    logtk_reader *r = NULL;
    logtk_format *f = NULL;
    logtk_parser *p = new_parser(algo);
    CHECK_STATUS(logtk_reader_new(&r), LOGTK_OK);
    CHECK_STATUS(logtk_reader_open_path(r, path), LOGTK_OK);
    CHECK_STATUS(logtk_format_new(&f), LOGTK_OK);
    CHECK_STATUS(logtk_format_compile(f, logtk_dataset_format(d)), LOGTK_OK);
    CHECK_STATUS(logtk_dataset_configure(d, p), LOGTK_OK);
    char *text = NULL;
    size_t *ends = NULL, n = 0, used = 0;
    logtk_line line;
    logtk_record rec;
    while (logtk_reader_next(r, &line) == LOGTK_OK) {
        logtk_format_match(f, line.data, line.len, &rec);
        text = realloc(text, used + rec.content.len + 1);
        ends = realloc(ends, (n + 1) * sizeof *ends);
        CHECK(text != NULL && ends != NULL);
        memcpy(text + used, rec.content.ptr, rec.content.len);
        used += rec.content.len;
        ends[n++] = used;
        int rc = logtk_parser_feed(p, rec.content.ptr, rec.content.len, NULL);
        CHECK(rc == LOGTK_OK || rc == LOGTK_ERR_LIMIT);
    }
    CHECK_STATUS(logtk_parser_finish(p), LOGTK_OK);
    size_t matched = 0, same = 0;
    for (size_t i = 0; i < n; i++) {
        size_t start = i ? ends[i - 1] : 0, len = ends[i] - start;
        logtk_event ev;
        int rc = logtk_parser_match(p, text + start, len, &ev);
        if (rc != LOGTK_OK && rc != LOGTK_ERR_LIMIT)
            continue;
        matched += logtk_template_match(ev.template_text.ptr, ev.template_text.len,
                                        text + start, len, NULL, 0, NULL) == LOGTK_OK;
        logtk_slice own;
        CHECK_STATUS(logtk_parser_template(p, tid(p, i), &own, NULL), LOGTK_OK);
        same += own.len == ev.template_text.len &&
                memcmp(own.ptr, ev.template_text.ptr, own.len) == 0;
    }
    printf("match agreement %s %s: %zu of %zu lines matched, %zu their own template\n", algo,
           dataset, matched, n, same);
    CHECK(n == 2000 && matched == n);
    CHECK((double)same >= floor_share * (double)n);
    free(text);
    free(ends);
    logtk_parser_free(p);
    logtk_format_free(f);
    logtk_reader_free(r);
}

TEST(match_agrees_with_parsing_on_loghub)
{
    const char *dir = getenv("LOGTK_LOGHUB");
    if (dir == NULL || dir[0] == '\0') {
        printf("skipped: LOGTK_LOGHUB not set (match agreement on Loghub-2k)\n");
        return;
    }
    static const char *const datasets[] = {"HDFS", "Linux", "Mac", "OpenSSH"};
    for (size_t k = 0; k < sizeof datasets / sizeof datasets[0]; k++) {
        agreement_on(dir, datasets[k], "drain", 0.998);
        agreement_on(dir, datasets[k], "fuse", 0.998);
    }
    /* every algorithm on one log; logsig and shiso keep most general templates */
    for (size_t a = 0; logtk_parser_algorithm_name(a) != NULL; a++)
        agreement_on(dir, "HDFS", logtk_parser_algorithm_name(a), 0.70);
}

/* Templates made directly (make_template, as an algorithm would) pin the
   choice among several that match: the most fixed text wins, then the lowest id. */

static uint32_t match_id(logtk_parser *p, const char *line)
{
    logtk_event ev;
    int rc = logtk_parser_match(p, line, strlen(line), &ev);
    return rc == LOGTK_OK ? ev.template_id : 0;
}

TEST(match_picks_the_most_specific_then_the_lowest_id)
{
    logtk_parser *p = new_parser("iplom"); /* a batch parser: no structure of its own */
    uint32_t any = make_template(p, "<*>");
    uint32_t job = make_template(p, "job <*> done");
    uint32_t cleanup = make_template(p, "job cleanup done");
    uint32_t x_any = make_template(p, "x <*>");
    uint32_t any_y = make_template(p, "<*> y");
    CHECK(match_id(p, "job cleanup done") == cleanup);
    CHECK(match_id(p, "job 42 done") == job);
    CHECK(match_id(p, "job") == any);
    CHECK(match_id(p, "x y") == x_any); /* a tie: 2 fixed bytes each, the lower id */
    CHECK(match_id(p, "z y") == any_y);
    CHECK(match_id(p, "  job   7 done ") == job); /* blank runs match blank runs */
    /* a text change is seen: "job cleanup done" widened to "job cleanup <*>" */
    CHECK_STATUS(ltk_tmpl_set_wildcard(p, cleanup, 2), LOGTK_OK);
    CHECK(match_id(p, "job cleanup started") == cleanup);
    CHECK(match_id(p, "job cleanup done") == cleanup); /* 13 fixed bytes against job's 9 */
    CHECK_STATUS(ltk_tmpl_set_wildcard(p, cleanup, 0), LOGTK_OK); /* "<*> cleanup <*>" */
    CHECK(match_id(p, "job cleanup done") == job);
    CHECK(match_id(p, "the cleanup ran") == cleanup);
    logtk_parser_free(p);
}

/* The line that made a template must find it: a separator byte (0x1c..0x1f)
   is a blank to the tokenizer and the matcher, and so to the match index. */
TEST(match_finds_the_template_of_a_line_with_a_separator_byte)
{
    static const char *const lines[] = {"job\x1f" "7 started", "job\x1f" "8 started"};
    logtk_parser *p = new_parser("fuse");
    feed_all(p, lines, 2);
    for (size_t i = 0; i < 2; i++)
        CHECK(match_id(p, lines[i]) == tid(p, i));
    logtk_parser_free(p);
}
