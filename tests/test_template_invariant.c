/*
 * test_template_invariant.c - every parser's templates match their lines.
 *
 * The promise of logtk.h: a line's template, with each "<*>" standing for
 * any text and each run of blanks for any run of blanks, matches the line's
 * content, and the parameters are the line's own text at those "<*>", in
 * order, so that template and parameters rebuild the content.  Checked here
 * for logtk_template_match() itself, for the widening of templates whose
 * algorithm left out what a mask removed, and for every parser on every
 * Loghub log that the environment names ($LOGTK_LOGHUB: the 16 Loghub-2k
 * logs; $LOGTK_LOGHUB2: Loghub-2.0's 14 2k logs; $LOGTK_LOGHUB2_FULL:
 * full-size Loghub-2.0 sets), each with its dataset preset and again
 * without one (the whole raw line is the content and the parser has its
 * default parameters, as for a log of the user's own).  The rebuild
 * check below does not use the matcher: it substitutes the parameters and
 * compares with blank runs folded.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "logtk.h"
#include "test_harness.h"
#include "rebuild_check.h"

/* ------------------------------------------------------ matcher cases */

static void check_match(const char *t, const char *c, int want_ok, size_t want_n,
                        const char *const *want)
{
    logtk_slice params[16];
    size_t np = 0;
    int rc = logtk_template_match(t, strlen(t), c, strlen(c), params, 16, &np);
    CHECK(rc == (want_ok ? LOGTK_OK : LOGTK_ERR_NOT_FOUND));
    if (rc != (want_ok ? LOGTK_OK : LOGTK_ERR_NOT_FOUND))
        fprintf(stderr, "  template [%s] content [%s]: rc %d\n", t, c, rc);
    CHECK(np == want_n);
    if (!want_ok)
        return;
    for (size_t k = 0; k < want_n && k < np; k++)
        CHECK_BYTES(params[k].ptr, params[k].len, want[k]);
    CHECK(rebuilds(t, strlen(t), params, np, c, strlen(c)));
}

TEST(test_matcher)
{
    check_match("Received block <*> of size <*> from <*>",
                "Received block blk_-16 of size 67108864 from /10.250.19.102", 1, 3,
                (const char *const[]){"blk_-16", "67108864", "/10.250.19.102"});
    /* blank runs match blank runs; ends are ignored */
    check_match("a b <*>", "  a \t b   c d ", 1, 1, (const char *const[]){"c d"});
    /* a "<*>" may be empty, or hold blanks */
    check_match("x<*> y", "x y", 1, 1, (const char *const[]){""});
    check_match("x<*> y", "x 1 2 y", 1, 1, (const char *const[]){" 1 2"});
    check_match("<*>:<*>", "10.0.0.1:80", 1, 2, (const char *const[]){"10.0.0.1", "80"});
    /* the leftmost "<*>" takes the shortest text that lets the rest match */
    check_match("<*> close, <*>", "a close, b close, c", 1, 2,
                (const char *const[]){"a", "b close, c"});
    check_match("open <*> done", "open 1 done.", 0, 1, NULL);
    check_match("a b", "ab", 0, 0, NULL);
    check_match("a b", "a b c", 0, 0, NULL);
    check_match("", "", 1, 0, NULL);
    check_match("<*>", "", 1, 1, (const char *const[]){""});
    /* a standalone "<*>" between blanks cannot stand for nothing */
    check_match("a <*> b", "a b", 0, 1, NULL);
    /* logtk_template_rebuilds: the parameters must be the content's own text */
    static const char line[] = "a  1 b 22";
    logtk_slice good[2] = {{line + 3, 1}, {line + 7, 2}};
    CHECK_STATUS(logtk_template_rebuilds("a <*> b <*>", 11, line, 9, good, 2), LOGTK_OK);
    logtk_slice copy[2] = {{"1", 1}, {line + 7, 2}}; /* same bytes, not the line's */
    CHECK_STATUS(logtk_template_rebuilds("a <*> b <*>", 11, line, 9, copy, 2), LOGTK_ERR_NOT_FOUND);
    logtk_slice swapped[2] = {good[1], good[0]};
    CHECK_STATUS(logtk_template_rebuilds("a <*> b <*>", 11, line, 9, swapped, 2), LOGTK_ERR_NOT_FOUND);
    CHECK_STATUS(logtk_template_rebuilds("a <*> c <*>", 11, line, 9, good, 2), LOGTK_ERR_NOT_FOUND);
    CHECK_STATUS(logtk_template_rebuilds("a <*> b <*>", 11, line, 9, good, 1), LOGTK_ERR_NOT_FOUND);
    logtk_slice short_last[2] = {{line + 3, 1}, {line + 7, 1}}; /* "2" of "22": the rest is lost */
    CHECK_STATUS(logtk_template_rebuilds("a <*> b <*>", 11, line, 9, short_last, 2), LOGTK_ERR_NOT_FOUND);
    size_t np = 9;
    CHECK_STATUS(logtk_template_match(NULL, 1, "x", 1, NULL, 0, &np), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_template_match("<*> <*>", 7, "p q", 3, NULL, 0, &np), LOGTK_OK);
    CHECK(np == 2);
}

