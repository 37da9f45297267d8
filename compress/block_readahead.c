/*
 * block_readahead.c - reads an archive's blocks ahead for a worker pool
 * (block_pool.c), for the unpacker and grep.
 *
 * The read-ahead reads raw blocks on the caller's thread: header parsing,
 * checksum and damage detection stay in the reader (ltk_reader_next_raw),
 * which is sequential anyway.  A payload
 * of a mapped file is used where it lies: the read-ahead holds a reference
 * to the reader's map, so a reader reopened (or freed) while workers still
 * run on its payloads does not unmap them.  Other sources (memory buffers
 * the caller may free, pipes read through a buffer) are copied.  Reader
 * reports (damage, fatal errors) travel as jobs submitted done, so they
 * come back at their place in the order with the reader's message.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "archive_reader_impl.h"
#include "block_pool.h"
#include "block_readahead.h"

struct ltk_readahead {
    ltk_pool *pool;
    unsigned char *jobs; /* njobs slots of job_size bytes, each starting with an ltk_read_job */
    size_t job_size;
    int njobs;
    uint64_t submitted;
    const logtk_archive_reader *reader; /* the reader being read ahead ... */
    uint64_t serial;                    /* ... its open ... */
    char name[256];                     /* ... and its name, for the jobs' messages */
    ltk_file_map *map;                 /* its file map while jobs may use it, or NULL */
    int ended;                          /* the reader gave its last answer ... */
    int end_rc;                         /* ... LOGTK_DONE or a fatal status */
};

static ltk_read_job *slot(ltk_readahead *ra, uint64_t k)
{
    return (ltk_read_job *)(ra->jobs + (size_t)(k % (uint64_t)ra->njobs) * ra->job_size);
}

ltk_readahead *ltk_readahead_new(int nthreads, int depth, size_t job_size, ltk_pool_work work,
                                   void *const *states)
{
    if (nthreads < 1 || nthreads > LTK_POOL_MAX_THREADS || depth < 1 || depth > 16 ||
        job_size < sizeof(ltk_read_job))
        return NULL;
    ltk_readahead *ra = calloc(1, sizeof *ra);
    if (!ra)
        return NULL;
    ra->njobs = depth * nthreads;
    /* slots at a multiple of the strictest alignment */
    ra->job_size = (job_size + _Alignof(max_align_t) - 1) / _Alignof(max_align_t) * _Alignof(max_align_t);
    ra->jobs = calloc((size_t)ra->njobs, ra->job_size);
    ra->pool = ra->jobs ? ltk_pool_new(nthreads, ra->njobs, work, states) : NULL;
    if (!ra->pool) {
        free(ra->jobs);
        free(ra);
        return NULL;
    }
    ra->end_rc = LOGTK_DONE;
    return ra;
}

/* Forgets the jobs of the earlier reader (waiting for running ones) and follows r. */
static void follow(ltk_readahead *ra, logtk_archive_reader *r)
{
    ltk_pool_drain(ra->pool);
    ltk_file_map_unref(ra->map);
    ra->map = ltk_reader_map_ref(r);
    ra->reader = r;
    ra->serial = r->serial;
    snprintf(ra->name, sizeof ra->name, "%s", r->name);
    ra->submitted = 0;
    ra->ended = 0;
    ra->end_rc = LOGTK_DONE;
}

/* Reads one block into the next slot and queues it; 0, or -1 when the reader has nothing more. */
static int read_one(ltk_readahead *ra, logtk_archive_reader *r, int flags)
{
    ltk_read_job *j = slot(ra, ra->submitted);
    ltk_raw_block raw;
    ltk_error_clear(&j->err);
    j->payload = NULL; /* until this block's is in place: a slot's old one must never be taken for it */
    j->line_hashes = NULL;
    int rc = ltk_reader_next_raw(r, &j->b, &raw);
    if (rc == LOGTK_DONE) {
        ra->ended = 1;
        return -1;
    }
    j->source = ra->name;
    j->flags = flags;
    if (rc == LOGTK_OK) {
        j->len = raw.len;
        j->nlines = raw.nlines;
        j->raw_bytes = raw.raw_bytes;
        /* the line hashes follow the payload: used or copied with it */
        size_t whole = raw.len + (raw.line_hashes ? ltk_line_hashes_len(raw.nlines) : 0);
        if (ltk_file_map_holds(ra->map, raw.payload, whole)) {
            j->payload = raw.payload;
            j->line_hashes = raw.line_hashes;
        } else {
            ltk_strbuf_clear(&j->copy);
            if (ltk_strbuf_append(&j->copy, raw.payload, whole) == 0) {
                j->payload = (const uint8_t *)j->copy.data;
                j->line_hashes = raw.line_hashes ? j->payload + raw.len : NULL;
            } else { /* the block is consumed: reading cannot go on */
                rc = ltk_error_set(&j->err, LOGTK_ERR_NOMEM, "out of memory");
            }
        }
    } else {
        ltk_error_copy(&j->err, &r->err);
    }
    j->rc = rc;
    if (rc != LOGTK_OK && rc != LOGTK_ERR_ARCHIVE) {
        ra->ended = 1;
        ra->end_rc = rc;
    }
    if (rc == LOGTK_OK)
        ltk_pool_submit(ra->pool, j);
    else
        ltk_pool_submit_done(ra->pool, j); /* damage or a fatal error: delivered in its turn */
    ra->submitted++;
    return 0;
}

ltk_read_job *ltk_readahead_next(ltk_readahead *ra, logtk_archive_reader *r, int flags,
                                   int *end_rc)
{
    if (ra->reader != r || ra->serial != r->serial)
        follow(ra, r);
    while (!ra->ended && ltk_pool_has_room(ra->pool) && read_one(ra, r, flags) == 0)
        ;
    ltk_read_job *j = ltk_pool_collect(ra->pool, 1);
    if (!j) {
        /* everything delivered: the map is no longer needed */
        ltk_file_map_unref(ra->map);
        ra->map = NULL;
        *end_rc = ra->end_rc;
    }
    return j;
}

ltk_read_job *ltk_readahead_take(ltk_readahead *ra)
{
    return ltk_pool_collect(ra->pool, 1);
}

static void mark_unprocessed(void *job, void *arg)
{
    (void)arg;
    ltk_read_job *j = job;
    j->rc = ltk_error_set(&j->err, LOGTK_ERR_NOMEM, "not processed");
}

typedef struct forget_fn {
    void (*forget)(void *job);
} forget_fn;

static void forget_processed(void *job, void *arg)
{
    const forget_fn *f = arg;
    ltk_read_job *j = job;
    if (f->forget && j->rc == LOGTK_OK && j->payload) {
        f->forget(j);
        j->rc = ltk_error_set(&j->err, LOGTK_ERR_NOMEM, "not processed");
    }
}

void ltk_readahead_stop(ltk_readahead *ra, void (*forget)(void *job))
{
    forget_fn f = {forget};
    ltk_pool_stop(ra->pool, mark_unprocessed, forget_processed, &f);
}

void ltk_readahead_free(ltk_readahead *ra, void (*free_job)(void *job))
{
    if (!ra)
        return;
    ltk_pool_free(ra->pool);
    for (int k = 0; k < ra->njobs; k++) {
        ltk_read_job *j = slot(ra, (uint64_t)k);
        if (free_job)
            free_job(j);
        ltk_strbuf_free(&j->copy);
    }
    ltk_file_map_unref(ra->map);
    free(ra->jobs);
    free(ra);
}
