/*
 * compress_stream.c - the input loop of `logtk compress`: files or a live
 * stream into an archive writer, with the signals, timed block closes and
 * delivery confirmations a log shipper needs.
 *
 * Input is read with read(2) after poll(2), not with stdio, for three
 * reasons: poll's timeout is the --flush-interval clock (a block is closed
 * and committed once the oldest bytes in it have waited that long, so a quiet
 * stream is on disk within the interval); poll returns at once on a signal
 * even with SA_RESTART, so SIGHUP is handled while the input is quiet; and a
 * read returns what a pipe holds instead of waiting for 1 MiB, so a line
 * handed over by a shipper reaches the writer at once.  The archive bytes do
 * not depend on how the input was chunked (archive_writer.c).
 *
 * --confirm speaks rsyslog omprog's confirmMessages protocol: "OK\n" on
 * standard output once the program is ready, then one "OK\n" per input line
 * once that line is durably in the archive.  omprog sends the next message
 * only after the confirmation of the previous one, so a confirmed line
 * cannot wait for a full block: each read's whole lines are flushed into a
 * block of their own, synced, and only then confirmed (at-least-once
 * delivery: a kill between the sync and the "OK" makes the shipper resend
 * lines that are already stored, never lose one).  The cost is one block and
 * one fsync per message, see logtk-shippers(7).
 *
 * Exit status as compress: 0, also after SIGTERM/SIGINT (the lines read are
 * committed); 1 bad data or an output error.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "cli.h"
#include "compress_stream.h"

#define SUB "compress"

static int open_writer(logtk_archive_writer *w, const compress_stream_opts *o)
{
    int rc = o->append ? logtk_archive_writer_open_append(w, o->out)
                       : logtk_archive_writer_open_path(w, o->out);
    if (rc != LOGTK_OK) {
        cli_error(SUB, "%s", logtk_archive_writer_errmsg(w));
        return EXIT_DATA;
    }
    return EXIT_OK;
}

/* Writes n confirmations ("OK\n") to stdout and flushes them.  Returns 0 or -1. */
static int confirm_lines(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        if (fputs("OK\n", stdout) == EOF)
            return -1;
    return fflush(stdout) == 0 ? 0 : -1;
}

/* Commits the block in hand and confirms its lines (with --confirm). */
static int commit(logtk_archive_writer *w, const compress_stream_opts *o, uint64_t *confirmed)
{
    if (logtk_archive_writer_flush(w) != LOGTK_OK) {
        cli_error(SUB, "%s", logtk_archive_writer_errmsg(w));
        return EXIT_DATA;
    }
    uint64_t written = logtk_archive_writer_lines_written(w);
    if (o->confirm && written > *confirmed) {
        if (confirm_lines(written - *confirmed) != 0) {
            cli_error(SUB, "standard output (confirmations): %s", strerror(errno));
            return EXIT_DATA;
        }
        *confirmed = written;
    }
    return EXIT_OK;
}

/* SIGHUP: the archive is closed (footer written) and opened again at its
 * path, which after a rotation is a new file. */
static int reopen(logtk_archive_writer *w, const compress_stream_opts *o, uint64_t *confirmed)
{
    if (!o->append) /* the temporary file is renamed only at the end: commit the block */
        return commit(w, o, confirmed);
    int status = commit(w, o, confirmed);
    if (status == EXIT_OK && logtk_archive_writer_close(w) != LOGTK_OK) {
        cli_error(SUB, "%s", logtk_archive_writer_errmsg(w));
        status = EXIT_DATA;
    }
    if (status == EXIT_OK)
        status = open_writer(w, o);
    if (status == EXIT_OK)
        *confirmed = logtk_archive_writer_lines_written(w);
    return status;
}

