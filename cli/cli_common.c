/* cli_common.c - messages, usage errors, progress, time, whole-file I/O. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

void cli_error(const char *subcommand, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s %s: ", cli_progname, subcommand);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int cli_usage_error(const char *subcommand, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s %s: ", cli_progname, subcommand);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nRun '%s %s --help' for usage.\n", cli_progname, subcommand);
    return EXIT_USAGE;
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cli_progress_init(cli_progress *p, const char *label, int quiet)
{
    p->enabled = !quiet && isatty(STDERR_FILENO);
    p->label = label;
    p->start = p->last_update = cli_now();
}

void cli_progress_update(cli_progress *p, uint64_t lines, uint64_t done, uint64_t total)
{
    if (!p->enabled)
        return;
    double now = cli_now();
    if (now - p->last_update < 0.2)
        return;
    p->last_update = now;
    double rate = lines / (now - p->start > 1e-9 ? now - p->start : 1e-9);
    if (total)
        fprintf(stderr, "\r%s: %llu lines, %.1f%%, %.0f lines/s   ", p->label,
                (unsigned long long)lines, 100.0 * (double)done / (double)total, rate);
    else
        fprintf(stderr, "\r%s: %llu lines, %.0f lines/s   ", p->label,
                (unsigned long long)lines, rate);
}

void cli_progress_end(cli_progress *p)
{
    if (p->enabled)
        fprintf(stderr, "\r\033[K");
}

/* ---------------------------------------------------------------- files */

/* Output files: logtk_output (include/logtk.h) does the temporary file and the
 * rename; these wrappers only print its errors the CLI's way. */
int cli_output_open(const char *subcommand, const char *path, cli_output *o)
{
    o->out = NULL;
    o->fp = NULL;
    if (logtk_output_open(&o->out, path) != LOGTK_OK) {
        cli_error(subcommand, "%s", logtk_output_errmsg(o->out));
        logtk_output_free(o->out);
        o->out = NULL;
        return EXIT_DATA;
    }
    o->fp = logtk_output_stream(o->out);
    return EXIT_OK;
}

int cli_output_close(const char *subcommand, const char *path, cli_output *o, int keep)
{
    (void)path;
    int rc = EXIT_OK;
    if (o->out && keep && logtk_output_commit(o->out) != LOGTK_OK) {
        cli_error(subcommand, "%s", logtk_output_errmsg(o->out));
        rc = EXIT_DATA;
    }
    logtk_output_free(o->out); /* not kept: the temporary file is removed */
    o->out = NULL;
    o->fp = NULL;
    return rc;
}

/* Whole small files (parser state snapshots, mask lists). */
int cli_write_file_atomic(const char *subcommand, const char *path, const void *data, size_t len)
{
    cli_output out;
    int rc = cli_output_open(subcommand, path, &out);
    if (rc != EXIT_OK)
        return rc;
    if (len && fwrite(data, 1, len, out.fp) != len) {
        cli_error(subcommand, "%s: %s", path, strerror(errno));
        cli_output_close(subcommand, path, &out, 0);
        return EXIT_DATA;
    }
    return cli_output_close(subcommand, path, &out, 1);
}

