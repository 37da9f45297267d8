/*
 * block_readahead.h - reads an archive's blocks ahead for a worker pool
 * (block_readahead.c; internal).
 *
 * The unpacker and grep read an archive the same way (ltk_readahead):
 * blocks are read on the caller's thread, their payloads are used where
 * they lie in the reader's file map (kept mapped while workers use it) or
 * copied when the source is not a mapped file, and the reader's damage
 * reports keep their place in the order.
 */
#ifndef LTK_BLOCK_READAHEAD_H
#define LTK_BLOCK_READAHEAD_H

#include <stddef.h>
#include <stdint.h>

#include "block_pool.h"
#include "errmsg.h"
#include "logtk.h"
#include "strbuf.h"

/**
 * One block read ahead.  A caller's job type starts with this struct (so a
 * job pointer is also an ltk_read_job pointer) and adds its results.
 */
typedef struct ltk_read_job {
    logtk_archive_block b;  /* the block as the reader describes it */
    /*
     * LOGTK_OK when read intact: the work function runs and may set it to
     * its own status (with err).  Otherwise the reader's status (damage, or
     * the fatal error that ended reading) with its message in err; no work
     * runs on it.
     */
    int rc;
    ltk_errbuf err;
    const uint8_t *payload; /* checked payload: in the reader's file map or in `copy` */
    size_t len;
    uint32_t nlines, raw_bytes; /* from the block header */
    const uint8_t *line_hashes; /* checked line hashes, right after the payload (NULL: version 3) */
    const char *source;     /* the archive's name, for messages (stable while the job lives) */
    int flags;              /* the caller's word given to ltk_readahead_next when it was read */
    ltk_strbuf copy;      /* the payload when the source is not a mapped file */
} ltk_read_job;

typedef struct ltk_readahead ltk_readahead;

/**
 * A pool of nthreads workers over a ring of depth x nthreads jobs of
 * job_size bytes each (zeroed; job_size >= sizeof(ltk_read_job)).  A deeper
 * ring keeps workers busy when block costs vary (a slow oldest block holds
 * up the refill) at the price of the memory each job holds.
 * work(states[i], job) runs on worker i for each job read intact.  NULL
 * when no memory or no thread could be started: the caller then works
 * serially.
 */
ltk_readahead *ltk_readahead_new(int nthreads, int depth, size_t job_size, ltk_pool_work work,
                                   void *const *states);

/**
 * The next block of r, processed, in archive order.  Reads ahead (up to the
 * ring's size) while the workers are busy, then waits for the oldest job.
 * Another reader, or r reopened, starts afresh (jobs of the earlier one are
 * dropped).  Returns the job, valid until the next call, or NULL when r has
 * nothing more: *end_rc is then LOGTK_DONE, or the fatal status that ended
 * reading (that status was delivered in a job before).  flags is stored in
 * the jobs read by this call.
 */
ltk_read_job *ltk_readahead_next(ltk_readahead *ra, logtk_archive_reader *r, int flags,
                                   int *end_rc);

/**
 * The next job already read, processed, in archive order, without reading
 * any more blocks; NULL when none is pending.  (The unpacker winds the
 * read-ahead down with it after running out of memory, then reads on
 * serially.)
 */
ltk_read_job *ltk_readahead_take(ltk_readahead *ra);

/**
 * Stops and joins the workers (running jobs finish; their threads' memory
 * is given back).  Jobs no worker took, and the processed ones not yet
 * collected (forget, when not NULL, first frees what their work made), come
 * back from ltk_readahead_take with rc LOGTK_ERR_NOMEM and their payload,
 * for the caller to process again.  Only ltk_readahead_take and
 * ltk_readahead_free may follow.
 */
void ltk_readahead_stop(ltk_readahead *ra, void (*forget)(void *job));

/**
 * Stops the workers (running jobs finish), calls free_job (when not NULL)
 * on every job slot so that the caller frees what its job type adds,
 * releases the file map and frees the ring.  NULL is harmless.
 */
void ltk_readahead_free(ltk_readahead *ra, void (*free_job)(void *job));

#endif