int compress_stream_run(logtk_archive_writer *w, const compress_stream_opts *o, char **paths,
                        int npaths)
{
    int status = open_writer(w, o);
    if (status != EXIT_OK)
        return status;
    int writer_open = 1;
    uint64_t confirmed = logtk_archive_writer_lines_written(w);
    if (o->confirm && confirm_lines(1) != 0) { /* ready */
        cli_error(SUB, "standard output (confirmations): %s", strerror(errno));
        status = EXIT_DATA;
    }
    size_t bufsize = (size_t)1 << 20;
    char *buf = malloc(bufsize);
    if (!buf) {
        cli_error(SUB, "out of memory");
        status = EXIT_DATA;
    }
    cli_progress prog;
    cli_progress_init(&prog, "compress", o->quiet);
    uint64_t done = 0, lines = 0;
    double pending_since = 0; /* when the oldest uncommitted bytes arrived; 0: none */
    for (int i = 0; status == EXIT_OK && !cli_stop_signal && ((npaths == 0 && i == 0) || i < npaths);
         i++) {
        const char *path = npaths ? paths[i] : "-";
        int is_stdin = strcmp(path, "-") == 0;
        int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            cli_error(SUB, "%s: %s", path, strerror(errno));
            status = EXIT_DATA;
            break;
        }
        for (;;) {
            if (cli_stop_signal)
                break;
            if (cli_hup_pending) {
                cli_hup_pending = 0;
                if ((status = reopen(w, o, &confirmed)) != EXIT_OK) {
                    writer_open = 0;
                    break;
                }
                pending_since = 0;
            }
            int timeout = -1;
            if (o->flush_interval > 0 && pending_since > 0) {
                double left = pending_since + o->flush_interval - cli_now();
                timeout = left <= 0 ? 0 : (int)(left * 1000) + 1;
            }
            /* a quiet input still gets its progress line redrawn */
            int progress_wait = prog.enabled && (timeout < 0 || timeout > 250);
            struct pollfd pfd = {fd, POLLIN, 0};
            int ready = poll(&pfd, 1, progress_wait ? 250 : timeout);
            if (ready < 0 && errno == EINTR)
                continue;
            if (ready == 0 && progress_wait) {
                if (done > 0)
                    cli_progress_update(&prog, lines, done, 0);
                continue;
            }
            if (ready == 0) { /* quiet for the interval: commit the block in hand */
                if ((status = commit(w, o, &confirmed)) != EXIT_OK)
                    break;
                pending_since = 0;
                continue;
            }
            ssize_t got = read(fd, buf, bufsize);
            if (got < 0 && errno == EINTR)
                continue;
            if (got < 0) {
                cli_error(SUB, "%s: %s", path, strerror(errno));
                status = EXIT_DATA;
                break;
            }
            if (got == 0) {
                cli_progress_update(&prog, lines, done, 0);
                break;
            }
            if (logtk_archive_writer_write(w, buf, (size_t)got) != LOGTK_OK) {
                cli_error(SUB, "%s", logtk_archive_writer_errmsg(w));
                status = EXIT_DATA;
                break;
            }
            if (pending_since == 0)
                pending_since = cli_now();
            done += (uint64_t)got;
            if (o->confirm) {
                if ((status = commit(w, o, &confirmed)) != EXIT_OK)
                    break;
                pending_since = 0;
            }
            if (prog.enabled) { /* the line count is for the progress line only */
                for (const char *q = buf, *end = buf + got;
                     (q = memchr(q, '\n', (size_t)(end - q))) != NULL; q++)
                    lines++;
                cli_progress_update(&prog, lines, done, 0);
            }
        }
        if (!is_stdin)
            close(fd);
    }
    cli_progress_end(&prog);
    free(buf);
    if (status == EXIT_OK && writer_open) {
        if (logtk_archive_writer_close(w) != LOGTK_OK) {
            cli_error(SUB, "%s", logtk_archive_writer_errmsg(w));
            status = EXIT_DATA;
        } else if (o->confirm) {
            uint64_t written = logtk_archive_writer_lines_written(w);
            if (written > confirmed)
                confirm_lines(written - confirmed); /* the shipper may be gone: not an error */
        }
    }
    if (status == EXIT_OK && cli_stop_signal && !o->quiet)
        cli_error(SUB, "stopped by %s; the archive holds every line read",
                  cli_signal_name(cli_stop_signal));
    return status;
}