/* Reads f whole; with magic, stops after its first 8 bytes unless they are magic. */
static int read_stream(const char *subcommand, const char *path, FILE *f, const char *magic,
                       const char *what, size_t max, char **data, size_t *len)
{
    size_t cap = 4096, used = 0;
    char *buf = malloc(cap + 1);
    if (buf && magic) {
        used = fread(buf, 1, 8, f);
        if (!ferror(f) && (used < 8 || memcmp(buf, magic, 8) != 0)) {
            if (f != stdin)
                fclose(f);
            free(buf);
            cli_error(subcommand, "%s: not a %s", path, what);
            return EXIT_DATA;
        }
    }
    while (buf && !ferror(f)) {
        if (used == cap) {
            char *bigger = realloc(buf, cap * 2 + 1);
            if (bigger == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
        size_t got = fread(buf + used, 1, cap - used, f);
        used += got;
        if (got == 0)
            break;
        if (used > max) {
            if (f != stdin)
                fclose(f);
            free(buf);
            cli_error(subcommand, "%s: larger than %zu bytes", path, max);
            return EXIT_DATA;
        }
    }
    int failed = buf == NULL || ferror(f);
    int saved = errno;
    if (f != stdin)
        fclose(f);
    if (failed) {
        cli_error(subcommand, "%s: %s", path, buf ? strerror(saved) : "out of memory");
        free(buf);
        return EXIT_DATA;
    }
    buf[used] = '\0';
    *data = buf;
    *len = used;
    return EXIT_OK;
}

static FILE *open_input(const char *subcommand, const char *path)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (f == NULL)
        cli_error(subcommand, "%s: %s", path, strerror(errno));
    return f;
}

int cli_read_file(const char *subcommand, const char *path, size_t max, char **data, size_t *len)
{
    FILE *f = open_input(subcommand, path);
    return f ? read_stream(subcommand, path, f, NULL, NULL, max, data, len) : EXIT_DATA;
}

int cli_read_file_magic(const char *subcommand, const char *path, const char *magic,
                        const char *what, char **data, size_t *len)
{
    FILE *f = open_input(subcommand, path);
    return f ? read_stream(subcommand, path, f, magic, what, SIZE_MAX, data, len) : EXIT_DATA;
}

int cli_check_magic(const char *subcommand, const char *path, const char *magic, const char *what)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        cli_error(subcommand, "%s: %s", path, strerror(errno));
        return 0;
    }
    char head[8];
    int yes = fread(head, 1, 8, f) == 8 && memcmp(head, magic, 8) == 0;
    fclose(f);
    if (!yes)
        cli_error(subcommand, "%s: not a %s", path, what);
    return yes;
}

/* ------------------------------------------------------- first line of an input */

/*
 * Peeking at standard input must not lose what was read.  Its start is read
 * into memory until a reader run over that memory yields a complete first
 * line (so compressed input works too).  A seekable stdin (`< FILE`) is then
 * sought back.  A pipe cannot be: fd 0 is replaced by a pipe that a thread
 * fills with the bytes read followed by the rest of the original stdin, so
 * every later reader of "-" sees the whole input.
 */
/* The decoded first line of buf[0..len) (eof: no more bytes follow).  Returns
 * 1 and fills *line when it is complete, 0 when more bytes are needed, -1 on
 * an error that more bytes cannot cure (the message is in *why). */
static int first_line_of(const char *name, const char *buf, size_t len, int eof,
                         char **line, size_t *line_len, char *why, size_t whylen)
{
    logtk_reader *r;
    if (logtk_reader_new(&r) != LOGTK_OK) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    logtk_line l;
    int done = 0;
    int rc = logtk_reader_open_memory(r, buf, len, name);
    if (rc == LOGTK_OK)
        rc = logtk_reader_next(r, &l);
    if (rc == LOGTK_OK && (l.eol_len > 0 || eof)) {
        *line = malloc(l.len + 1);
        if (*line) {
            memcpy(*line, l.data, l.len);
            (*line)[l.len] = '\0';
            *line_len = l.len;
            done = 1;
        } else {
            snprintf(why, whylen, "out of memory");
            done = -1;
        }
    } else if (rc == LOGTK_DONE || rc == LOGTK_ERR_LINE_TOO_LONG || (rc != LOGTK_OK && eof)) {
        if (rc == LOGTK_DONE) {
            *line = calloc(1, 1);
            *line_len = 0;
            done = *line ? 1 : -1;
            if (!*line)
                snprintf(why, whylen, "out of memory");
        } else {
            snprintf(why, whylen, "%s", logtk_reader_errmsg(r));
            done = -1;
        }
    }
    logtk_reader_free(r);
    return done;
}

typedef struct stdin_replay {
    int src;   /* the original standard input */
    int dst;   /* the pipe's write end */
    char *head;
    size_t head_len;
} stdin_replay;

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void *replay_stdin(void *arg)
{
    stdin_replay *rp = arg;
    char block[65536];
    if (write_all(rp->dst, rp->head, rp->head_len) == 0) {
        for (;;) {
            ssize_t n = read(rp->src, block, sizeof block);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0 || write_all(rp->dst, block, (size_t)n) != 0)
                break;
        }
    }
    close(rp->dst);
    close(rp->src);
    free(rp->head);
    free(rp);
    return NULL;
}

