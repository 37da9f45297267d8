/*
 * block_pool.h - a persistent pool of worker threads that process jobs and
 * hand them back in submission order (block_pool.c; internal).
 *
 * The archive writer (encode blocks), the archive unpacker (decode blocks)
 * and grep (search blocks) all run the same pipeline: one thread produces
 * jobs in input order, T workers process them in parallel, and the same
 * thread consumes the results in input order, so the output does not depend
 * on T.  The pool holds at most `capacity` uncollected jobs, which bounds
 * memory by capacity x block size.  Jobs are the caller's memory; the pool
 * only passes pointers.  One producer/consumer thread per pool.
 */
#ifndef LOGTK_BLOCK_POOL_H
#define LOGTK_BLOCK_POOL_H

#include <stddef.h>
#include <stdint.h>


/** Work function: worker `state` (one per thread, never shared) processes `job`. */
typedef void (*ltka_pool_work)(void *state, void *job);

typedef struct ltka_pool ltka_pool;

/**
 * Starts up to nthreads workers (worker i passes states[i] to work) with room
 * for `capacity` uncollected jobs.  Returns NULL when no memory or not even
 * one thread could be started (the caller then works inline).
 */
ltka_pool *ltka_pool_new(int nthreads, int capacity, ltka_pool_work work, void *const *states);

/** Jobs submitted and not yet collected. */
int ltka_pool_pending(const ltka_pool *p);

/** Room for one more job (pending < capacity). */
int ltka_pool_has_room(const ltka_pool *p);

/** Queues a job; the caller must have checked ltka_pool_has_room(). */
void ltka_pool_submit(ltka_pool *p, void *job);

/**
 * Queues a job that needs no work (a report to deliver in its turn): no
 * worker runs on it, ltka_pool_collect() returns it at its place in the
 * order.  The caller must have checked ltka_pool_has_room().
 */
void ltka_pool_submit_done(ltka_pool *p, void *job);

/**
 * The oldest uncollected job once it is processed, or NULL when none is
 * pending, or when it is not processed yet and wait is 0.  With wait != 0
 * blocks until it is.
 */
void *ltka_pool_collect(ltka_pool *p, int wait);

/**
 * Forgets every uncollected job: queued ones are dropped unprocessed,
 * running ones are waited for.  Afterwards no worker touches any job
 * submitted so far, and the pool is empty and ready for new jobs.
 */
void ltka_pool_drain(ltka_pool *p);

/**
 * Lets running jobs finish, drops queued ones, stops and joins the workers,
 * frees the pool.  NULL is harmless.
 */
void ltka_pool_free(ltka_pool *p);

/** Most worker threads of a pool. */
#define LTKA_POOL_MAX_THREADS 64

/**
 * Stops and joins the workers (running jobs finish).  unstarted(job, arg)
 * runs on every job no worker took, which then counts as done; then
 * uncollected(job, arg) on every job not yet collected, in order.  Only
 * ltka_pool_collect and ltka_pool_free may follow.
 */
void ltka_pool_stop(ltka_pool *p, void (*unstarted)(void *job, void *arg),
                    void (*uncollected)(void *job, void *arg), void *arg);

#endif
