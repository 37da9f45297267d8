/*
 * archive_writer.c - streaming archive writer: bytes in, blocks out.
 *
 * Input arrives as arbitrary byte chunks (no line framing is assumed, so
 * binary files and a missing final newline need no special case).  The
 * writer cuts the stream into blocks of whole lines at the block limits
 * (lines or bytes, whichever comes first; a single line longer than the byte
 * limit makes a block of its own).  Where a block ends depends only on the
 * bytes, never on how they were chunked or on the thread count, and blocks
 * encode independently, so the archive is byte-identical for any T.
 *
 * Pipeline (T > 1): the caller's thread only finds block cuts (one memchr
 * per line to count lines; the bytes are copied in one memcpy per chunk),
 * hands each full block to a persistent pool of T encoder threads
 * (block_pool.c), and writes finished blocks in input order while the
 * workers encode the next ones.  At most 2T blocks are in the pool plus the
 * one being filled, so memory is bounded by (2T + 1) x block size whatever
 * the input length; when the pool is full the caller waits for the oldest
 * block, writes it and reuses its buffers.  (The pool takes the next block only when it has
 * room, so the block being filled is never one the workers hold.)  With T = 1 (or when no thread
 * can be started) blocks are encoded in the caller's thread: same bytes.
 *
 * Every block gets a header with its line range and checksums; close()
 * appends the block index (footer) and commits the output (temporary file
 * renamed into place via core/outfile.h).  Errors are sticky: after a failed
 * block (named by its line range) every call fails and close() removes the
 * temporary file, so a half-written archive never replaces a good one.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive_append.h"
#include "archive_container.h"
#include "block_encode.h"
#include "archive_index.h"
#include "block_pool.h"
#include "outfile.h"

#define MAX_THREADS 64

/* One block on its way through the pipeline. */
typedef struct block_job {
    ltk_strbuf text;    /* the block's raw lines */
    ltk_strbuf payload; /* encoded by a worker */
    uint64_t first_line;  /* 0-based number of its first line */
    uint64_t line_count;  /* lines as counted by the cutter (for messages) */
    uint32_t nlines;      /* lines as counted by the encoder */
    ltk_strbuf line_hashes; /* checksums of text's line groups, which a reader checks its decoded lines against */
    int rc;               /* the encoder's status */
} block_job;

struct logtk_archive_writer {
    ltk_errbuf err;
    int level;
    int threads;
    size_t block_lines;
    size_t block_bytes;
    int open;
    int failed; /* sticky error status of the open output, LOGTK_OK when none */
    ltk_outfile out;
    int fd;              /* appending (open_append): the archive itself, else -1 */
    char *append_path;   /* its path, for messages */
    uint64_t appended_after; /* appending: lines the archive held when opened */
    uint64_t bytes_cut;      /* appending: bytes of footer or torn end cut when opened */
    ltk_strbuf carry;      /* flush: the unfinished line moved to the next block */
    logtk_write_callback cb;
    void *cb_user;
    uint64_t offset;     /* bytes written so far */
    uint64_t lines_done; /* lines in blocks written */
    uint64_t lines_cut;  /* lines in blocks handed over for encoding */
    ltk_encoder *encoders[MAX_THREADS]; /* encoder i belongs to worker i (0: inline) */
    block_job *jobs;     /* ring: njobs = 1 inline, 2T + 1 with a pool */
    int njobs;
    int fill;            /* the job being filled */
    size_t cur_lines;    /* complete lines in jobs[fill].text */
    ltk_pool *pool;     /* NULL: encode inline */
    uint64_t blocks_cut; /* blocks handed over */
    char *format;        /* the log's format (option "format"), NULL: none */
    ltk_index index;
};

int logtk_archive_writer_new(logtk_archive_writer **out)
{
    logtk_archive_writer *w = calloc(1, sizeof *w);
    *out = w;
    if (!w)
        return LOGTK_ERR_NOMEM;
    w->level = LOGTK_ARCHIVE_DEFAULT_LEVEL;
    w->threads = 1;
    w->block_lines = LTK_DEFAULT_BLOCK_LINES;
    w->block_bytes = LTK_DEFAULT_BLOCK_BYTES;
    w->fd = -1;
    return LOGTK_OK;
}