/* ---------------------------------------------- widening in the parser */

/* Template text of line i, or "" */
static const char *line_template(logtk_parser *p, uint64_t i, size_t *len)
{
    uint32_t id = 0;
    logtk_slice text = {"", 0};
    if (logtk_parser_assignment(p, i, &id) == LOGTK_OK)
        logtk_parser_template(p, id, &text, NULL);
    *len = text.len;
    return text.ptr;
}

static void check_widening(const char *algorithm)
{
    /* the mask deletes the parenthesised number: the algorithm never sees it */
    static const char *lines[] = {"job (12) done in 5 s", "job (7) done in 9 s",
                                  "job (300) done in 1 s", "job done in 2 s"};
    logtk_parser *p = NULL;
    CHECK_STATUS(logtk_parser_new(&p, algorithm), LOGTK_OK);
    if (!p)
        return;
    CHECK_STATUS(logtk_parser_add_mask(p, "\\(\\d+\\)", ""), LOGTK_OK);
    CHECK_STATUS(logtk_parser_add_mask(p, "\\b\\d+\\b", NULL), LOGTK_OK);
    for (size_t i = 0; i < 4; i++)
        CHECK_STATUS(logtk_parser_feed(p, lines[i], strlen(lines[i]), NULL), LOGTK_OK);
    CHECK_STATUS(logtk_parser_finish(p), LOGTK_OK);
    for (uint64_t i = 0; i < 4; i++) {
        size_t len;
        const char *t = line_template(p, i, &len);
        uint32_t id = 0;
        logtk_parser_assignment(p, i, &id);
        logtk_event ev;
        int rc = logtk_parser_extract(p, id, lines[i], strlen(lines[i]), &ev);
        CHECK(rc == LOGTK_OK && rebuilds(t, len, ev.params, ev.nparams, lines[i], strlen(lines[i])));
        if (rc != LOGTK_OK)
            fprintf(stderr, "  %s: line %d [%s] template [%.*s]\n", algorithm, (int)i, lines[i],
                    (int)len, t);
    }
    /* the lines that share the algorithm's template show "(<*>)" where the mask cut */
    size_t len;
    const char *t = line_template(p, 0, &len);
    if (strcmp(algorithm, "drain") == 0)
        CHECK_BYTES(t, len, "job <*>done in <*> s"); /* "(<*>) " of three lines, nothing in the fourth */
    logtk_parser_free(p);
}

/* ------------------------------------------------------ Loghub sweep */

typedef struct line_list {
    char *data;
    size_t len, cap;
    size_t *off; /* line k is [off[k], off[k+1]) */
    size_t n, offcap;
} line_list;

