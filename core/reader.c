/*
 * reader.c - lines with their exact bytes from files, stdin, compressed files
 * and archive members.
 *
 * The reader is the hot path of every command (a 1M lines/s parser spends a
 * real share of its time here), so plain input takes a fast path: read() in
 * 256 KiB blocks into one reused buffer and memchr() for '\n'.  A line is a
 * slice of that buffer; nothing is copied or allocated per line.  When a line
 * straddles the end of the buffer, the unfinished tail is moved to the front
 * and the buffer is refilled behind it; the scan resumes where it stopped so
 * no byte is searched twice.  The buffer grows only for lines longer than a
 * block, and never past max_line plus one block, so an endless line is
 * reported as LOGTK_ERR_LINE_TOO_LONG instead of eating memory.  A caller's
 * memory buffer with plain text is not even copied: lines point into it.
 *
 * Compression is detected by content, not by name: the first block is read
 * and its magic bytes checked (gzip, bzip2, xz, zstd, zip, ustar).  Only then
 * is libarchive involved, reading through the same line splitter.  Seekable
 * files are handed to libarchive by descriptor (zip needs seeking to read its
 * central directory); pipes go through callbacks that first return the block
 * already read for detection.  Archives with a single compressed stream come
 * out of libarchive's "raw" format and are named after the file; tar and zip
 * archives yield their regular-file members in order, each named
 * "ARCHIVE:MEMBER" and numbered from line 1.
 *
 * Exact bytes: a CR directly before LF is reported as part of a 2-byte
 * terminator; every other byte (NUL, lone CR, invalid UTF-8) stays in the
 * line.  A final line without newline has eol_len 0.  When the compressed
 * stream is damaged, the complete lines before the damage are delivered first
 * and the error comes after them; an unfinished line at the damage point is
 * not delivered as if it were complete.
 */
#include "config.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errmsg.h"
#include "logtk.h"
#include "strbuf.h"

enum { READ_BLOCK = 256 * 1024, DETECT_BYTES = 512, BINARY_SAMPLE = 64 * 1024 };

enum source_kind {
    SOURCE_NONE,
    SOURCE_FD,          /* plain bytes from a descriptor: read() fast path */
    SOURCE_MEMORY,      /* plain bytes in the caller's buffer: zero-copy */
    SOURCE_ARCHIVE      /* anything libarchive decodes */
};

struct logtk_reader {
    logtk_errbuf err;
    size_t max_line;
    enum source_kind kind;

    /* the underlying source */
    int fd;
    int own_fd;
    const char *mem;      /* SOURCE_MEMORY, or the memory handed to libarchive */
    size_t mem_len;
    struct archive *ar;
    int ar_multi;         /* tar/zip: members are named ARCHIVE:MEMBER */
    int ar_in_member;     /* a member header has been read and its data not exhausted */
    int ar_retries;       /* consecutive warnings without data, so a stuck stream ends */
    char *raw;            /* pipe callbacks: block handed to libarchive */
    size_t raw_prefetch;  /* bytes of the detection block still to hand out */
    size_t raw_prefetch_off;
    uint64_t plain_bytes; /* bytes read() from the descriptor */
    uint64_t source_size;

    /* the line window: bytes [start, end) of win are not yet returned */
    char *buf;
    size_t cap;
    const char *win;      /* buf, or mem for SOURCE_MEMORY */
    size_t start, end;
    size_t scan;          /* win[start .. scan) holds no '\n' */
    int eof;              /* the current stream (or member) has no more bytes */
    int pending;          /* an error code to report once the buffered lines are out */
    int finished;         /* LOGTK_DONE has been returned */

    int binary;
    int binary_judged;
    uint64_t line_number;
    logtk_strbuf name;    /* the path, "-" or the memory name */
    logtk_strbuf source;  /* what lines report as their source */
};

int logtk_reader_new(logtk_reader **out)
{
    logtk_reader *r = calloc(1, sizeof *r);
    *out = r;
    if (!r)
        return LOGTK_ERR_NOMEM;
    r->max_line = LOGTK_DEFAULT_MAX_LINE;
    r->fd = -1;
    return LOGTK_OK;
}

int logtk_reader_set_max_line(logtk_reader *r, size_t max_line)
{
    if (max_line == 0 || max_line > ((size_t)1 << 40))
        return logtk_error_set(&r->err, LOGTK_ERR_INVALID, "maximum line length %zu out of range",
                               max_line);
    r->max_line = max_line;
    return LOGTK_OK;
}