static int parse_size(const char *value, size_t lo, size_t hi, size_t *out)
{
    char *end;
    if (value[0] < '0' || value[0] > '9') /* no sign, no space */
        return -1;
    errno = 0;
    unsigned long long v = strtoull(value, &end, 10);
    if (*end != '\0' || errno != 0 || v < lo || v > hi)
        return -1;
    *out = (size_t)v;
    return 0;
}

int logtk_archive_writer_set_option(logtk_archive_writer *w, const char *name, const char *value)
{
    size_t v;
    if (w->open)
        return ltk_error_set(&w->err, LOGTK_ERR_INVALID, "options must be set before opening");
    if (strcmp(name, "level") == 0) {
        char *end;
        long l = strtol(value, &end, 10);
        if (end == value || *end || l < -7 || l > 22)
            return ltk_error_set(&w->err, LOGTK_ERR_INVALID, "level: '%s' is not in -7..22", value);
        if (l != w->level) {
            /* encoders carry their level: make new ones */
            for (int i = 0; i < MAX_THREADS; i++) {
                ltk_encoder_free(w->encoders[i]);
                w->encoders[i] = NULL;
            }
        }
        w->level = (int)l;
        return LOGTK_OK;
    }
    if (strcmp(name, "threads") == 0) {
        if (parse_size(value, 1, MAX_THREADS, &v) != 0)
            return ltk_error_set(&w->err, LOGTK_ERR_INVALID, "threads: '%s' is not in 1..%d", value,
                                   MAX_THREADS);
        w->threads = (int)v;
        return LOGTK_OK;
    }
    if (strcmp(name, "block_lines") == 0) {
        if (parse_size(value, 1, 0xFFFFFFF0u, &v) != 0)
            return ltk_error_set(&w->err, LOGTK_ERR_INVALID, "block_lines: bad value '%s'", value);
        w->block_lines = v;
        return LOGTK_OK;
    }
    if (strcmp(name, "format") == 0) {
        /* compiled here once to report a bad format now; each encoder compiles its own copy */
        logtk_format *f = NULL;
        int rc = logtk_format_new(&f);
        if (rc == LOGTK_OK && value)
            rc = logtk_format_compile(f, value);
        if (rc != LOGTK_OK) {
            ltk_error_set(&w->err, rc, "format: %s", f ? logtk_format_errmsg(f) : "out of memory");
            logtk_format_free(f);
            return rc;
        }
        logtk_format_free(f);
        char *copy = value ? strdup(value) : NULL;
        if (value && !copy)
            return ltk_error_set(&w->err, LOGTK_ERR_NOMEM, "out of memory");
        free(w->format);
        w->format = copy;
        /* encoders carry their format: make new ones */
        for (int i = 0; i < MAX_THREADS; i++) {
            ltk_encoder_free(w->encoders[i]);
            w->encoders[i] = NULL;
        }
        return LOGTK_OK;
    }
    if (strcmp(name, "block_bytes") == 0) {
        if (parse_size(value, 1, LTK_MAX_BLOCK_BYTES / 2, &v) != 0)
            return ltk_error_set(&w->err, LOGTK_ERR_INVALID, "block_bytes: bad value '%s'", value);
        w->block_bytes = v;
        return LOGTK_OK;
    }
    return ltk_error_set(&w->err, LOGTK_ERR_NOT_FOUND, "unknown archive option '%s'", name);
}

/* Records the first error of an open output; later calls return it. */
static int fail(logtk_archive_writer *w, int rc)
{
    if (w->failed == LOGTK_OK)
        w->failed = rc;
    return rc;
}

static int emit(logtk_archive_writer *w, const void *data, size_t len)
{
    if (len == 0)
        return LOGTK_OK;
    if (w->cb) {
        if (w->cb(w->cb_user, data, len) != 0)
            return ltk_error_set(&w->err, LOGTK_ERR_IO, "archive output: write failed");
    } else if (w->fd >= 0) {
        const char *p = data;
        size_t left = len;
        while (left > 0) {
            ssize_t n = write(w->fd, p, left);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return ltk_error_set(&w->err, LOGTK_ERR_IO, "%s: %s", w->append_path,
                                       strerror(n < 0 ? errno : EIO));
            p += n;
            left -= (size_t)n;
        }
    } else {
        int rc = ltk_outfile_write(&w->out, data, len, &w->err);
        if (rc != LOGTK_OK)
            return rc;
    }
    w->offset += len;
    return LOGTK_OK;
}