static int read_contents(const char *path, logtk_format *fmt, line_list *out)
{
    logtk_reader *r = NULL;
    if (logtk_reader_new(&r) != LOGTK_OK || logtk_reader_open_path(r, path) != LOGTK_OK) {
        logtk_reader_free(r);
        return -1;
    }
    out->len = out->n = 0;
    logtk_line line;
    int rc;
    while ((rc = logtk_reader_next(r, &line)) == LOGTK_OK) {
        logtk_record rec;
        logtk_format_match(fmt, line.data, line.len, &rec);
        if (out->len + rec.content.len > out->cap) {
            size_t cap = out->cap ? out->cap : 1 << 16;
            while (cap < out->len + rec.content.len)
                cap *= 2;
            out->data = realloc(out->data, cap);
            out->cap = cap;
        }
        if (out->n + 2 > out->offcap) {
            out->offcap = out->offcap ? out->offcap * 2 : 4096;
            out->off = realloc(out->off, out->offcap * sizeof *out->off);
        }
        if (!out->data || !out->off)
            break;
        memcpy(out->data + out->len, rec.content.ptr, rec.content.len);
        out->off[out->n++] = out->len;
        out->len += rec.content.len;
        out->off[out->n] = out->len;
    }
    logtk_reader_free(r);
    return rc == LOGTK_DONE ? 0 : -1;
}

/* Lines of one parser on one log that break the promise; -1 when it could
 * not run.  d: the dataset whose preset configures the parser, or NULL. */
