/*
 * archive_unpacker.c - decodes an archive's blocks in parallel, delivers them in order.
 *
 * Blocks are independent, so decompression parallelises like compression:
 * the caller's thread reads raw blocks ahead (header parsing, checksum and
 * damage detection stay in the reader, ltka_reader_next_raw()), copies each
 * payload into a job and hands it to the same persistent worker pool the
 * writer uses (block_pool.c); workers decode with a decoder each, and the
 * caller takes the blocks back strictly in archive order.  Damaged regions
 * the reader reports travel through the pool as jobs that need no work, so
 * they come back at their place in the order, with the reader's message.
 * At most 2T blocks are read ahead, so memory stays at 2T x block size.
 * With one thread the unpacker simply calls logtk_archive_reader_next().
 *
 * The result is what logtk_archive_reader_next() returns, block for block:
 * same texts, same damage reports (a block that fails to decode is named
 * by its line range exactly as the reader names it), same end.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "archive_format.h"
#include "archive_reader_impl.h"
#include "block_pool.h"

#define UNPACK_MAX_THREADS 64

enum { JOB_DECODE, JOB_REPORT };

typedef struct unpack_job {
    int kind;
    int rc;
    logtk_archive_block b;
    logtk_strbuf payload;
    uint32_t nlines, raw_bytes;
    logtk_strbuf text;
    const char *source;    /* the reader's name, for messages */
    logtk_errbuf err;
    ltka_stream_sizes sizes;
} unpack_job;

struct logtk_archive_unpacker {
    logtk_errbuf err;
    int threads;
    ltka_decoder *decoders[UNPACK_MAX_THREADS];
    unpack_job *jobs; /* ring of 2T jobs, filled in submission order */
    int njobs;
    uint64_t submitted;
    ltka_pool *pool;
    const logtk_archive_reader *reader; /* the reader being read ahead */
    uint64_t serial;                    /* its open */
    int ended;                          /* the reader gave its last answer */
    int end_rc;                         /* that answer: LOGTK_DONE or a fatal error */
};

int logtk_archive_unpacker_new(logtk_archive_unpacker **out, int threads)
{
    *out = NULL;
    if (threads < 1 || threads > UNPACK_MAX_THREADS)
        return LOGTK_ERR_INVALID;
    logtk_archive_unpacker *u = calloc(1, sizeof *u);
    if (!u)
        return LOGTK_ERR_NOMEM;
    u->threads = threads;
    if (threads > 1) {
        u->njobs = 2 * threads;
        u->jobs = calloc((size_t)u->njobs, sizeof *u->jobs);
        int ok = u->jobs != NULL;
        for (int i = 0; ok && i < threads; i++)
            ok = (u->decoders[i] = ltka_decoder_new()) != NULL;
        if (!ok) {
            logtk_archive_unpacker_free(u);
            return LOGTK_ERR_NOMEM;
        }
    }
    *out = u;
    return LOGTK_OK;
}

/* Pool work function: state is the worker's decoder. */
static void decode_job(void *state, void *arg)
{
    unpack_job *j = arg;
    if (j->kind != JOB_DECODE)
        return;
    logtk_errbuf derr = {0};
    j->rc = ltka_decode_block(state, (const uint8_t *)j->payload.data, j->payload.len, j->nlines,
                              j->raw_bytes, &j->text, &j->sizes, &derr);
    if (j->rc == LOGTK_OK) {
        j->b.templates = ltka_decoder_template_count(state);
        j->b.text.ptr = j->text.data ? j->text.data : "";
        j->b.text.len = j->text.len;
        return;
    }
    /* as the reader reports an undecodable block */
    uint64_t first = j->b.first_line - 1, index = j->b.index;
    memset(&j->b, 0, sizeof j->b);
    j->b.index = index;
    j->b.first_line = first + 1;
    j->b.damaged = 1;
    j->b.nlines = j->nlines;
    j->rc = logtk_error_set(&j->err, LOGTK_ERR_ARCHIVE, "%s: block %llu (lines %llu-%llu) damaged: %s",
                            j->source, (unsigned long long)index + 1, (unsigned long long)first + 1,
                            (unsigned long long)(first + j->nlines), logtk_error_text(&derr));
}

