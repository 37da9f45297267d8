/*
 * sink_writer.c - the thread that writes a file sink's full blocks
 * (see sink_writer.h for why).
 *
 * A two-slot hand-off under one mutex: `busy` says the writer owns `block`.
 * The caller swaps its filled buffer with the writer's emptied one, so the
 * bytes are never copied on our side.  A failed write is remembered and
 * reported at the next hand-off or at stop, which is when stdio's own
 * buffering reported it before too (at a later fwrite or at the flush).
 */
#include "config.h"
#include "sink_writer.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

struct ltk_sink_writer {
    FILE *fp;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t work_cv; /* writer: a block was handed over, or stop */
    pthread_cond_t done_cv; /* caller: the block in flight is written */
    ltk_strbuf block;     /* owned by the writer while busy */
    int busy, stop;
    int error;              /* errno of the first failed write, 0 if none */
};

/* Writes all n bytes to fd; returns 0 or errno. */
static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return k < 0 ? errno : EIO;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static void *writer_main(void *arg)
{
    ltk_sink_writer *w = arg;
    /* Blocks go to the descriptor: through fwrite, glibc would first copy
     * most of each block into the FILE's buffer (a copy of the whole output).
     * Whatever the FILE holds goes first; it stays empty until stop. */
    errno = 0;
    int flushed = fflush(w->fp) == 0 ? 0 : errno ? errno : EIO;
    int fd = fileno(w->fp);
    pthread_mutex_lock(&w->mu);
    w->error = flushed;
    for (;;) {
        while (!w->busy && !w->stop)
            pthread_cond_wait(&w->work_cv, &w->mu);
        if (!w->busy)
            break; /* stop, and nothing left to write */
        pthread_mutex_unlock(&w->mu);
        int e = w->error ? 0 : write_all(fd, w->block.data, w->block.len);
        ltk_strbuf_clear(&w->block);
        pthread_mutex_lock(&w->mu);
        if (e && !w->error)
            w->error = e;
        w->busy = 0;
        pthread_cond_signal(&w->done_cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

ltk_sink_writer *ltk_sink_writer_start(FILE *fp)
{
    ltk_sink_writer *w = calloc(1, sizeof *w);
    if (w == NULL)
        return NULL;
    w->fp = fp;
    if (pthread_mutex_init(&w->mu, NULL) != 0) {
        free(w);
        return NULL;
    }
    if (pthread_cond_init(&w->work_cv, NULL) != 0) {
        pthread_mutex_destroy(&w->mu);
        free(w);
        return NULL;
    }
    if (pthread_cond_init(&w->done_cv, NULL) != 0) {
        pthread_cond_destroy(&w->work_cv);
        pthread_mutex_destroy(&w->mu);
        free(w);
        return NULL;
    }
    /* the thread inherits a full signal mask: SIGINT, SIGTERM and SIGHUP stay
     * with the program's own threads, whose loops look at the flags the
     * handlers set (and whose blocking reads they interrupt) */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&w->thread, NULL, writer_main, w);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        pthread_cond_destroy(&w->done_cv);
        pthread_cond_destroy(&w->work_cv);
        pthread_mutex_destroy(&w->mu);
        free(w);
        return NULL;
    }
    return w;
}

int ltk_sink_writer_put(ltk_sink_writer *w, ltk_strbuf *block)
{
    pthread_mutex_lock(&w->mu);
    while (w->busy)
        pthread_cond_wait(&w->done_cv, &w->mu);
    int e = w->error;
    if (e == 0) {
        ltk_strbuf emptied = w->block; /* cleared by the writer */
        w->block = *block;
        *block = emptied;
        w->busy = 1;
        pthread_cond_signal(&w->work_cv);
    }
    pthread_mutex_unlock(&w->mu);
    return e;
}

int ltk_sink_writer_stop(ltk_sink_writer *w)
{
    if (w == NULL)
        return 0;
    pthread_mutex_lock(&w->mu);
    while (w->busy)
        pthread_cond_wait(&w->done_cv, &w->mu);
    w->stop = 1;
    pthread_cond_signal(&w->work_cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    int e = w->error;
    ltk_strbuf_free(&w->block);
    pthread_cond_destroy(&w->done_cv);
    pthread_cond_destroy(&w->work_cv);
    pthread_mutex_destroy(&w->mu);
    free(w);
    return e;
}
