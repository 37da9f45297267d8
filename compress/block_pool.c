/*
 * block_pool.c - ordered worker pool for block encoding, decoding and
 * search, and the archive read-ahead that feeds it.
 *
 * The jobs live in a ring indexed by sequence number: `collected` (oldest
 * job the caller has not taken back) <= `started` (next job a worker will
 * take) <= `submitted`.  Workers take jobs in submission order and mark
 * them done; the caller collects them strictly in order, so results come
 * back in input order whatever the thread count and timing.  Threads are
 * created once per pool, not per batch: blocks are a few MB, so a thread
 * per block would cost little, but a per-batch barrier (collect T blocks,
 * encode, write, repeat) leaves cores idle while the slowest block of each
 * batch finishes and while the caller reads and writes; the ring keeps
 * every worker busy as long as the caller keeps it filled.  A job submitted
 * as done (a damage report) keeps its place in the order; a worker passes
 * over it.
 *
 * One mutex guards the ring; two condition variables: workers wait for
 * work, the caller waits for the oldest job.  Blocks take milliseconds to
 * encode, so the lock is taken a few times per block and never contended
 * in a way that shows up in profiles.
 *
 * The read-ahead (used by the unpacker and by grep) reads raw blocks on the
 * caller's thread: header parsing, checksum and damage detection stay in
 * the reader (ltka_reader_next_raw), which is sequential anyway.  A payload
 * of a mapped file is used where it lies: the read-ahead holds a reference
 * to the reader's map, so a reader reopened (or freed) while workers still
 * run on its payloads does not unmap them.  Other sources (memory buffers
 * the caller may free, pipes read through a buffer) are copied.  Reader
 * reports (damage, fatal errors) travel as jobs submitted done, so they
 * come back at their place in the order with the reader's message.
 */
#include "config.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "archive_reader_impl.h"
#include "block_pool.h"

#define POOL_MAX_THREADS 64

typedef struct pool_slot {
    void *job;
    int done;
} pool_slot;

typedef struct pool_worker {
    ltka_pool *pool;
    void *state;
} pool_worker;

struct ltka_pool {
    pthread_mutex_t mu;
    pthread_cond_t work_cv; /* workers: a job was queued, or stop */
    pthread_cond_t done_cv; /* caller: a job was finished */
    ltka_pool_work work;
    pool_slot *ring;
    int capacity;
    uint64_t submitted, started, collected;
    int stop;
    int nthreads;
    pthread_t threads[POOL_MAX_THREADS];
    pool_worker workers[POOL_MAX_THREADS];
};

static void *worker_main(void *arg)
{
    pool_worker *wk = arg;
    ltka_pool *p = wk->pool;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && p->started == p->submitted)
            pthread_cond_wait(&p->work_cv, &p->mu);
        if (p->stop)
            break;
        pool_slot *s = &p->ring[p->started % (uint64_t)p->capacity];
        p->started++;
        if (s->done)
            continue; /* submitted done: nothing to do, it only keeps its place */
        pthread_mutex_unlock(&p->mu);
        p->work(wk->state, s->job);
        pthread_mutex_lock(&p->mu);
        s->done = 1;
        pthread_cond_signal(&p->done_cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

ltka_pool *ltka_pool_new(int nthreads, int capacity, ltka_pool_work work, void *const *states)
{
    if (nthreads < 1 || capacity < 1)
        return NULL;
    if (nthreads > POOL_MAX_THREADS)
        nthreads = POOL_MAX_THREADS;
    ltka_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->ring = calloc((size_t)capacity, sizeof *p->ring);
    if (!p->ring) {
        free(p);
        return NULL;
    }
    p->capacity = capacity;
    p->work = work;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work_cv, NULL);
    pthread_cond_init(&p->done_cv, NULL);
    for (int i = 0; i < nthreads; i++) {
        p->workers[p->nthreads].pool = p;
        p->workers[p->nthreads].state = states[i];
        if (pthread_create(&p->threads[p->nthreads], NULL, worker_main, &p->workers[p->nthreads]) != 0)
            break; /* fewer workers: slower, same output */
        p->nthreads++;
    }
    if (p->nthreads == 0) {
        ltka_pool_free(p);
        return NULL;
    }
    return p;
}

int ltka_pool_pending(const ltka_pool *p)
{
    /* submitted and collected change only in the caller's thread */
    return (int)(p->submitted - p->collected);
}