int logtk_reader_close(logtk_reader *r)
{
    if (r->ar) {
        archive_read_free(r->ar);
        r->ar = NULL;
    }
    if (r->own_fd && r->fd >= 0)
        close(r->fd);
    r->fd = -1;
    r->own_fd = 0;
    r->kind = SOURCE_NONE;
    r->mem = NULL;
    r->mem_len = 0;
    r->ar_multi = r->ar_in_member = r->ar_retries = 0;
    r->raw_prefetch = r->raw_prefetch_off = 0;
    r->plain_bytes = r->source_size = 0;
    r->win = r->buf;
    r->start = r->end = r->scan = 0;
    r->eof = r->pending = r->finished = 0;
    r->binary = r->binary_judged = 0;
    r->line_number = 0;
    logtk_strbuf_clear(&r->source);
    return LOGTK_OK;
}

void logtk_reader_free(logtk_reader *r)
{
    if (!r)
        return;
    logtk_reader_close(r);
    free(r->buf);
    free(r->raw);
    logtk_strbuf_free(&r->name);
    logtk_strbuf_free(&r->source);
    free(r);
}

const char *logtk_reader_errmsg(const logtk_reader *r)
{
    return logtk_error_text(&r->err);
}

int logtk_reader_is_binary(const logtk_reader *r)
{
    return r->binary;
}

uint64_t logtk_reader_bytes_read(const logtk_reader *r)
{
    if (r->ar) {
        la_int64_t n = archive_filter_bytes(r->ar, -1);
        return n > 0 ? (uint64_t)n : 0;
    }
    if (r->kind == SOURCE_MEMORY)
        return r->start;
    return r->plain_bytes;
}

uint64_t logtk_reader_source_size(const logtk_reader *r)
{
    return r->source_size;
}

/* Text or binary, judged once on the first decoded block (at most 64 KiB): any NUL byte, or
 * more than 10% control bytes other than tab, LF, VT, FF, CR and ESC. */
static void judge_binary(logtk_reader *r, const char *p, size_t n)
{
    if (r->binary_judged || n == 0)
        return;
    r->binary_judged = 1;
    if (n > BINARY_SAMPLE)
        n = BINARY_SAMPLE;
    size_t control = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == 0) {
            r->binary = 1;
            return;
        }
        if ((c < 32 && !(c >= 9 && c <= 13) && c != 27) || c == 127)
            control++;
    }
    r->binary = control * 10 > n;
}

static int ensure_buffer(logtk_reader *r, size_t want)
{
    if (r->cap >= want)
        return LOGTK_OK;
    size_t cap = r->cap ? r->cap : 2 * READ_BLOCK;
    while (cap < want)
        cap *= 2;
    char *b = realloc(r->buf, cap);
    if (!b)
        return logtk_error_set(&r->err, LOGTK_ERR_NOMEM, "%s: out of memory", r->name.data);
    r->buf = b;
    r->cap = cap;
    if (r->kind != SOURCE_MEMORY)
        r->win = b;
    return LOGTK_OK;
}

static int set_name(logtk_reader *r, const char *name)
{
    logtk_strbuf_clear(&r->name);
    logtk_strbuf_clear(&r->source);
    if (logtk_strbuf_puts(&r->name, name) != 0 || logtk_strbuf_puts(&r->source, name) != 0)
        return logtk_error_set(&r->err, LOGTK_ERR_NOMEM, "out of memory");
    return LOGTK_OK;
}

/* Magic numbers of the compressed and archive formats we hand to libarchive. */
static int looks_compressed_or_archive(const unsigned char *p, size_t n)
{
    if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
        return 1; /* gzip */
    if (n >= 3 && p[0] == 'B' && p[1] == 'Z' && p[2] == 'h')
        return 1; /* bzip2 */
    if (n >= 6 && memcmp(p, "\xfd" "7zXZ\0", 6) == 0)
        return 1; /* xz */
    if (n >= 4 && memcmp(p, "\x28\xb5\x2f\xfd", 4) == 0)
        return 1; /* zstd */
    if (n >= 4 && p[0] == 'P' && p[1] == 'K' &&
        ((p[2] == 3 && p[3] == 4) || (p[2] == 5 && p[3] == 6)))
        return 1; /* zip, or an empty zip */
    if (n >= 262 && memcmp(p + 257, "ustar", 5) == 0)
        return 1; /* POSIX or GNU tar */
    return 0;
}

