/*
 * archive_unpacker.c - decodes an archive's blocks in parallel, delivers them in order.
 *
 * Blocks are independent, so decompression parallelises like compression:
 * the read-ahead of block_pool.c (shared with grep) reads raw blocks on the
 * caller's thread (header parsing, checksum and damage detection stay in
 * the reader), using payloads where they lie in a mapped file; workers
 * decode with a decoder each, and the caller takes the blocks back strictly
 * in archive order.  Damaged regions the reader reports keep their place in
 * the order, with the reader's message.  At most 2T blocks are read ahead,
 * so memory stays at 2T x block size.
 * With one thread the unpacker simply calls logtk_archive_reader_next().
 *
 * Running out of memory is not damage: a block whose decoding fails for
 * want of memory is decoded again on the caller's thread once the workers
 * are idle and their decoders' buffers freed; the read-ahead is then wound
 * down (the blocks already read are delivered, no more are read ahead) and
 * the rest is decoded serially, in the memory of one block.  Only when even
 * that fails is LOGTK_ERR_NOMEM returned, naming the block.
 *
 * The result is what logtk_archive_reader_next() returns, block for block:
 * same texts, same damage reports (a block that fails to decode is named
 * by its line range exactly as the reader names it), same end.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "archive_container.h"
#include "block_decode.h"
#include "block_layout.h"
#include "archive_reader_impl.h"
#include "block_pool.h"
#include "block_readahead.h"

#define UNPACK_MAX_THREADS 64
/*
 * Blocks read ahead per thread.  Each holds its decoded text (up to the
 * block size), so memory is UNPACK_DEPTH x T x block size.  A third block
 * per thread cut the time the workers waited for work (instrumented build,
 * decompress -T 2, 2M-line scale-up, median of 5) from ~33 to ~19 ms in a
 * run of ~500 ms: not worth 8 MB more per thread.
 */
#define UNPACK_DEPTH 2

typedef struct unpack_job {
    ltk_read_job in; /* first: the block as read */
    ltk_strbuf text;
    ltk_stream_sizes sizes;
} unpack_job;

struct logtk_archive_unpacker {
    ltk_errbuf err;
    int threads;
    ltk_decoder *decoders[UNPACK_MAX_THREADS];
    ltk_readahead *ra; /* NULL: not started yet, or no thread could be */
    int serial;         /* ran out of memory: no more read-ahead, decode in the caller's thread */
    ltk_strbuf retry_text; /* a block decoded again after running out of memory */
    unpack_job *last;        /* serial: the job delivered last, whose text goes at the next call */
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
        for (int i = 0; i < threads; i++) {
            if ((u->decoders[i] = ltk_decoder_new()) == NULL) {
                logtk_archive_unpacker_free(u);
                return LOGTK_ERR_NOMEM;
            }
        }
    }
    *out = u;
    return LOGTK_OK;
}

/* Read-ahead work function: state is the worker's decoder. */
static void decode_job(void *state, void *arg)
{
    unpack_job *j = arg;
    ltk_read_job *in = &j->in;
    ltk_errbuf derr = {0};
    in->rc = ltk_decode_block(state, in->payload, in->len, in->nlines, in->raw_bytes,
                              &j->text, &j->sizes, &derr);
    if (in->rc == LOGTK_ERR_NOMEM)
        return; /* not damage: the caller decodes it again (retry_job) */
    if (in->rc == LOGTK_OK)
        in->rc = ltk_check_content(in->line_hashes, j->text.data, j->text.len, in->nlines, &derr);
    if (in->rc == LOGTK_OK) {
        in->b.templates = ltk_decoder_template_count(state);
        in->b.text.ptr = j->text.data ? j->text.data : "";
        in->b.text.len = j->text.len;
        return;
    }
    /* as the reader reports an undecodable block */
    uint64_t first = in->b.first_line - 1, index = in->b.index;
    memset(&in->b, 0, sizeof in->b);
    in->b.index = index;
    in->b.first_line = first + 1;
    in->b.damaged = 1;
    in->b.nlines = in->nlines;
    in->rc = ltk_error_set(&in->err, LOGTK_ERR_ARCHIVE, "%s: block %llu (lines %llu-%llu) damaged: %s",
                             in->source, (unsigned long long)index + 1, (unsigned long long)first + 1,
                             (unsigned long long)(first + in->nlines), ltk_error_text(&derr));
}


static void free_job(void *arg)
{
    unpack_job *j = arg;
    ltk_strbuf_free(&j->text);
}

/* The serial path: the reader decodes. */
static int next_inline(logtk_archive_unpacker *u, logtk_archive_reader *r, logtk_archive_block *b)
{
    int rc = logtk_archive_reader_next(r, b);
    if (rc != LOGTK_OK && rc != LOGTK_DONE)
        ltk_error_copy(&u->err, &r->err);
    return rc;
}

