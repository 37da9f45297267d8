/*
 * shipper_threads.c - the shipper with one parser per thread: lines from
 * standard input as JSON Lines on standard output, the parsing spread over
 * threads, and the output byte-identical for every number of threads.
 *
 *     shipper_threads [--threads N] [--shard-lines K] [--dataset NAME | --format FORMAT]
 *                     [--parser NAME]
 *
 * How the template ids agree across threads.  A parser handle belongs to one
 * thread, and parsers that learned different lines number their templates
 * differently, so the work runs in two rounds:
 *   1. learn: the input is cut into shards of K lines (K fixed by the
 *      option, never by the thread count); each thread takes shards in turn
 *      and parses each with a fresh parser, then saves its state
 *      (logtk_parser_save).
 *   2. relabel: logtk_parser_merge() unites the shard states by template
 *      text and folds them in the order of their content keys, which does
 *      not depend on the order of the snapshots, so the merged parser is the
 *      same whichever thread learned which shard.  Each thread loads the
 *      merged state into its own parser and classifies its shards' lines
 *      with logtk_parser_match(), which learns nothing, so every thread
 *      gives a line the same id, text and parameters.
 * Rows are collected per shard in a memory sink and written in shard order.
 * The run with --threads 1 is the serial run: the same shards, the same
 * merge, the same rows.  Rows name the merged templates (their final text,
 * like `logtk parse` in batch mode), not the text at the time a line was
 * first seen.  A line that no merged template matches (not expected: merged
 * templates cover their shards' lines) is reported and makes the exit status 1.
 *
 * Build against an installed liblogtk:
 *     cc shipper_threads.c $(pkg-config --cflags --libs logtk) -lpthread -o shipper_threads
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <logtk.h>

typedef struct shard {
    size_t first, count;  /* lines [first, first + count) */
    void *state;          /* round 1: the shard parser's snapshot */
    size_t state_len;
    char *rows;           /* round 2: the shard's JSON Lines */
    size_t rows_len;
    int failed;
    char error[256];
} shard;

typedef struct job {
    const char *algorithm;
    const logtk_dataset *preset;
    const char *format_spec;
    const char *text;        /* every line, without terminators, back to back */
    const size_t *ends;      /* line i is text[ends[i-1] .. ends[i]) */
    shard *shards;
    size_t nshards;
    const void *merged;      /* round 2: the merged state */
    size_t merged_len;
    int round;               /* 1 learn, 2 relabel */
    pthread_mutex_t lock;
    size_t next_shard;
    unsigned long unmatched;
} job;

static logtk_slice line_at(const job *j, size_t i)
{
    size_t start = i ? j->ends[i - 1] : 0;
    logtk_slice s = {j->text + start, j->ends[i] - start};
    return s;
}

static void fail(shard *sh, const char *what, const char *msg)
{
    sh->failed = 1;
    snprintf(sh->error, sizeof sh->error, "%s: %s", what, msg);
}

static int new_parser(const job *j, logtk_parser **p)
{
    if (logtk_parser_new(p, j->algorithm) != LOGTK_OK)
        return -1;
    return j->preset && logtk_dataset_configure(j->preset, *p) != LOGTK_OK ? -1 : 0;
}

/* Round 1 on one shard: a fresh parser learns the shard, its state is kept. */
static void learn(const job *j, shard *sh, logtk_format *format)
{
    logtk_parser *p = NULL;
    if (new_parser(j, &p) != 0) {
        fail(sh, "parser", p ? logtk_parser_errmsg(p) : "unknown parser");
        logtk_parser_free(p);
        return;
    }
    logtk_record rec;
    for (size_t i = sh->first; i < sh->first + sh->count && !sh->failed; i++) {
        logtk_slice line = line_at(j, i);
        logtk_format_match(format, line.ptr, line.len, &rec);
        int rc = logtk_parser_feed(p, rec.content.ptr, rec.content.len, NULL);
        if (rc != LOGTK_OK && rc != LOGTK_ERR_LIMIT)
            fail(sh, "feed", logtk_parser_errmsg(p));
    }
    if (!sh->failed && (logtk_parser_finish(p) != LOGTK_OK ||
                        logtk_parser_save(p, &sh->state, &sh->state_len) != LOGTK_OK))
        fail(sh, "save", logtk_parser_errmsg(p));
    logtk_parser_free(p);
}

