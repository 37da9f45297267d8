/*
 * parse_live.c - `logtk parse --stream` as a log shipper's child: rows
 * written to a file as they come, rotation on SIGHUP, omprog confirmations,
 * periodic state saves.
 *
 * Live rows to a file.  A sink named by path writes a temporary file renamed
 * into place at the end, right for a batch run and wrong for a stream that
 * never ends: nothing would be seen before EOF, and a killed child would
 * leave nothing.  So with --stream -o FILE the file itself is opened (created,
 * truncated, or appended to with --append) and put on standard output, and
 * the sink writes to standard output: its rows go straight into FILE.  The
 * TSV/CSV header row is written only into an empty file, so appending (a
 * restarted child) does not repeat it in the middle.  On SIGHUP the sink is
 * closed (everything flushed), FILE opened again by name (after a rotation:
 * a new, empty file, which gets its header) and a new sink started; LineId
 * goes on counting.  Confirmations then need standard output's original
 * descriptor: it is kept (dup) before FILE takes descriptor 1.
 *
 * --confirm (rsyslog omprog confirmMessages): "OK\n" once ready, then one per
 * line once its row is written and synced to FILE (fsync per line: the price
 * of at-least-once delivery, see logtk-shippers(7)).
 *
 * --save-every N or Ns: the parser state is saved to --save-state every N
 * lines or every N seconds (checked as lines arrive), atomically (temporary
 * file, then rename), so a restarted child given --load-state keeps its
 * template ids.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "parse_live.h"

#define SUB "parse"

int parse_live_parse_every(const char *arg, parse_live *l)
{
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    if (end == arg || errno || !(v > 0) || arg[0] == '-')
        return -1;
    if (*end == 's' && end[1] == '\0') {
        l->save_every_seconds = v;
        return 0;
    }
    if (*end != '\0' || v != (double)(uint64_t)v)
        return -1;
    l->save_every_lines = (uint64_t)v;
    return 0;
}

/* Opens the live file and moves it to descriptor 1; *empty: it holds nothing. */
static int open_file_on_stdout(parse_live *l, int *empty)
{
    int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (l->append || l->opened ? O_APPEND : O_TRUNC);
    int fd = open(l->path, flags, 0666);
    if (fd < 0) {
        cli_error(SUB, "%s: %s", l->path, strerror(errno));
        return EXIT_DATA;
    }
    struct stat st;
    *empty = fstat(fd, &st) == 0 && st.st_size == 0;
    if (fflush(stdout) != 0 || dup2(fd, STDOUT_FILENO) < 0) {
        cli_error(SUB, "%s: %s", l->path, strerror(errno));
        close(fd);
        return EXIT_DATA;
    }
    close(fd);
    l->opened = 1;
    return EXIT_OK;
}

/* A sink on standard output, now the live file; its header row only into an empty file. */
static int start_sink(parse_live *l, logtk_sink **sink, const char *kind, const logtk_format *f,
                      int empty)
{
    int saved = -1;
    if (!empty) { /* the header row goes to /dev/null */
        int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
        saved = dup(STDOUT_FILENO);
        if (null_fd < 0 || saved < 0 || dup2(null_fd, STDOUT_FILENO) < 0) {
            cli_error(SUB, "%s: %s", l->path, strerror(errno));
            if (null_fd >= 0)
                close(null_fd);
            if (saved >= 0)
                close(saved);
            return EXIT_DATA;
        }
        close(null_fd);
    }
    int rc = logtk_sink_new(sink, kind, "-", f);
    if (saved >= 0) {
        fflush(stdout);
        dup2(saved, STDOUT_FILENO);
        close(saved);
    }
    if (rc != LOGTK_OK) {
        cli_error(SUB, "%s", logtk_sink_errmsg(*sink));
        return EXIT_DATA;
    }
    return EXIT_OK;
}

int parse_live_open(parse_live *l, logtk_sink **sink, const char *kind, const logtk_format *f)
{
    /* the original standard output: confirmations, and --templates - at the end */
    l->confirm_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (l->confirm_fd < 0) {
        cli_error(SUB, "standard output: %s", strerror(errno));
        return EXIT_DATA;
    }
    int empty;
    int status = open_file_on_stdout(l, &empty);
    if (status == EXIT_OK)
        status = start_sink(l, sink, kind, f, empty);
    if (status == EXIT_OK && l->confirm && parse_live_confirm(l, 1) != EXIT_OK)
        status = EXIT_DATA;
    return status;
}

int parse_live_reopen(parse_live *l, logtk_sink **sink, const char *kind, const logtk_format *f)
{
    if (logtk_sink_close(*sink) != LOGTK_OK) {
        cli_error(SUB, "%s", logtk_sink_errmsg(*sink));
        return EXIT_DATA;
    }
    logtk_sink_free(*sink);
    *sink = NULL;
    int empty;
    int status = open_file_on_stdout(l, &empty);
    if (status == EXIT_OK)
        status = start_sink(l, sink, kind, f, empty);
    return status;
}

int parse_live_confirm(parse_live *l, uint64_t n)
{
    /* the rows are in the file before the shipper hears of them */
    if (n && l->opened && fsync(STDOUT_FILENO) != 0 && errno != EINVAL && errno != EROFS) {
        cli_error(SUB, "%s: %s", l->path, strerror(errno));
        return EXIT_DATA;
    }
    for (uint64_t i = 0; i < n; i++) {
        ssize_t w;
        do
            w = write(l->confirm_fd, "OK\n", 3);
        while (w < 0 && errno == EINTR);
        if (w != 3) {
            cli_error(SUB, "confirmations: %s", strerror(w < 0 ? errno : EIO));
            return EXIT_DATA;
        }
    }
    return EXIT_OK;
}

int parse_live_save_state(parse_live *l, logtk_parser *p, uint64_t lines)
{
    if (!l->state_path || (!l->save_every_lines && !(l->save_every_seconds > 0)))
        return EXIT_OK;
    int due;
    if (l->save_every_lines) {
        due = lines % l->save_every_lines == 0;
    } else {
        if ((lines & 63) != 0 && lines != 1) /* the clock, every 64 lines */
            return EXIT_OK;
        double now = cli_now();
        if (l->last_save == 0)
            l->last_save = now;
        due = now - l->last_save >= l->save_every_seconds;
    }
    if (!due)
        return EXIT_OK;
    void *snap = NULL;
    size_t len = 0;
    if (logtk_parser_save(p, &snap, &len) != LOGTK_OK) {
        cli_error(SUB, "--save-state: %s", logtk_parser_errmsg(p));
        return EXIT_DATA;
    }
    int status = cli_write_file_atomic(SUB, l->state_path, snap, len);
    logtk_free(snap);
    l->last_save = cli_now();
    return status;
}

int parse_live_restore_stdout(parse_live *l)
{
    if (fflush(stdout) != 0 || dup2(l->confirm_fd, STDOUT_FILENO) < 0) {
        cli_error(SUB, "%s: %s", l->path, strerror(errno));
        return EXIT_DATA;
    }
    return EXIT_OK;
}

void parse_live_close(parse_live *l)
{
    if (l->confirm_fd >= 0)
        close(l->confirm_fd);
    l->confirm_fd = -1;
}