/* Forgets the read-ahead (another reader, or the same one reopened). */
static void reset(logtk_archive_unpacker *u, const logtk_archive_reader *r)
{
    ltka_pool_free(u->pool);
    u->pool = NULL;
    u->submitted = 0;
    u->ended = 0;
    u->end_rc = LOGTK_DONE;
    u->reader = r;
    u->serial = r->serial;
}

/* Reads raw blocks ahead until the pool is full or the reader has nothing more. */
static void read_ahead(logtk_archive_unpacker *u, logtk_archive_reader *r)
{
    while (!u->ended && ltka_pool_has_room(u->pool)) {
        unpack_job *j = &u->jobs[u->submitted % (uint64_t)u->njobs];
        ltka_raw_block raw;
        logtk_error_clear(&j->err);
        int rc = ltka_reader_next_raw(r, &j->b, &raw);
        if (rc == LOGTK_DONE) {
            u->ended = 1;
            break;
        }
        j->rc = rc;
        j->source = r->name;
        if (rc == LOGTK_OK) {
            j->kind = JOB_DECODE;
            j->nlines = raw.nlines;
            j->raw_bytes = raw.raw_bytes;
            logtk_strbuf_clear(&j->payload);
            if (logtk_strbuf_append(&j->payload, raw.payload, raw.len) != 0) {
                /* the block is consumed: reading cannot go on */
                j->kind = JOB_REPORT;
                j->rc = logtk_error_set(&j->err, LOGTK_ERR_NOMEM, "out of memory");
                u->ended = 1;
                u->end_rc = LOGTK_ERR_NOMEM;
            }
        } else {
            /* damage (reading goes on) or a fatal error (reading ends): deliver it in order */
            j->kind = JOB_REPORT;
            logtk_error_copy(&j->err, &r->err);
            if (rc != LOGTK_ERR_ARCHIVE) {
                u->ended = 1;
                u->end_rc = rc;
            }
        }
        ltka_pool_submit(u->pool, j);
        u->submitted++;
    }
}

/* The serial path: the reader decodes. */
static int next_inline(logtk_archive_unpacker *u, logtk_archive_reader *r, logtk_archive_block *b)
{
    int rc = logtk_archive_reader_next(r, b);
    if (rc != LOGTK_OK && rc != LOGTK_DONE)
        logtk_error_copy(&u->err, &r->err);
    return rc;
}

int logtk_archive_unpacker_next(logtk_archive_unpacker *u, logtk_archive_reader *r,
                                logtk_archive_block *b)
{
    if (u->threads == 1)
        return next_inline(u, r, b);
    if (u->reader != r || u->serial != r->serial)
        reset(u, r);
    if (!u->pool) {
        if (u->ended)
            return u->end_rc;
        u->pool = ltka_pool_new(u->threads, u->njobs, decode_job, (void *const *)u->decoders);
        if (!u->pool) /* no thread could be started: decode here */
            return next_inline(u, r, b);
    }
    read_ahead(u, r);
    unpack_job *j = ltka_pool_collect(u->pool, 1);
    if (!j) {
        /* everything delivered: the workers can go */
        ltka_pool_free(u->pool);
        u->pool = NULL;
        return u->end_rc;
    }
    *b = j->b;
    if (j->rc != LOGTK_OK)
        logtk_error_copy(&u->err, &j->err);
    return j->rc;
}

const char *logtk_archive_unpacker_errmsg(const logtk_archive_unpacker *u)
{
    return u ? logtk_error_text(&u->err) : "out of memory";
}

void logtk_archive_unpacker_free(logtk_archive_unpacker *u)
{
    if (!u)
        return;
    ltka_pool_free(u->pool);
    for (int i = 0; i < u->njobs; i++) {
        logtk_strbuf_free(&u->jobs[i].payload);
        logtk_strbuf_free(&u->jobs[i].text);
    }
    free(u->jobs);
    for (int i = 0; i < UNPACK_MAX_THREADS; i++)
        ltka_decoder_free(u->decoders[i]);
    free(u);
}
