/*
 * block_pool.c - ordered worker pool for block encoding, decoding and
 * search (the archive read-ahead that feeds it is block_readahead.c).
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
 */
#include "config.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "block_pool.h"

typedef struct pool_slot {
    void *job;
    int done;
} pool_slot;

typedef struct pool_worker {
    ltk_pool *pool;
    void *state;
} pool_worker;

struct ltk_pool {
    pthread_mutex_t mu;
    pthread_cond_t work_cv; /* workers: a job was queued, or stop */
    pthread_cond_t done_cv; /* caller: a job was finished */
    ltk_pool_work work;
    pool_slot *ring;
    int capacity;
    uint64_t submitted, started, collected;
    int stop;
    int nthreads;
    pthread_t threads[LTK_POOL_MAX_THREADS];
    pool_worker workers[LTK_POOL_MAX_THREADS];
};

static void *worker_main(void *arg)
{
    pool_worker *wk = arg;
    ltk_pool *p = wk->pool;
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

ltk_pool *ltk_pool_new(int nthreads, int capacity, ltk_pool_work work, void *const *states)
{
    if (nthreads < 1 || capacity < 1)
        return NULL;
    if (nthreads > LTK_POOL_MAX_THREADS)
        nthreads = LTK_POOL_MAX_THREADS;
    ltk_pool *p = calloc(1, sizeof *p);
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
        ltk_pool_free(p);
        return NULL;
    }
    return p;
}

int ltk_pool_pending(const ltk_pool *p)
{
    /* submitted and collected change only in the caller's thread */
    return (int)(p->submitted - p->collected);
}

int ltk_pool_has_room(const ltk_pool *p)
{
    return ltk_pool_pending(p) < p->capacity;
}

static void submit(ltk_pool *p, void *job, int done)
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

void ltk_pool_submit(ltk_pool *p, void *job)
{
    submit(p, job, 0);
}

void ltk_pool_submit_done(ltk_pool *p, void *job)
{
    submit(p, job, 1);
}

void *ltk_pool_collect(ltk_pool *p, int wait)
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

void ltk_pool_drain(ltk_pool *p)
{
    pthread_mutex_lock(&p->mu);
    p->submitted = p->started; /* queued jobs: dropped before any worker takes them */
    for (uint64_t k = p->collected; k < p->started; k++)
        while (!p->ring[k % (uint64_t)p->capacity].done)
            pthread_cond_wait(&p->done_cv, &p->mu);
    p->collected = p->started;
    pthread_mutex_unlock(&p->mu);
}

void ltk_pool_free(ltk_pool *p)
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

void ltk_pool_stop(ltk_pool *p, void (*unstarted)(void *job, void *arg),
                    void (*uncollected)(void *job, void *arg), void *arg)
{
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
            unstarted(s->job, arg);
            s->done = 1;
        }
    }
    p->started = p->submitted;
    for (uint64_t k = p->collected; k < p->submitted; k++)
        uncollected(p->ring[k % (uint64_t)p->capacity].job, arg);
}