/*
 * A job whose decoding ran out of memory, or that no worker took before
 * they were stopped (its payload is still read, in the map or in its
 * copy): decode it here with the reader's decoder.
 */
static int retry_job(logtk_archive_unpacker *u, logtk_archive_reader *r, ltk_read_job *j,
                     logtk_archive_block *b)
{
    ltk_errbuf derr = {0};
    ltk_strbuf_clear(&u->retry_text);
    int rc = ltk_decode_block(r->dec, j->payload, j->len, j->nlines, j->raw_bytes, &u->retry_text, NULL,
                               &derr);
    if (rc == LOGTK_OK)
        rc = ltk_check_content(j->line_hashes, u->retry_text.data, u->retry_text.len, j->nlines, &derr);
    *b = j->b;
    if (rc == LOGTK_ERR_NOMEM)
        return ltk_error_set(&u->err, LOGTK_ERR_NOMEM,
                               "%s: out of memory decoding block %llu (lines %llu-%llu)", j->source,
                               (unsigned long long)j->b.index + 1, (unsigned long long)j->b.first_line,
                               (unsigned long long)(j->b.first_line + j->nlines - 1));
    if (rc != LOGTK_OK) {
        memset(b, 0, sizeof *b);
        b->index = j->b.index;
        b->first_line = j->b.first_line;
        b->damaged = 1;
        b->nlines = j->nlines;
        return ltk_error_set(&u->err, LOGTK_ERR_ARCHIVE, "%s: block %llu (lines %llu-%llu) damaged: %s",
                               j->source, (unsigned long long)b->index + 1,
                               (unsigned long long)b->first_line,
                               (unsigned long long)(b->first_line + j->nlines - 1), ltk_error_text(&derr));
    }
    b->templates = ltk_decoder_template_count(r->dec);
    b->text.ptr = u->retry_text.data ? u->retry_text.data : "";
    b->text.len = u->retry_text.len;
    return LOGTK_OK;
}

int logtk_archive_unpacker_next(logtk_archive_unpacker *u, logtk_archive_reader *r,
                                logtk_archive_block *b)
{
    if (u->threads == 1)
        return next_inline(u, r, b);
    if (u->serial) {
        /* wound down after running out of memory: deliver what was read, then go on serially */
        if (u->last)
            ltk_strbuf_free(&u->last->text);
        ltk_read_job *j = u->ra ? ltk_readahead_take(u->ra) : NULL;
        u->last = (unpack_job *)j;
        if (!j) {
            if (u->ra) {
                ltk_readahead_free(u->ra, free_job);
                u->ra = NULL;
                ltk_strbuf_free(&u->retry_text);
            }
            return next_inline(u, r, b);
        }
        if (j->rc == LOGTK_ERR_NOMEM && j->payload)
            return retry_job(u, r, j, b);
        *b = j->b;
        if (j->rc != LOGTK_OK)
            ltk_error_copy(&u->err, &j->err);
        return j->rc;
    }
    if (!u->ra) {
        u->ra = ltk_readahead_new(u->threads, UNPACK_DEPTH, sizeof(unpack_job), decode_job,
                                   (void *const *)u->decoders);
        if (!u->ra) /* no thread could be started: decode here */
            return next_inline(u, r, b);
    }
    int end_rc;
    ltk_read_job *j = ltk_readahead_next(u->ra, r, 0, &end_rc);
    if (!j)
        return end_rc;
    if (j->rc == LOGTK_ERR_NOMEM && j->payload) {
        /* fewer threads: the workers' stacks and buffers go, the rest is decoded here */
        u->serial = 1;
        ltk_readahead_stop(u->ra, free_job); /* decoded texts go too: decoded again in turn */
        for (int i = 0; i < u->threads; i++)
            ltk_decoder_trim(u->decoders[i]);
        u->last = (unpack_job *)j;
        return retry_job(u, r, j, b);
    }
    *b = j->b;
    if (j->rc != LOGTK_OK)
        ltk_error_copy(&u->err, &j->err);
    return j->rc;
}

const char *logtk_archive_unpacker_errmsg(const logtk_archive_unpacker *u)
{
    return u ? ltk_error_text(&u->err) : "out of memory";
}

void logtk_archive_unpacker_free(logtk_archive_unpacker *u)
{
    if (!u)
        return;
    ltk_readahead_free(u->ra, free_job);
    for (int i = 0; i < UNPACK_MAX_THREADS; i++)
        ltk_decoder_free(u->decoders[i]);
    ltk_strbuf_free(&u->retry_text);
    free(u);
}