/* Round 2 on one shard: its lines classified against the merged templates. */
static void relabel(job *j, shard *sh, logtk_parser *merged, logtk_format *format)
{
    logtk_sink *sink = NULL;
    if (logtk_sink_new_memory(&sink, "jsonl", format) != LOGTK_OK) {
        fail(sh, "sink", sink ? logtk_sink_errmsg(sink) : "out of memory");
        logtk_sink_free(sink);
        return;
    }
    logtk_record rec;
    logtk_event ev;
    for (size_t i = sh->first; i < sh->first + sh->count && !sh->failed; i++) {
        logtk_slice line = line_at(j, i);
        logtk_format_match(format, line.ptr, line.len, &rec);
        int rc = logtk_parser_match(merged, rec.content.ptr, rec.content.len, &ev);
        if (rc == LOGTK_ERR_NOT_FOUND) {
            pthread_mutex_lock(&j->lock);
            j->unmatched++;
            pthread_mutex_unlock(&j->lock);
            fprintf(stderr, "shipper_threads: line %zu matches no merged template\n", i + 1);
        } else if (rc != LOGTK_OK && rc != LOGTK_ERR_LIMIT) {
            fail(sh, "match", logtk_parser_errmsg(merged));
            break;
        }
        logtk_row row = {i + 1, &rec, ev.template_id, ev.template_text, ev.nparams, ev.params};
        if (logtk_sink_write(sink, &row) != LOGTK_OK)
            fail(sh, "sink", logtk_sink_errmsg(sink));
    }
    logtk_slice bytes;
    if (!sh->failed && logtk_sink_memory_take(sink, &bytes) == LOGTK_OK) {
        sh->rows = malloc(bytes.len + 1);
        if (sh->rows == NULL) {
            fail(sh, "rows", "out of memory");
        } else {
            memcpy(sh->rows, bytes.ptr, bytes.len);
            sh->rows_len = bytes.len;
        }
    }
    logtk_sink_free(sink);
}

static void *worker(void *arg)
{
    job *j = arg;
    logtk_format *format = NULL; /* one format and parser per thread */
    logtk_parser *merged = NULL;
    int ok = logtk_format_new(&format) == LOGTK_OK &&
             (j->format_spec == NULL || logtk_format_compile(format, j->format_spec) == LOGTK_OK);
    if (ok && j->round == 2)
        ok = new_parser(j, &merged) == 0 &&
             logtk_parser_load(merged, j->merged, j->merged_len) == LOGTK_OK;
    for (;;) {
        pthread_mutex_lock(&j->lock);
        size_t k = j->next_shard++;
        pthread_mutex_unlock(&j->lock);
        if (k >= j->nshards)
            break;
        if (!ok)
            fail(&j->shards[k], "thread set-up", merged ? logtk_parser_errmsg(merged) : "failed");
        else if (j->round == 1)
            learn(j, &j->shards[k], format);
        else
            relabel(j, &j->shards[k], merged, format);
    }
    logtk_parser_free(merged);
    logtk_format_free(format);
    return NULL;
}

/* Runs one round over all shards on n threads; returns 0 when no shard failed. */
static int run_round(job *j, int round, int nthreads)
{
    pthread_t tid[64];
    j->round = round;
    j->next_shard = 0;
    int started = 0;
    for (; started < nthreads; started++)
        if (pthread_create(&tid[started], NULL, worker, j) != 0)
            break;
    if (started == 0)
        worker(j);
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    for (size_t k = 0; k < j->nshards; k++)
        if (j->shards[k].failed) {
            fprintf(stderr, "shipper_threads: shard %zu: %s\n", k + 1, j->shards[k].error);
            return -1;
        }
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: shipper_threads [--threads N] [--shard-lines K] "
                    "[--dataset NAME | --format FORMAT] [--parser NAME]\n");
    return 2;
}