/* Largest start of a piped stdin held to find its first line. */
#define PEEK_LIMIT ((size_t)64 << 20)

static int peek_stdin(const char *subcommand, char **line, size_t *len)
{
    struct stat st;
    if (fstat(STDIN_FILENO, &st) != 0) {
        cli_error(subcommand, "-: %s", strerror(errno));
        return EXIT_DATA;
    }
    off_t at = S_ISREG(st.st_mode) ? lseek(STDIN_FILENO, 0, SEEK_CUR) : (off_t)-1;
    size_t cap = 65536, have = 0;
    char *buf = malloc(cap);
    char why[512] = "";
    int eof = 0, found = 0;
    while (buf) {
        ssize_t n = read(STDIN_FILENO, buf + have, cap - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            snprintf(why, sizeof why, "-: %s", strerror(errno));
            found = -1;
            break;
        }
        if (n == 0)
            eof = 1;
        have += (size_t)n;
        /* look when a line may have ended: a slow pipe need not fill the buffer */
        if (n == 0 || have == cap || memchr(buf + have - (size_t)n, '\n', (size_t)n)) {
            found = first_line_of("-", buf, have, eof, line, len, why, sizeof why);
            if (found)
                break;
            if (have < cap)
                continue;
            if (cap >= PEEK_LIMIT) {
                snprintf(why, sizeof why, "-: no complete first line in the first %zu MiB",
                         PEEK_LIMIT >> 20);
                found = -1;
                break;
            }
            char *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
    }
    if (!buf) {
        cli_error(subcommand, "out of memory");
        return EXIT_DATA;
    }
    if (found < 0) {
        cli_error(subcommand, "%s", why);
        free(buf);
        return EXIT_DATA;
    }
    /* give the bytes back */
    if (at >= 0 && lseek(STDIN_FILENO, at, SEEK_SET) == at) {
        free(buf);
        return EXIT_OK;
    }
    int fds[2];
    stdin_replay *rp = malloc(sizeof *rp);
    int src = dup(STDIN_FILENO);
    if (!rp || src < 0 || pipe(fds) != 0) {
        int e = errno;
        cli_error(subcommand, "-: cannot replay standard input: %s", rp ? strerror(e) : "out of memory");
        free(rp);
        free(buf);
        if (src >= 0)
            close(src);
        free(*line);
        *line = NULL;
        return EXIT_DATA;
    }
    fcntl(src, F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    if (dup2(fds[0], STDIN_FILENO) < 0) {
        cli_error(subcommand, "-: cannot replay standard input: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        close(src);
        free(rp);
        free(buf);
        free(*line);
        *line = NULL;
        return EXIT_DATA;
    }
    close(fds[0]);
    rp->src = src;
    rp->dst = fds[1];
    rp->head = buf;
    rp->head_len = have;
    pthread_t t;
    if (pthread_create(&t, NULL, replay_stdin, rp) != 0) {
        cli_error(subcommand, "-: cannot replay standard input: no thread");
        close(fds[1]);
        close(src);
        free(rp);
        free(buf);
        free(*line);
        *line = NULL;
        return EXIT_DATA;
    }
    pthread_detach(t);
    return EXIT_OK;
}

int cli_peek_stdin(const char *subcommand, char **line, size_t *len)
{
    *line = NULL;
    *len = 0;
    return peek_stdin(subcommand, line, len);
}

/* ------------------------------------------------------- line fingerprints */

static uint64_t mix64(uint64_t h, uint64_t v)
{
    h ^= v * 0x9e3779b97f4a7c15ULL;
    h = (h << 27 | h >> 37) * 0xff51afd7ed558ccdULL;
    return h ^ (h >> 31);
}

uint64_t cli_string_hash(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
    return h;
}

static uint64_t load_u64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

uint64_t cli_line_hash(uint64_t h, const char *data, size_t len, size_t eol_len)
{
    /* Four lanes, each word one add and one multiply by an odd constant (a
     * bijection), so the words of a line do not wait on each other: a single
     * chain of full mixes per word was 11% of `parse -o FILE`'s time.  The
     * lanes are mixed into h once per line.  A fingerprint against a file
     * changed between two passes, not against an adversary. */
    const uint64_t k = 0x9e3779b97f4a7c15ULL;
    const unsigned char *p = (const unsigned char *)data;
    uint64_t a = (uint64_t)len << 2 | eol_len, b = 1, c = 2, d = 3;
    size_t i = 0;
    for (; i + 32 <= len; i += 32) {
        a = (a + load_u64(p + i)) * k;
        b = (b + load_u64(p + i + 8)) * k;
        c = (c + load_u64(p + i + 16)) * k;
        d = (d + load_u64(p + i + 24)) * k;
    }
    for (; i + 8 <= len; i += 8)
        a = (a + load_u64(p + i)) * k;
    if (i < len) {
        /* the last 1-7 bytes: the line's last word when it has one (its
         * bytes before i are counted twice, which is harmless), else bytes */
        uint64_t v = 0;
        if (len >= 8) {
            v = load_u64(p + len - 8);
        } else {
            for (size_t j = 0; i + j < len; j++)
                v |= (uint64_t)p[i + j] << (8 * j);
        }
        b = (b + v) * k;
    }
    return mix64(mix64(mix64(mix64(h, a), b), c), d);
}

/* ------------------------------------------------------- output is not an input */

/* The regular file behind path ("-" or NULL: the descriptor fd). */
static int regular_file_of(const char *path, int fd, struct stat *st)
{
    int ok = path == NULL || strcmp(path, "-") == 0 ? fstat(fd, st) == 0 : stat(path, st) == 0;
    return ok && S_ISREG(st->st_mode);
}

int cli_refuse_output_is_input(const char *subcommand, const char *what, const char *out,
                               char *const *inputs, size_t ninputs)
{
    static char *const stdin_only[] = {"-"};
    struct stat o, i;
    if (!regular_file_of(out, STDOUT_FILENO, &o))
        return EXIT_OK; /* not there yet, or a device, FIFO, terminal */
    if (ninputs == 0) {
        inputs = stdin_only;
        ninputs = 1;
    }
    for (size_t k = 0; k < ninputs; k++) {
        if (!regular_file_of(inputs[k], STDIN_FILENO, &i))
            continue;
        if (i.st_dev == o.st_dev && i.st_ino == o.st_ino) {
            const char *shown_in = strcmp(inputs[k], "-") ? inputs[k] : "standard input";
            if (out && strcmp(out, "-"))
                cli_error(subcommand, "%s %s is the input %s: refusing to overwrite the input",
                          what, out, shown_in);
            else
                cli_error(subcommand, "standard output is the input %s: refusing to overwrite "
                                      "the input or read its own output", shown_in);
            return EXIT_USAGE;
        }
    }
    return EXIT_OK;
}

int cli_unknown_option(const char *subcommand, char *const *argv)
{
    /* an unknown short option may sit inside a cluster ("-A1", "-cA"), where
       argv[optind - 1] is still the previous argument: name it by optopt */
    if (optopt > 0 && optopt != '?')
        return cli_usage_error(subcommand, "unknown option '-%c'", optopt);
    return cli_usage_error(subcommand, "unknown option '%s'", argv[optind - 1]);
}

int cli_push_string(const char ***list, size_t *n, const char *value)
{
    const char **bigger = realloc(*list, (*n + 1) * sizeof **list);
    if (bigger == NULL)
        return -1;
    bigger[(*n)++] = value;
    *list = bigger;
    return 0;
}

int cli_name_listed(const char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return 1;
    return 0;
}

int cli_archive_open(const char *subcommand, const char *path, logtk_archive_reader **r)
{
    if (logtk_archive_reader_new(r) != LOGTK_OK) {
        cli_error(subcommand, "out of memory");
        return -1;
    }
    if (logtk_archive_reader_open_path(*r, path) != LOGTK_OK) {
        cli_error(subcommand, "%s", logtk_archive_reader_errmsg(*r));
        return -1;
    }
    return 0;
}
