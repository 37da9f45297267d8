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
#ifndef LTK_BLOCK_POOL_H
#define LTK_BLOCK_POOL_H

#include <stddef.h>
#include <stdint.h>


/** Work function: worker `state` (one per thread, never shared) processes `job`. */
typedef void (*ltk_pool_work)(void *state, void *job);

typedef struct ltk_pool ltk_pool;

/**
 * Starts up to nthreads workers (worker i passes states[i] to work) with room
 * for `capacity` uncollected jobs.  Returns NULL when no memory or not even
 * one thread could be started (the caller then works inline).
 */
ltk_pool *ltk_pool_new(int nthreads, int capacity, ltk_pool_work work, void *const *states);

/** Jobs submitted and not yet collected. */
int ltk_pool_pending(const ltk_pool *p);

/** Room for one more job (pending < capacity). */
int ltk_pool_has_room(const ltk_pool *p);

/** Queues a job; the caller must have checked ltk_pool_has_room(). */
void ltk_pool_submit(ltk_pool *p, void *job);

/**
 * Queues a job that needs no work (a report to deliver in its turn): no
 * worker runs on it, ltk_pool_collect() returns it at its place in the
 * order.  The caller must have checked ltk_pool_has_room().
 */
void ltk_pool_submit_done(ltk_pool *p, void *job);

/**
 * The oldest uncollected job once it is processed, or NULL when none is
 * pending, or when it is not processed yet and wait is 0.  With wait != 0
 * blocks until it is.
 */
void *ltk_pool_collect(ltk_pool *p, int wait);

/**
 * Forgets every uncollected job: queued ones are dropped unprocessed,
 * running ones are waited for.  Afterwards no worker touches any job
 * submitted so far, and the pool is empty and ready for new jobs.
 */
void ltk_pool_drain(ltk_pool *p);

/**
 * Lets running jobs finish, drops queued ones, stops and joins the workers,
 * frees the pool.  NULL is harmless.
 */
void ltk_pool_free(ltk_pool *p);

/** Most worker threads of a pool. */
#define LTK_POOL_MAX_THREADS 64

/**
 * Stops and joins the workers (running jobs finish).  unstarted(job, arg)
 * runs on every job no worker took, which then counts as done; then
 * uncollected(job, arg) on every job not yet collected, in order.  Only
 * ltk_pool_collect and ltk_pool_free may follow.
 */
void ltk_pool_stop(ltk_pool *p, void (*unstarted)(void *job, void *arg),
                    void (*uncollected)(void *job, void *arg), void *arg);

#endif