int main(int argc, char **argv)
{
    job j;
    memset(&j, 0, sizeof j);
    long nthreads = 4, shard_lines = 4096;
    const char *dataset = NULL;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc)
            return usage();
        if (strcmp(argv[i], "--threads") == 0)
            nthreads = strtol(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--shard-lines") == 0)
            shard_lines = strtol(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--dataset") == 0)
            dataset = argv[++i];
        else if (strcmp(argv[i], "--format") == 0)
            j.format_spec = argv[++i];
        else if (strcmp(argv[i], "--parser") == 0)
            j.algorithm = argv[++i];
        else
            return usage();
    }
    if (nthreads < 1 || nthreads > 64 || shard_lines < 1)
        return usage();
    j.preset = dataset ? logtk_dataset_find(dataset) : NULL;
    if (dataset && j.preset == NULL) {
        fprintf(stderr, "shipper_threads: unknown dataset %s\n", dataset);
        return 2;
    }
    if (j.preset && j.format_spec == NULL)
        j.format_spec = logtk_dataset_format(j.preset);

    /* the whole input in memory: the relabel round needs every line again */
    logtk_reader *reader = NULL;
    char *text = NULL;
    size_t *ends = NULL, nlines = 0, used = 0, text_cap = 0, ends_cap = 0;
    logtk_line line;
    int rc;
    if (logtk_reader_new(&reader) != LOGTK_OK || logtk_reader_open_path(reader, "-") != LOGTK_OK)
        return 1;
    while ((rc = logtk_reader_next(reader, &line)) == LOGTK_OK) {
        if (used + line.len > text_cap) {
            text_cap = (used + line.len) * 2 + 4096;
            if ((text = realloc(text, text_cap)) == NULL)
                return 1;
        }
        if (nlines == ends_cap) {
            ends_cap = ends_cap * 2 + 1024;
            if ((ends = realloc(ends, ends_cap * sizeof *ends)) == NULL)
                return 1;
        }
        memcpy(text + used, line.data, line.len);
        used += line.len;
        ends[nlines++] = used;
    }
    if (rc != LOGTK_DONE) {
        fprintf(stderr, "shipper_threads: %s\n", logtk_reader_errmsg(reader));
        return 1;
    }
    logtk_reader_free(reader);
    if (nlines == 0)
        return 0;
    j.text = text;
    j.ends = ends;
    j.nshards = (nlines + (size_t)shard_lines - 1) / (size_t)shard_lines;
    j.shards = calloc(j.nshards, sizeof *j.shards);
    if (j.shards == NULL)
        return 1;
    for (size_t k = 0; k < j.nshards; k++) {
        j.shards[k].first = k * (size_t)shard_lines;
        j.shards[k].count = nlines - j.shards[k].first < (size_t)shard_lines
                                ? nlines - j.shards[k].first
                                : (size_t)shard_lines;
    }
    pthread_mutex_init(&j.lock, NULL);
    int status = 1;
    if (run_round(&j, 1, (int)nthreads) != 0)
        goto out;

    const void **snaps = malloc(j.nshards * sizeof *snaps);
    size_t *lens = malloc(j.nshards * sizeof *lens);
    logtk_parser *merged = NULL;
    void *merged_state = NULL;
    if (snaps == NULL || lens == NULL)
        goto out;
    for (size_t k = 0; k < j.nshards; k++) {
        snaps[k] = j.shards[k].state;
        lens[k] = j.shards[k].state_len;
    }
    rc = logtk_parser_merge(&merged, j.nshards, snaps, lens, NULL);
    if (rc == LOGTK_OK)
        rc = logtk_parser_save(merged, &merged_state, &j.merged_len);
    if (rc != LOGTK_OK)
        fprintf(stderr, "shipper_threads: merge: %s\n", logtk_parser_errmsg(merged));
    logtk_parser_free(merged);
    free(snaps);
    free(lens);
    if (rc != LOGTK_OK)
        goto out;
    j.merged = merged_state;
    if (run_round(&j, 2, (int)nthreads) == 0) {
        status = j.unmatched ? 1 : 0;
        for (size_t k = 0; k < j.nshards; k++)
            if (fwrite(j.shards[k].rows, 1, j.shards[k].rows_len, stdout) !=
                j.shards[k].rows_len)
                status = 1;
        if (fflush(stdout) != 0)
            status = 1;
    }
    logtk_free(merged_state);
out:
    for (size_t k = 0; k < j.nshards; k++) {
        logtk_free(j.shards[k].state);
        free(j.shards[k].rows);
    }
    free(j.shards);
    free(text);
    free(ends);
    pthread_mutex_destroy(&j.lock);
    return status;
}