static la_ssize_t pipe_read_callback(struct archive *a, void *user, const void **out)
{
    logtk_reader *r = user;
    if (r->raw_prefetch_off < r->raw_prefetch) {
        *out = r->raw + r->raw_prefetch_off;
        size_t n = r->raw_prefetch - r->raw_prefetch_off;
        r->raw_prefetch_off = r->raw_prefetch;
        return (la_ssize_t)n;
    }
    for (;;) {
        ssize_t n = read(r->fd, r->raw, READ_BLOCK);
        if (n >= 0) {
            r->plain_bytes += (uint64_t)n;
            *out = r->raw;
            return n;
        }
        if (errno != EINTR) {
            archive_set_error(a, errno, "read error: %s", strerror(errno));
            return -1;
        }
    }
}

static int archive_failed(logtk_reader *r, const char *what)
{
    const char *msg = r->ar ? archive_error_string(r->ar) : NULL;
    if (r->line_number > 0)
        return logtk_error_set(&r->err, LOGTK_ERR_ARCHIVE, "%s: %s after line %llu: %s",
                               r->source.data, what, (unsigned long long)r->line_number,
                               msg ? msg : "unknown error");
    return logtk_error_set(&r->err, LOGTK_ERR_ARCHIVE, "%s: %s: %s", r->name.data, what,
                           msg ? msg : "unknown error");
}

/* Advances to the next regular-file member (or the single raw stream).
 * Returns LOGTK_OK, LOGTK_DONE (no more members) or LOGTK_ERR_ARCHIVE. */
static int next_member(logtk_reader *r)
{
    struct archive_entry *entry;
    for (;;) {
        int rc = archive_read_next_header(r->ar, &entry);
        if (rc == ARCHIVE_EOF)
            return LOGTK_DONE;
        if (rc < ARCHIVE_WARN)
            return archive_failed(r, r->ar_in_member ? "damaged archive" : "unreadable archive");
        int fmt = archive_format(r->ar);
        r->ar_multi = fmt != ARCHIVE_FORMAT_RAW;
        if (r->ar_multi && archive_entry_filetype(entry) != AE_IFREG)
            continue; /* directories, links, devices */
        r->ar_in_member = 1;
        r->line_number = 0;
        r->eof = 0;
        logtk_strbuf_clear(&r->source);
        if (r->ar_multi) {
            const char *member = archive_entry_pathname(entry);
            if (logtk_strbuf_printf(&r->source, "%s:%s", r->name.data, member ? member : "?") != 0)
                return logtk_error_set(&r->err, LOGTK_ERR_NOMEM, "out of memory");
        } else if (logtk_strbuf_puts(&r->source, r->name.data) != 0) {
            return logtk_error_set(&r->err, LOGTK_ERR_NOMEM, "out of memory");
        }
        return LOGTK_OK;
    }
}

/* Starts libarchive on the open source.  The first member is entered so that
 * an unreadable archive fails at open time, with the file named. */
static int start_archive(logtk_reader *r, int seekable)
{
    r->ar = archive_read_new();
    if (!r->ar)
        return logtk_error_set(&r->err, LOGTK_ERR_NOMEM, "out of memory");
    archive_read_support_filter_all(r->ar);
    archive_read_support_format_tar(r->ar);
    archive_read_support_format_gnutar(r->ar);
    archive_read_support_format_zip(r->ar);
    archive_read_support_format_raw(r->ar);
    int rc;
    if (r->kind == SOURCE_MEMORY) {
        rc = archive_read_open_memory(r->ar, r->mem, r->mem_len);
    } else if (seekable) {
        rc = archive_read_open_fd(r->ar, r->fd, READ_BLOCK);
    } else {
        rc = archive_read_open(r->ar, r, NULL, pipe_read_callback, NULL);
    }
    r->kind = SOURCE_ARCHIVE;
    /* A compressed empty file decodes to nothing, which no format (not even
     * raw) recognises: that is an empty input, not a damaged one. */
    if (rc != ARCHIVE_OK && archive_filter_count(r->ar) > 1 &&
        archive_filter_bytes(r->ar, 0) == 0) {
        r->eof = 1;
        return LOGTK_OK;
    }
    if (rc != ARCHIVE_OK)
        return archive_failed(r, "cannot open compressed data");
    rc = next_member(r);
    if (rc == LOGTK_DONE) { /* an archive without regular files: no lines */
        r->eof = 1;
        r->finished = 0;
        return LOGTK_OK;
    }
    return rc;
}