static long violations(const char *algorithm, const logtk_dataset *d, const line_list *lines,
                       const char *log)
{
    logtk_parser *p = NULL;
    if (logtk_parser_new(&p, algorithm) != LOGTK_OK ||
        (d != NULL && logtk_dataset_configure(d, p) != LOGTK_OK)) {
        logtk_parser_free(p);
        return -1;
    }
    long bad = 0;
    for (size_t k = 0; k < lines->n; k++) {
        const char *c = lines->data + lines->off[k];
        size_t clen = lines->off[k + 1] - lines->off[k];
        logtk_event ev;
        int rc = logtk_parser_feed(p, c, clen, &ev);
        if (rc != LOGTK_OK && rc != LOGTK_ERR_LIMIT) {
            logtk_parser_free(p);
            return -1;
        }
        if (ev.template_id == 0)
            continue; /* a batch parser: assigned at finish */
        /* the parameters reported as the line is fed, under the template as it is then */
        logtk_slice text = {"", 0};
        logtk_slice *params = malloc((ev.nparams + 1) * sizeof *params);
        if (params && ev.nparams)
            memcpy(params, ev.params, ev.nparams * sizeof *params);
        int ok = params && logtk_parser_template(p, ev.template_id, &text, NULL) == LOGTK_OK &&
                 rebuilds(text.ptr, text.len, params, ev.nparams, c, clen);
        free(params);
        if (!ok && bad++ < 3)
            fprintf(stderr, "  %s %s line %zu (fed): template [%.*s] content [%.*s]\n", algorithm,
                    log, k + 1, (int)text.len, text.ptr, (int)clen, c);
    }
    if (logtk_parser_finish(p) != LOGTK_OK) {
        logtk_parser_free(p);
        return -1;
    }
    for (size_t k = 0; k < lines->n; k++) {
        const char *c = lines->data + lines->off[k];
        size_t clen = lines->off[k + 1] - lines->off[k];
        uint32_t id = 0;
        logtk_slice text = {"", 0};
        logtk_event ev;
        int ok = logtk_parser_assignment(p, k, &id) == LOGTK_OK &&
                 logtk_parser_template(p, id, &text, NULL) == LOGTK_OK &&
                 logtk_template_match(text.ptr, text.len, c, clen, NULL, 0, NULL) == LOGTK_OK &&
                 logtk_parser_extract(p, id, c, clen, &ev) == LOGTK_OK &&
                 rebuilds(text.ptr, text.len, ev.params, ev.nparams, c, clen) &&
                 logtk_template_rebuilds(text.ptr, text.len, c, clen, ev.params, ev.nparams) ==
                     LOGTK_OK;
        if (!ok && bad++ < 3)
            fprintf(stderr, "  %s %s line %zu: template [%.*s] content [%.*s]\n", algorithm, log,
                    k + 1, (int)text.len, text.ptr, (int)clen, c);
    }
    logtk_parser_free(p);
    return bad;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Nonzero when the two files hold the same bytes (Loghub-2.0's 2k logs are
 * Loghub-2k's, Mac's aside: swept once). */
static int same_bytes(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa != NULL && fb != NULL;
    while (same) {
        char x[4096], y[4096];
        size_t nx = fread(x, 1, sizeof x, fa), ny = fread(y, 1, sizeof y, fb);
        same = nx == ny && memcmp(x, y, nx) == 0;
        if (nx == 0)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

/* Every parser on one log, with the dataset's preset (its format and
 * parameters) when `preset`, else on the raw lines with default parameters:
 * returns the logs checked (0 or 1). */
static int sweep_log(const logtk_dataset *d, const char *log, line_list *lines, int preset)
{
    if (!exists(log))
        return 0;
    logtk_format *fmt = NULL; /* not compiled: the whole line is the content */
    if (logtk_format_new(&fmt) != LOGTK_OK ||
        (preset && logtk_format_compile(fmt, logtk_dataset_format(d)) != LOGTK_OK) ||
        read_contents(log, fmt, lines) != 0) {
        CHECK(!"could not read the log");
        fprintf(stderr, "  %s\n", log);
        logtk_format_free(fmt);
        return 0;
    }
    logtk_format_free(fmt);
    for (size_t a = 0; logtk_parser_algorithm_name(a); a++) {
        const char *algorithm = logtk_parser_algorithm_name(a);
        long bad = violations(algorithm, preset ? d : NULL, lines, log);
        CHECK(bad == 0);
        if (bad != 0)
            fprintf(stderr, "  %s on %s%s: %ld lines break the promise\n", algorithm, log,
                    preset ? "" : " (no preset)", bad);
    }
    return 1;
}

/* Every parser, the batch ones included. */
TEST(test_widening)
{
    for (size_t a = 0; logtk_parser_algorithm_name(a); a++)
        check_widening(logtk_parser_algorithm_name(a));
}

TEST(test_loghub)
{
    const char *hub = getenv("LOGTK_LOGHUB"), *hub2 = getenv("LOGTK_LOGHUB2"),
               *full = getenv("LOGTK_LOGHUB2_FULL");
    line_list lines = {0};
    char path[4096], path2k[4096];
    int logs = 0;
    for (size_t i = 0; logtk_dataset_at(i); i++) {
        const logtk_dataset *d = logtk_dataset_at(i);
        const char *name = logtk_dataset_name(d);
        for (int preset = 1; preset >= 0; preset--) {
            path2k[0] = '\0';
            if (hub && *hub) {
                snprintf(path2k, sizeof path2k, "%s/%s/%s_2k.log", hub, name, name);
                logs += sweep_log(d, path2k, &lines, preset);
            }
            if (hub2 && *hub2) {
                snprintf(path, sizeof path, "%s/2k_dataset/%s/%s_2k.log", hub2, name, name);
                if (!(path2k[0] && same_bytes(path, path2k))) /* (0 when one is missing) */
                    logs += sweep_log(d, path, &lines, preset);
            }
            if (full && *full) {
                snprintf(path, sizeof path, "%s/%s/%s_full.log", full, name, name);
                logs += sweep_log(d, path, &lines, preset);
            }
        }
    }
    free(lines.data);
    free(lines.off);
    if (logs == 0)
        printf("skipped: LOGTK_LOGHUB, LOGTK_LOGHUB2, LOGTK_LOGHUB2_FULL not set (Loghub sweep)\n");
    else
        printf("Loghub sweep: %d runs (each log with its preset and without), every parser\n",
               logs);
}