int ltka_pool_has_room(const ltka_pool *p)
{
    return ltka_pool_pending(p) < p->capacity;
}

static void submit(ltka_pool *p, void *job, int done)
{
    pthread_mutex_lock(&p->mu);
    pool_slot *s = &p->ring[p->submitted % (uint64_t)p->capacity];
    s->job = job;
    s->done = done;
    p->submitted++;
    if (!done)
        pthread_cond_signal(&p->work_cv);
    pthread_mutex_unlock(&p->mu);
}

void ltka_pool_submit(ltka_pool *p, void *job)
{
    submit(p, job, 0);
}

void ltka_pool_submit_done(ltka_pool *p, void *job)
{
    submit(p, job, 1);
}

void *ltka_pool_collect(ltka_pool *p, int wait)
{
    if (p->collected == p->submitted)
        return NULL;
    pool_slot *s = &p->ring[p->collected % (uint64_t)p->capacity];
    void *job = NULL;
    pthread_mutex_lock(&p->mu);
    while (wait && !s->done)
        pthread_cond_wait(&p->done_cv, &p->mu);
    if (s->done) {
        job = s->job;
        p->collected++;
        /*
         * A job submitted done can be collected before any worker passed
         * its slot; workers must not take it later, when the slot may hold
         * a new job: they start after it.
         */
        if (p->started < p->collected)
            p->started = p->collected;
    }
    pthread_mutex_unlock(&p->mu);
    return job;
}

void ltka_pool_drain(ltka_pool *p)
{
    pthread_mutex_lock(&p->mu);
    p->submitted = p->started; /* queued jobs: dropped before any worker takes them */
    for (uint64_t k = p->collected; k < p->started; k++)
        while (!p->ring[k % (uint64_t)p->capacity].done)
            pthread_cond_wait(&p->done_cv, &p->mu);
    p->collected = p->started;
    pthread_mutex_unlock(&p->mu);
}

void ltka_pool_free(ltka_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->work_cv);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->nthreads; i++)
        pthread_join(p->threads[i], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->work_cv);
    pthread_cond_destroy(&p->done_cv);
    free(p->ring);
    free(p);
}

/* ---------------------------------------------------------------- read-ahead */

struct ltka_readahead {
    ltka_pool *pool;
    unsigned char *jobs; /* njobs slots of job_size bytes, each starting with an ltka_read_job */
    size_t job_size;
    int njobs;
    uint64_t submitted;
    const logtk_archive_reader *reader; /* the reader being read ahead ... */
    uint64_t serial;                    /* ... its open ... */
    char name[256];                     /* ... and its name, for the jobs' messages */
    ltka_file_map *map;                 /* its file map while jobs may use it, or NULL */
    int ended;                          /* the reader gave its last answer ... */
    int end_rc;                         /* ... LOGTK_DONE or a fatal status */
};

static ltka_read_job *slot(ltka_readahead *ra, uint64_t k)
{
    return (ltka_read_job *)(ra->jobs + (size_t)(k % (uint64_t)ra->njobs) * ra->job_size);
}

ltka_readahead *ltka_readahead_new(int nthreads, int depth, size_t job_size, ltka_pool_work work,
                                   void *const *states)
{
    if (nthreads < 1 || nthreads > POOL_MAX_THREADS || depth < 1 || depth > 16 ||
        job_size < sizeof(ltka_read_job))
        return NULL;
    ltka_readahead *ra = calloc(1, sizeof *ra);
    if (!ra)
        return NULL;
    ra->njobs = depth * nthreads;
    /* slots at a multiple of the strictest alignment */
    ra->job_size = (job_size + _Alignof(max_align_t) - 1) / _Alignof(max_align_t) * _Alignof(max_align_t);
    ra->jobs = calloc((size_t)ra->njobs, ra->job_size);
    ra->pool = ra->jobs ? ltka_pool_new(nthreads, ra->njobs, work, states) : NULL;
    if (!ra->pool) {
        free(ra->jobs);
        free(ra);
        return NULL;
    }
    ra->end_rc = LOGTK_DONE;
    return ra;
}

/* Forgets the jobs of the earlier reader (waiting for running ones) and follows r. */
static void follow(ltka_readahead *ra, logtk_archive_reader *r)
{
    ltka_pool_drain(ra->pool);
    ltka_file_map_unref(ra->map);
    ra->map = ltka_reader_map_ref(r);
    ra->reader = r;
    ra->serial = r->serial;
    snprintf(ra->name, sizeof ra->name, "%s", r->name);
    ra->submitted = 0;
    ra->ended = 0;
    ra->end_rc = LOGTK_DONE;
}