/* Pool work function: state is the worker's encoder. */
static void encode_job(void *state, void *arg)
{
    block_job *j = arg;
    ltk_strbuf_clear(&j->payload);
    j->rc = ltk_encode_block(state, j->text.data, j->text.len, &j->payload, &j->nlines);
    ltk_strbuf_clear(&j->line_hashes);
    if (j->rc == LOGTK_OK && ltk_line_hashes(j->text.data, j->text.len, j->nlines, &j->line_hashes) != 0)
        j->rc = LOGTK_ERR_NOMEM;
}

static void stop_pool(logtk_archive_writer *w)
{
    ltk_pool_free(w->pool); /* waits for running jobs */
    w->pool = NULL;
}

/* Sets up the pipeline; writes the file header unless with_header is 0 (appending). */
static int start(logtk_archive_writer *w, int with_header)
{
    uint8_t hdr[LTK_FILE_HEADER_LEN] = {'L', 'T', 'K', 'A', LTK_VERSION, 0, 0, 0};
    if (w->fd >= 0)
        hdr[5] = LTK_FLAG_OPEN;
    w->open = 1;
    w->failed = LOGTK_OK;
    w->offset = 0;
    w->lines_done = 0;
    w->lines_cut = 0;
    w->blocks_cut = 0;
    w->cur_lines = 0;
    w->fill = 0;
    ltk_index_clear(&w->index);
    int want_jobs = w->threads > 1 ? 2 * w->threads + 1 : 1;
    if (w->njobs < want_jobs) {
        block_job *jobs = realloc(w->jobs, (size_t)want_jobs * sizeof *jobs);
        if (!jobs)
            return ltk_error_set(&w->err, LOGTK_ERR_NOMEM, "out of memory");
        memset(jobs + w->njobs, 0, (size_t)(want_jobs - w->njobs) * sizeof *jobs);
        w->jobs = jobs;
        w->njobs = want_jobs;
    }
    for (int i = 0; i < w->njobs; i++)
        ltk_strbuf_clear(&w->jobs[i].text);
    for (int i = 0; i < w->threads; i++) {
        if (!w->encoders[i]) {
            if (!(w->encoders[i] = ltk_encoder_new(w->level)))
                return ltk_error_set(&w->err, LOGTK_ERR_NOMEM, "out of memory");
            int rc = ltk_encoder_set_format(w->encoders[i], w->format);
            if (rc != LOGTK_OK)
                return ltk_error_set(&w->err, rc, "format: cannot compile '%s'", w->format);
        }
    }
    if (w->threads > 1)
        w->pool = ltk_pool_new(w->threads, w->njobs - 1, encode_job, (void *const *)w->encoders);
    /* no pool (no threads available): the ring degenerates to one job, encoded inline */
    return with_header ? emit(w, hdr, sizeof hdr) : LOGTK_OK;
}

int logtk_archive_writer_open_path(logtk_archive_writer *w, const char *path)
{
    if (w->open)
        return ltk_error_set(&w->err, LOGTK_ERR_INVALID, "archive writer already open");
    ltk_error_clear(&w->err);
    w->cb = NULL;
    int rc = ltk_outfile_open(&w->out, path, &w->err);
    if (rc != LOGTK_OK)
        return rc;
    rc = start(w, 1);
    if (rc != LOGTK_OK) {
        stop_pool(w);
        ltk_outfile_abort(&w->out);
        w->open = 0;
    }
    return rc;
}

/* fsync that tolerates file systems without it; returns 0 or an errno. */
static int sync_fd(int fd)
{
    if (fsync(fd) != 0 && errno != EINVAL && errno != EROFS)
        return errno ? errno : EIO;
    return 0;
}