int logtk_reader_open_path(logtk_reader *r, const char *path)
{
    logtk_reader_close(r);
    logtk_error_clear(&r->err);
    int is_stdin = path == NULL || strcmp(path, "-") == 0;
    int rc = set_name(r, is_stdin ? "-" : path);
    if (rc != LOGTK_OK)
        return rc;
    if (is_stdin) {
        r->fd = STDIN_FILENO;
    } else {
        r->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (r->fd < 0)
            return logtk_error_set(&r->err, LOGTK_ERR_IO, "%s: %s", path, strerror(errno));
        r->own_fd = 1;
    }
    struct stat st;
    int seekable = 0;
    if (fstat(r->fd, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            logtk_reader_close(r);
            return logtk_error_set(&r->err, LOGTK_ERR_IO, "%s: %s", path, strerror(EISDIR));
        }
        if (S_ISREG(st.st_mode)) {
            r->source_size = (uint64_t)st.st_size;
            seekable = lseek(r->fd, 0, SEEK_CUR) == 0;
        }
    }
#ifdef POSIX_FADV_SEQUENTIAL
    if (seekable)
        posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    r->kind = SOURCE_FD;
    if ((rc = ensure_buffer(r, 2 * READ_BLOCK)) != LOGTK_OK)
        return rc;
    r->win = r->buf;
    /* Read enough to recognise the format; a pipe may deliver it in pieces. */
    size_t have = 0;
    while (have < DETECT_BYTES) {
        ssize_t n = read(r->fd, r->buf + have, READ_BLOCK - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            logtk_reader_close(r);
            return logtk_error_set(&r->err, LOGTK_ERR_IO, "%s: %s", r->name.data, strerror(e));
        }
        if (n == 0) {
            r->eof = 1;
            break;
        }
        have += (size_t)n;
        r->plain_bytes += (uint64_t)n;
    }
    if (!looks_compressed_or_archive((const unsigned char *)r->buf, have)) {
        r->end = have;
        judge_binary(r, r->buf, have);
        return LOGTK_OK;
    }
    r->eof = 0;
    if (seekable) {
        if (lseek(r->fd, 0, SEEK_SET) != 0) {
            int e = errno;
            logtk_reader_close(r);
            return logtk_error_set(&r->err, LOGTK_ERR_IO, "%s: %s", r->name.data, strerror(e));
        }
        r->plain_bytes = 0;
    } else {
        if (!r->raw && !(r->raw = malloc(READ_BLOCK)))
            return logtk_error_set(&r->err, LOGTK_ERR_NOMEM, "out of memory");
        memcpy(r->raw, r->buf, have); /* the detection loop reads at most READ_BLOCK */
        r->raw_prefetch = have;
        r->raw_prefetch_off = 0;
    }
    rc = start_archive(r, seekable);
    if (rc < 0) {
        logtk_errbuf keep = r->err;
        logtk_reader_close(r);
        r->err = keep;
    }
    return rc;
}

int logtk_reader_open_memory(logtk_reader *r, const void *buf, size_t len, const char *name)
{
    logtk_reader_close(r);
    logtk_error_clear(&r->err);
    int rc = set_name(r, name ? name : "<memory>");
    if (rc != LOGTK_OK)
        return rc;
    r->mem = buf;
    r->mem_len = len;
    r->source_size = len;
    r->kind = SOURCE_MEMORY;
    if (!looks_compressed_or_archive(buf, len)) {
        r->win = buf;
        r->end = len;
        r->eof = 1;
        judge_binary(r, buf, len < READ_BLOCK ? len : READ_BLOCK);
        return LOGTK_OK;
    }
    if ((rc = ensure_buffer(r, 2 * READ_BLOCK)) != LOGTK_OK)
        return rc;
    r->win = r->buf;
    rc = start_archive(r, 1);
    if (rc < 0) {
        logtk_errbuf keep = r->err;
        logtk_reader_close(r);
        r->err = keep;
    }
    return rc;
}

/* Appends more bytes of the current stream behind win[end].  Sets r->eof at
 * the end of the stream (member).  Returns LOGTK_OK or an error. */