/* Reads one block into the next slot and queues it; 0, or -1 when the reader has nothing more. */
static int read_one(ltka_readahead *ra, logtk_archive_reader *r, int flags)
{
    ltka_read_job *j = slot(ra, ra->submitted);
    ltka_raw_block raw;
    logtk_error_clear(&j->err);
    j->payload = NULL; /* until this block's is in place: a slot's old one must never be taken for it */
    j->line_hashes = NULL;
    int rc = ltka_reader_next_raw(r, &j->b, &raw);
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
        size_t whole = raw.len + (raw.line_hashes ? ltka_line_hashes_len(raw.nlines) : 0);
        if (ltka_file_map_holds(ra->map, raw.payload, whole)) {
            j->payload = raw.payload;
            j->line_hashes = raw.line_hashes;
        } else {
            logtk_strbuf_clear(&j->copy);
            if (logtk_strbuf_append(&j->copy, raw.payload, whole) == 0) {
                j->payload = (const uint8_t *)j->copy.data;
                j->line_hashes = raw.line_hashes ? j->payload + raw.len : NULL;
            } else { /* the block is consumed: reading cannot go on */
                rc = logtk_error_set(&j->err, LOGTK_ERR_NOMEM, "out of memory");
            }
        }
    } else {
        logtk_error_copy(&j->err, &r->err);
    }
    j->rc = rc;
    if (rc != LOGTK_OK && rc != LOGTK_ERR_ARCHIVE) {
        ra->ended = 1;
        ra->end_rc = rc;
    }
    if (rc == LOGTK_OK)
        ltka_pool_submit(ra->pool, j);
    else
        ltka_pool_submit_done(ra->pool, j); /* damage or a fatal error: delivered in its turn */
    ra->submitted++;
    return 0;
}

ltka_read_job *ltka_readahead_next(ltka_readahead *ra, logtk_archive_reader *r, int flags,
                                   int *end_rc)
{
    if (ra->reader != r || ra->serial != r->serial)
        follow(ra, r);
    while (!ra->ended && ltka_pool_has_room(ra->pool) && read_one(ra, r, flags) == 0)
        ;
    ltka_read_job *j = ltka_pool_collect(ra->pool, 1);
    if (!j) {
        /* everything delivered: the map is no longer needed */
        ltka_file_map_unref(ra->map);
        ra->map = NULL;
        *end_rc = ra->end_rc;
    }
    return j;
}

ltka_read_job *ltka_readahead_take(ltka_readahead *ra)
{
    return ltka_pool_collect(ra->pool, 1);
}

void ltka_readahead_stop(ltka_readahead *ra, void (*forget)(void *job))
{
    ltka_pool *p = ra->pool;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->work_cv);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->nthreads; i++)
        pthread_join(p->threads[i], NULL);
    p->nthreads = 0;
    /* the workers are gone: jobs none of them took come back unprocessed */
    for (uint64_t k = p->started; k < p->submitted; k++) {
        pool_slot *s = &p->ring[k % (uint64_t)p->capacity];
        if (!s->done) {
            ltka_read_job *j = s->job;
            j->rc = logtk_error_set(&j->err, LOGTK_ERR_NOMEM, "not processed");
            s->done = 1;
        }
    }
    p->started = p->submitted;
    for (uint64_t k = p->collected; k < p->submitted; k++) {
        ltka_read_job *j = p->ring[k % (uint64_t)p->capacity].job;
        if (forget && j->rc == LOGTK_OK && j->payload) {
            forget(j);
            j->rc = logtk_error_set(&j->err, LOGTK_ERR_NOMEM, "not processed");
        }
    }
}

void ltka_readahead_free(ltka_readahead *ra, void (*free_job)(void *job))
{
    if (!ra)
        return;
    ltka_pool_free(ra->pool);
    for (int k = 0; k < ra->njobs; k++) {
        ltka_read_job *j = slot(ra, (uint64_t)k);
        if (free_job)
            free_job(j);
        logtk_strbuf_free(&j->copy);
    }
    ltka_file_map_unref(ra->map);
    free(ra->jobs);
    free(ra);
}