static int pwrite_all(int fd, const void *data, size_t len, uint64_t off)
{
    while (len > 0) {
        ssize_t n = pwrite(fd, data, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? errno : EIO;
        data = (const char *)data + n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return 0;
}

int logtk_archive_writer_open_append(logtk_archive_writer *w, const char *path)
{
    if (w->open)
        return ltk_error_set(&w->err, LOGTK_ERR_INVALID, "archive writer already open");
    ltk_error_clear(&w->err);
    w->cb = NULL;
    if (!path || !*path || strcmp(path, "-") == 0)
        return ltk_error_set(&w->err, LOGTK_ERR_INVALID, "appending needs a file name");
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
        return ltk_error_set(&w->err, LOGTK_ERR_IO, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return ltk_error_set(&w->err, LOGTK_ERR_IO, "%s: not a regular file (appending cuts "
                               "and syncs the file)", path);
    }
    /* two writers appending to one archive would interleave their blocks */
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        close(fd);
        return ltk_error_set(&w->err, LOGTK_ERR_IO, "%s: %s", path,
                               e == EWOULDBLOCK ? "another process is appending to it" : strerror(e));
    }
    ltk_append_state found;
    int rc = ltk_append_scan(fd, path, &found, &w->err);
    if (rc != LOGTK_OK) {
        ltk_index_free(&found.index);
        close(fd);
        return rc;
    }
    free(w->append_path);
    if (!(w->append_path = strdup(path))) {
        ltk_index_free(&found.index);
        close(fd);
        return ltk_error_set(&w->err, LOGTK_ERR_NOMEM, "out of memory");
    }
    w->fd = fd;
    rc = start(w, found.empty);
    int e = 0;
    if (rc == LOGTK_OK && !found.empty) {
        /* flag the archive open before its footer (or torn end) goes: a crash
           in between leaves an open archive with a footer, which reads fine */
        static const uint8_t open_mark[2] = {LTK_VERSION, LTK_FLAG_OPEN};
        if (!(e = pwrite_all(fd, open_mark, 2, 4)) && !(e = sync_fd(fd)) &&
            ftruncate(fd, (off_t)found.end) != 0)
            e = errno;
        if (!e && lseek(fd, (off_t)found.end, SEEK_SET) < 0)
            e = errno;
        w->offset = found.end;
        w->lines_done = w->lines_cut = found.lines;
        ltk_index_free(&w->index);
        w->index = found.index;
        found.index.entries = NULL;
        found.index.count = found.index.cap = 0;
    }
    if (rc == LOGTK_OK && !e)
        e = sync_fd(fd);
    if (rc == LOGTK_OK && e)
        rc = ltk_error_set(&w->err, LOGTK_ERR_IO, "%s: %s", path, strerror(e));
    ltk_index_free(&found.index);
    w->appended_after = found.lines;
    w->bytes_cut = found.cut;
    if (rc != LOGTK_OK) {
        stop_pool(w);
        close(fd);
        w->fd = -1;
        w->open = 0;
    }
    return rc;
}

int logtk_archive_writer_open_callback(logtk_archive_writer *w, logtk_write_callback cb, void *user)
{
    if (w->open)
        return ltk_error_set(&w->err, LOGTK_ERR_INVALID, "archive writer already open");
    if (!cb)
        return ltk_error_set(&w->err, LOGTK_ERR_INVALID, "no output callback");
    ltk_error_clear(&w->err);
    w->cb = cb;
    w->cb_user = user;
    int rc = start(w, 1);
    if (rc != LOGTK_OK) {
        stop_pool(w);
        w->open = 0;
    }
    return rc;
}

/* Writes an encoded block (the next one in input order) and frees its buffers for reuse. */
static int write_job(logtk_archive_writer *w, block_job *j)
{
    if (j->rc != LOGTK_OK)
        return ltk_error_set(&w->err, j->rc, "encoding block %zu (lines %llu-%llu): %s",
                               w->index.count + 1, (unsigned long long)j->first_line + 1,
                               (unsigned long long)(j->first_line + j->line_count),
                               logtk_strerror(j->rc));
    ltk_block_header h = {w->lines_done, j->nlines, (uint32_t)j->text.len, (uint32_t)j->payload.len,
                           ltk_checksum32(j->payload.data, j->payload.len),
                           ltk_content_hash((const uint8_t *)j->line_hashes.data, j->line_hashes.len,
                                             j->nlines, (uint32_t)j->text.len),
                           1};
    uint8_t hdr[LTK_BLOCK_HEADER_LEN];
    ltk_block_header_write(hdr, &h);
    if (ltk_index_add(&w->index, w->offset, w->lines_done, j->nlines, j->text.len) != 0)
        return ltk_error_set(&w->err, LOGTK_ERR_NOMEM, "out of memory");
    int rc = emit(w, hdr, sizeof hdr);
    if (rc == LOGTK_OK)
        rc = emit(w, j->payload.data, j->payload.len);
    if (rc == LOGTK_OK)
        rc = emit(w, j->line_hashes.data, j->line_hashes.len);
    /* appending: each block is durable before the next starts, so a crash
       leaves whole blocks and at most one torn one (archive_append.c) */
    int e;
    if (rc == LOGTK_OK && w->fd >= 0 && (e = sync_fd(w->fd)) != 0)
        rc = ltk_error_set(&w->err, LOGTK_ERR_IO, "%s: %s", w->append_path, strerror(e));
    w->lines_done += j->nlines;
    ltk_strbuf_clear(&j->text);
    return rc;
}

/* Writes finished blocks in order; with wait, until none is pending. */
static int drain(logtk_archive_writer *w, int wait)
{
    block_job *j;
    while ((j = ltk_pool_collect(w->pool, wait)) != NULL) {
        int rc = write_job(w, j);
        if (rc != LOGTK_OK)
            return rc;
    }
    return LOGTK_OK;
}

/* jobs[fill] holds a complete block: encode it (inline or in the pool) and move on. */
static int hand_over(logtk_archive_writer *w, uint64_t line_count)
{
    block_job *j = &w->jobs[w->fill];
    j->first_line = w->lines_cut;
    j->line_count = line_count;
    w->blocks_cut++;
    w->lines_cut += line_count;
    w->cur_lines = 0;
    if (!w->pool) {
        encode_job(w->encoders[0], j);
        return write_job(w, j);
    }
    /* write what is finished; when the pool is full, wait for the oldest block first */
    int rc = drain(w, 0);
    while (rc == LOGTK_OK && !ltk_pool_has_room(w->pool))
        rc = write_job(w, ltk_pool_collect(w->pool, 1));
    if (rc != LOGTK_OK)
        return rc;
    /* the pool holds at most njobs - 1 jobs, the last ones submitted: never jobs[fill + 1] */
    ltk_pool_submit(w->pool, j);
    w->fill = (w->fill + 1) % w->njobs;
    return rc;
}

int logtk_archive_writer_write(logtk_archive_writer *w, const void *data, size_t len)
{
    if (!w->open)
        return ltk_error_set(&w->err, LOGTK_ERR_INVALID, "archive writer not open");
    if (w->failed != LOGTK_OK)
        return w->failed;
    const char *p = data, *end = p + len;
    while (p < end) {
        block_job *j = &w->jobs[w->fill];
        /* find the cut: the newline that completes block_lines lines or reaches block_bytes */
        size_t have = j->text.len;
        const char *scan = p, *cut = NULL;
        while (scan < end) {
            const char *nl = memchr(scan, '\n', (size_t)(end - scan));
            if (!nl)
                break;
            scan = nl + 1;
            w->cur_lines++;
            if (w->cur_lines >= w->block_lines || have + (size_t)(scan - p) >= w->block_bytes) {
                cut = scan;
                break;
            }
        }
        size_t take = cut ? (size_t)(cut - p) : (size_t)(end - p);
        if (have + take > LTK_MAX_BLOCK_BYTES)
            return fail(w, ltk_error_set(&w->err, LOGTK_ERR_LINE_TOO_LONG,
                                           "line %llu longer than %zu bytes",
                                           (unsigned long long)(w->lines_cut + w->cur_lines + !cut),
                                           (size_t)LTK_MAX_BLOCK_BYTES / 2));
        /*
         * No room reserved up front: the buffer doubles as the block fills
         * (a few reallocations for the first blocks; the buffers are reused
         * after), so a small input costs a small buffer rather than
         * block_bytes per job (the archive fuzzer ran at 20 inputs a second
         * under AddressSanitizer, mostly clearing 8 MiB buffers).
         */
        if (ltk_strbuf_append(&j->text, p, take) != 0)
            return fail(w, ltk_error_set(&w->err, LOGTK_ERR_NOMEM, "out of memory"));
        p += take;
        if (cut) {
            int rc = hand_over(w, w->cur_lines);
            if (rc != LOGTK_OK)
                return fail(w, rc);
        }
    }
    return LOGTK_OK;
}

int logtk_archive_writer_flush(logtk_archive_writer *w)
{
    if (!w->open)
        return ltk_error_set(&w->err, LOGTK_ERR_INVALID, "archive writer not open");
    if (w->failed != LOGTK_OK)
        return w->failed;
    block_job *j = &w->jobs[w->fill];
    size_t last = j->text.len;
    while (last > 0 && j->text.data[last - 1] != '\n')
        last--;
    int rc = LOGTK_OK;
    if (last > 0) {
        /* the unfinished line (if any) waits for its end in the next block */
        ltk_strbuf_clear(&w->carry);
        if (ltk_strbuf_append(&w->carry, j->text.data + last, j->text.len - last) != 0)
            return fail(w, ltk_error_set(&w->err, LOGTK_ERR_NOMEM, "out of memory"));
        j->text.len = last;
        rc = hand_over(w, w->cur_lines);
        if (rc == LOGTK_OK && w->carry.len > 0 &&
            ltk_strbuf_append(&w->jobs[w->fill].text, w->carry.data, w->carry.len) != 0)
            rc = ltk_error_set(&w->err, LOGTK_ERR_NOMEM, "out of memory");
    }
    if (rc == LOGTK_OK && w->pool)
        rc = drain(w, 1);
    return rc == LOGTK_OK ? rc : fail(w, rc);
}

uint64_t logtk_archive_writer_lines_written(const logtk_archive_writer *w)
{
    return w->lines_done;
}

void logtk_archive_writer_append_info(const logtk_archive_writer *w, uint64_t *lines_before,
                                      uint64_t *bytes_cut)
{
    if (lines_before)
        *lines_before = w->appended_after;
    if (bytes_cut)
        *bytes_cut = w->bytes_cut;
}

int logtk_archive_writer_close(logtk_archive_writer *w)
{
    if (!w->open)
        return ltk_error_set(&w->err, LOGTK_ERR_INVALID, "archive writer not open");
    int rc = w->failed;
    block_job *last = &w->jobs[w->fill];
    if (rc == LOGTK_OK && last->text.len > 0) {
        int partial = last->text.data[last->text.len - 1] != '\n';
        rc = hand_over(w, w->cur_lines + (size_t)partial);
    }
    if (rc == LOGTK_OK && w->pool)
        rc = drain(w, 1);
    stop_pool(w);
    if (rc == LOGTK_OK) {
        ltk_strbuf footer = LTK_STRBUF_INIT;
        if (ltk_index_serialize(&w->index, &footer) != 0)
            rc = ltk_error_set(&w->err, LOGTK_ERR_NOMEM, "out of memory");
        else
            rc = emit(w, footer.data, footer.len);
        ltk_strbuf_free(&footer);
    }
    w->open = 0;
    if (w->fd >= 0) {
        /* the footer is down and synced: the archive is closed (flags 0) */
        static const uint8_t closed_mark[1] = {0};
        int e = 0;
        if (rc == LOGTK_OK && !(e = sync_fd(w->fd)) && !(e = pwrite_all(w->fd, closed_mark, 1, 5)))
            e = sync_fd(w->fd);
        if (rc == LOGTK_OK && e)
            rc = ltk_error_set(&w->err, LOGTK_ERR_IO, "%s: %s", w->append_path, strerror(e));
        close(w->fd); /* on failure the whole blocks stay: appending again goes on from them */
        w->fd = -1;
    } else if (!w->cb) {
        if (rc == LOGTK_OK)
            rc = ltk_outfile_commit(&w->out, &w->err);
        else
            ltk_outfile_abort(&w->out);
    }
    return rc;
}

uint64_t logtk_archive_writer_bytes_written(const logtk_archive_writer *w)
{
    return w->offset;
}

const char *logtk_archive_writer_errmsg(const logtk_archive_writer *w)
{
    return w ? ltk_error_text(&w->err) : "out of memory";
}

void logtk_archive_writer_free(logtk_archive_writer *w)
{
    if (!w)
        return;
    stop_pool(w);
    if (w->fd >= 0)
        close(w->fd); /* appending: the blocks written are kept, never removed */
    else if (w->open && !w->cb)
        ltk_outfile_abort(&w->out);
    ltk_strbuf_free(&w->carry);
    free(w->append_path);
    for (int i = 0; i < w->njobs; i++) {
        ltk_strbuf_free(&w->jobs[i].text);
        ltk_strbuf_free(&w->jobs[i].payload);
        ltk_strbuf_free(&w->jobs[i].line_hashes);
    }
    free(w->jobs);
    for (int i = 0; i < MAX_THREADS; i++)
        ltk_encoder_free(w->encoders[i]);
    ltk_index_free(&w->index);
    free(w->format);
    free(w);
}