static int fill(logtk_reader *r)
{
    /* Keep the unfinished line, drop what was returned. */
    if (r->start > 0) {
        size_t keep = r->end - r->start;
        memmove(r->buf, r->buf + r->start, keep);
        r->scan -= r->start;
        r->end = keep;
        r->start = 0;
    }
    int rc = ensure_buffer(r, r->end + READ_BLOCK);
    if (rc != LOGTK_OK)
        return rc;
    size_t room = r->cap - r->end;
    if (r->kind == SOURCE_FD) {
        for (;;) {
            ssize_t n = read(r->fd, r->buf + r->end, room);
            if (n > 0) {
                judge_binary(r, r->buf + r->end, (size_t)n);
                r->end += (size_t)n;
                r->plain_bytes += (uint64_t)n;
                return LOGTK_OK;
            }
            if (n == 0) {
                r->eof = 1;
                return LOGTK_OK;
            }
            if (errno != EINTR)
                return logtk_error_set(&r->err, LOGTK_ERR_IO, "%s: read error after line %llu: %s",
                                       r->source.data, (unsigned long long)r->line_number,
                                       strerror(errno));
        }
    }
    /* libarchive */
    if (!r->ar_in_member) {
        r->eof = 1;
        return LOGTK_OK;
    }
    la_ssize_t n = archive_read_data(r->ar, r->buf + r->end, room);
    if (n >= 0)
        r->ar_retries = 0;
    if (n > 0) {
        judge_binary(r, r->buf + r->end, (size_t)n);
        r->end += (size_t)n;
        return LOGTK_OK;
    }
    if (n == 0) {
        r->eof = 1;
        return LOGTK_OK;
    }
    if ((n == ARCHIVE_WARN || n == ARCHIVE_RETRY) && ++r->ar_retries < 100)
        return LOGTK_OK; /* nothing delivered yet; the next call continues */
    return archive_failed(r, "damaged compressed data");
}

int logtk_reader_next(logtk_reader *r, logtk_line *line)
{
    if (r->kind == SOURCE_NONE)
        return logtk_error_set(&r->err, LOGTK_ERR_INVALID, "reader has no open source");
    if (r->err.code < 0 && r->err.code != LOGTK_ERR_INVALID)
        return r->err.code; /* errors are sticky: the position is lost */
    for (;;) {
        const char *w = r->win;
        if (r->scan < r->end) {
            const char *nl = memchr(w + r->scan, '\n', r->end - r->scan);
            if (nl) {
                size_t stop = (size_t)(nl - w);
                size_t len = stop - r->start;
                size_t eol = 1;
                if (len > 0 && w[stop - 1] == '\r') {
                    len--;
                    eol = 2;
                }
                r->line_number++;
                if (len > r->max_line)
                    goto too_long;
                line->data = w + r->start;
                line->len = len;
                line->eol_len = eol;
                line->number = r->line_number;
                line->source = r->source.data;
                r->start = r->scan = stop + 1;
                return LOGTK_OK;
            }
            r->scan = r->end;
        }
        /* No newline in the window. */
        if (r->end - r->start > r->max_line + 1) {
            r->line_number++;
            goto too_long;
        }
        if (r->pending)
            return r->err.code = r->pending;
        if (r->eof) {
            if (r->start < r->end) { /* final line without newline */
                size_t len = r->end - r->start;
                r->line_number++;
                if (len > r->max_line)
                    goto too_long;
                line->data = w + r->start;
                line->len = len;
                line->eol_len = 0;
                line->number = r->line_number;
                line->source = r->source.data;
                r->start = r->scan = r->end;
                return LOGTK_OK;
            }
            if (r->kind != SOURCE_ARCHIVE || !r->ar_in_member) {
                r->finished = 1;
                return LOGTK_DONE;
            }
            r->ar_in_member = 0;
            if (!r->ar_multi) {
                r->finished = 1;
                return LOGTK_DONE;
            }
            int rc = next_member(r);
            if (rc == LOGTK_DONE) {
                r->finished = 1;
                return LOGTK_DONE;
            }
            if (rc < 0)
                return rc;
            r->start = r->end = r->scan = 0;
            continue;
        }
        int rc = fill(r);
        if (rc < 0) {
            if (rc == LOGTK_ERR_NOMEM)
                return rc;
            /* Deliver what is complete before reporting the damage; an
             * unfinished last line is not complete, so it is dropped. */
            r->pending = rc;
            r->err.code = LOGTK_OK; /* not sticky until the buffered lines are out */
            r->eof = 1;
            const char *last = r->end > r->start
                                   ? memrchr(r->win + r->start, '\n', r->end - r->start)
                                   : NULL;
            r->end = last ? (size_t)(last - r->win) + 1 : r->start;
            r->scan = r->start;
        }
    }

too_long:
    return logtk_error_set(&r->err, LOGTK_ERR_LINE_TOO_LONG, "%s:%llu: line longer than %zu bytes",
                           r->source.data, (unsigned long long)r->line_number, r->max_line);
}
