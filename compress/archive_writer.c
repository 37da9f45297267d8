/*
 * archive_writer.c - streaming archive writer: bytes in, blocks out.
 *
 * Input arrives as arbitrary byte chunks (no line framing is assumed, so
 * binary files and a missing final newline need no special case).  The
 * writer cuts the stream into blocks of whole lines at the block limits
 * (lines or bytes, whichever comes first; a single line longer than the byte
 * limit makes a block of its own), so memory is bounded by the block size
 * times the thread count, not by the input.  With T threads, T blocks are
 * collected and encoded in parallel, then written in input order, so the
 * archive is byte-identical whatever T is.  Every block gets a header with
 * its line range and checksums; close() appends the block index (footer) and
 * commits the output (temporary file renamed into place via core/outfile.h).
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "archive_format.h"
#include "archive_index.h"
#include "outfile.h"

#define MAX_THREADS 64

typedef struct block_job {
    logtk_strbuf text;
    logtk_strbuf payload;
    uint32_t nlines;
    int rc;
    ltka_encoder *enc;
} block_job;

struct logtk_archive_writer {
    logtk_errbuf err;
    int level;
    int threads;
    size_t block_lines;
    size_t block_bytes;
    int open;
    logtk_outfile out;
    logtk_write_callback cb;
    void *cb_user;
    uint64_t offset;     /* bytes written so far */
    uint64_t lines_done; /* lines in blocks written */
    block_job jobs[MAX_THREADS];
    int njobs;          /* filled jobs waiting for encoding */
    size_t cur_lines;   /* complete lines in jobs[njobs].text */
    size_t cur_scan;    /* bytes of jobs[njobs].text already scanned for newlines */
    ltka_index index;
};

int logtk_archive_writer_new(logtk_archive_writer **out)
{
    logtk_archive_writer *w = calloc(1, sizeof *w);
    *out = w;
    if (!w)
        return LOGTK_ERR_NOMEM;
    w->level = LOGTK_ARCHIVE_DEFAULT_LEVEL;
    w->threads = 1;
    w->block_lines = LTKA_DEFAULT_BLOCK_LINES;
    w->block_bytes = LTKA_DEFAULT_BLOCK_BYTES;
    return LOGTK_OK;
}

static int parse_size(const char *value, size_t lo, size_t hi, size_t *out)
{
    char *end;
    unsigned long long v = strtoull(value, &end, 10);
    if (end == value || *end != '\0' || v < lo || v > hi || value[0] == '-')
        return -1;
    *out = (size_t)v;
    return 0;
}

int logtk_archive_writer_set_option(logtk_archive_writer *w, const char *name, const char *value)
{
    size_t v;
    if (w->open)
        return logtk_error_set(&w->err, LOGTK_ERR_INVALID, "options must be set before opening");
    if (strcmp(name, "level") == 0) {
        char *end;
        long l = strtol(value, &end, 10);
        if (end == value || *end || l < -7 || l > 22)
            return logtk_error_set(&w->err, LOGTK_ERR_INVALID, "level: '%s' is not in -7..22", value);
        w->level = (int)l;
        return LOGTK_OK;
    }
    if (strcmp(name, "threads") == 0) {
        if (parse_size(value, 1, MAX_THREADS, &v) != 0)
            return logtk_error_set(&w->err, LOGTK_ERR_INVALID, "threads: '%s' is not in 1..%d", value,
                                   MAX_THREADS);
        w->threads = (int)v;
        return LOGTK_OK;
    }
    if (strcmp(name, "block_lines") == 0) {
        if (parse_size(value, 1, 0xFFFFFFF0u, &v) != 0)
            return logtk_error_set(&w->err, LOGTK_ERR_INVALID, "block_lines: bad value '%s'", value);
        w->block_lines = v;
        return LOGTK_OK;
    }
    if (strcmp(name, "block_bytes") == 0) {
        if (parse_size(value, 1, LTKA_MAX_BLOCK_BYTES / 2, &v) != 0)
            return logtk_error_set(&w->err, LOGTK_ERR_INVALID, "block_bytes: bad value '%s'", value);
        w->block_bytes = v;
        return LOGTK_OK;
    }
    return logtk_error_set(&w->err, LOGTK_ERR_NOT_FOUND, "unknown archive option '%s'", name);
}

static int emit(logtk_archive_writer *w, const void *data, size_t len)
{
    if (len == 0)
        return LOGTK_OK;
    if (w->cb) {
        if (w->cb(w->cb_user, data, len) != 0)
            return logtk_error_set(&w->err, LOGTK_ERR_IO, "archive output: write failed");
    } else {
        int rc = logtk_outfile_write(&w->out, data, len, &w->err);
        if (rc != LOGTK_OK)
            return rc;
    }
    w->offset += len;
    return LOGTK_OK;
}

static int start(logtk_archive_writer *w)
{
    uint8_t hdr[LTKA_FILE_HEADER_LEN] = {'L', 'T', 'K', 'A', LTKA_VERSION, 0, 0, 0};
    w->open = 1;
    w->offset = 0;
    w->lines_done = 0;
    w->njobs = 0;
    w->cur_lines = 0;
    w->cur_scan = 0;
    ltka_index_clear(&w->index);
    for (int i = 0; i < w->threads; i++) {
        if (!w->jobs[i].enc) {
            w->jobs[i].enc = ltka_encoder_new(w->level);
            if (!w->jobs[i].enc)
                return logtk_error_set(&w->err, LOGTK_ERR_NOMEM, "out of memory");
        }
        logtk_strbuf_clear(&w->jobs[i].text);
    }
    return emit(w, hdr, sizeof hdr);
}

int logtk_archive_writer_open_path(logtk_archive_writer *w, const char *path)
{
    if (w->open)
        return logtk_error_set(&w->err, LOGTK_ERR_INVALID, "archive writer already open");
    logtk_error_clear(&w->err);
    w->cb = NULL;
    int rc = logtk_outfile_open(&w->out, path, &w->err);
    if (rc != LOGTK_OK)
        return rc;
    rc = start(w);
    if (rc != LOGTK_OK) {
        logtk_outfile_abort(&w->out);
        w->open = 0;
    }
    return rc;
}

int logtk_archive_writer_open_callback(logtk_archive_writer *w, logtk_write_callback cb, void *user)
{
    if (w->open)
        return logtk_error_set(&w->err, LOGTK_ERR_INVALID, "archive writer already open");
    if (!cb)
        return logtk_error_set(&w->err, LOGTK_ERR_INVALID, "no output callback");
    logtk_error_clear(&w->err);
    w->cb = cb;
    w->cb_user = user;
    int rc = start(w);
    if (rc != LOGTK_OK)
        w->open = 0;
    return rc;
}

static void *encode_job(void *arg)
{
    block_job *j = arg;
    logtk_strbuf_clear(&j->payload);
    j->rc = ltka_encode_block(j->enc, j->text.data, j->text.len, &j->payload, &j->nlines);
    return NULL;
}

/* Encodes the filled jobs (in parallel when there are several) and writes them in order. */
static int flush_jobs(logtk_archive_writer *w)
{
    int n = w->njobs;
    if (n == 0)
        return LOGTK_OK;
    pthread_t tids[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    for (int i = 1; i < n; i++)
        started[i] = pthread_create(&tids[i], NULL, encode_job, &w->jobs[i]) == 0;
    encode_job(&w->jobs[0]);
    for (int i = 1; i < n; i++) {
        if (started[i])
            pthread_join(tids[i], NULL);
        else
            encode_job(&w->jobs[i]);
    }
    int rc = LOGTK_OK;
    for (int i = 0; i < n && rc == LOGTK_OK; i++) {
        block_job *j = &w->jobs[i];
        if (j->rc != LOGTK_OK) {
            rc = logtk_error_set(&w->err, j->rc, "encoding block %zu: %s", w->index.count,
                                 logtk_strerror(j->rc));
            break;
        }
        ltka_block_header h = {w->lines_done, j->nlines, (uint32_t)j->text.len,
                               (uint32_t)j->payload.len,
                               ltka_checksum(j->payload.data, j->payload.len)};
        uint8_t hdr[LTKA_BLOCK_HEADER_LEN];
        ltka_block_header_write(hdr, &h);
        if (ltka_index_add(&w->index, w->offset, w->lines_done, j->nlines, j->text.len) != 0)
            return logtk_error_set(&w->err, LOGTK_ERR_NOMEM, "out of memory");
        rc = emit(w, hdr, sizeof hdr);
        if (rc == LOGTK_OK)
            rc = emit(w, j->payload.data, j->payload.len);
        w->lines_done += j->nlines;
        logtk_strbuf_clear(&j->text);
    }
    w->njobs = 0;
    return rc;
}

/* The current job holds a complete block: hand it over (and keep any partial line). */
static int cut_block(logtk_archive_writer *w, size_t cut)
{
    block_job *j = &w->jobs[w->njobs];
    block_job *next_hold = NULL;
    int rc = LOGTK_OK;
    size_t rest = j->text.len - cut;
    /* carry the bytes after the cut into the next job's buffer */
    w->njobs++;
    if (w->njobs == w->threads) {
        /* flushing clears texts; keep the tail first */
        logtk_strbuf tail = LOGTK_STRBUF_INIT;
        if (rest && logtk_strbuf_append(&tail, j->text.data + cut, rest) != 0)
            return logtk_error_set(&w->err, LOGTK_ERR_NOMEM, "out of memory");
        j->text.len = cut;
        rc = flush_jobs(w);
        next_hold = &w->jobs[0];
        if (rc == LOGTK_OK && rest && logtk_strbuf_append(&next_hold->text, tail.data, rest) != 0)
            rc = logtk_error_set(&w->err, LOGTK_ERR_NOMEM, "out of memory");
        logtk_strbuf_free(&tail);
    } else {
        next_hold = &w->jobs[w->njobs];
        logtk_strbuf_clear(&next_hold->text);
        if (rest && logtk_strbuf_append(&next_hold->text, j->text.data + cut, rest) != 0)
            return logtk_error_set(&w->err, LOGTK_ERR_NOMEM, "out of memory");
        j->text.len = cut;
    }
    w->cur_lines = 0;
    w->cur_scan = 0;
    return rc;
}

int logtk_archive_writer_write(logtk_archive_writer *w, const void *data, size_t len)
{
    if (!w->open)
        return logtk_error_set(&w->err, LOGTK_ERR_INVALID, "archive writer not open");
    const char *p = data;
    while (len > 0) {
        block_job *j = &w->jobs[w->njobs];
        /* take input up to the next newline, or all of it */
        const char *nl = memchr(p, '\n', len);
        size_t take = nl ? (size_t)(nl - p) + 1 : len;
        if (j->text.len + take > LTKA_MAX_BLOCK_BYTES)
            return logtk_error_set(&w->err, LOGTK_ERR_LINE_TOO_LONG,
                                   "line %llu longer than %zu bytes",
                                   (unsigned long long)(w->lines_done + w->cur_lines + 1),
                                   (size_t)LTKA_MAX_BLOCK_BYTES / 2);
        if (logtk_strbuf_append(&j->text, p, take) != 0)
            return logtk_error_set(&w->err, LOGTK_ERR_NOMEM, "out of memory");
        p += take;
        len -= take;
        if (nl) {
            w->cur_lines++;
            if (w->cur_lines >= w->block_lines || j->text.len >= w->block_bytes) {
                int rc = cut_block(w, j->text.len);
                if (rc != LOGTK_OK)
                    return rc;
            }
        }
    }
    return LOGTK_OK;
}

int logtk_archive_writer_close(logtk_archive_writer *w)
{
    if (!w->open)
        return logtk_error_set(&w->err, LOGTK_ERR_INVALID, "archive writer not open");
    int rc = LOGTK_OK;
    if (w->jobs[w->njobs].text.len > 0)
        w->njobs++;
    rc = flush_jobs(w);
    if (rc == LOGTK_OK) {
        logtk_strbuf footer = LOGTK_STRBUF_INIT;
        if (ltka_index_serialize(&w->index, &footer) != 0)
            rc = logtk_error_set(&w->err, LOGTK_ERR_NOMEM, "out of memory");
        else
            rc = emit(w, footer.data, footer.len);
        logtk_strbuf_free(&footer);
    }
    w->open = 0;
    if (!w->cb) {
        if (rc == LOGTK_OK)
            rc = logtk_outfile_commit(&w->out, &w->err);
        else
            logtk_outfile_abort(&w->out);
    }
    return rc;
}

uint64_t logtk_archive_writer_bytes_written(const logtk_archive_writer *w)
{
    return w->offset;
}

const char *logtk_archive_writer_errmsg(const logtk_archive_writer *w)
{
    return w ? logtk_error_text(&w->err) : "out of memory";
}

void logtk_archive_writer_free(logtk_archive_writer *w)
{
    if (!w)
        return;
    if (w->open && !w->cb)
        logtk_outfile_abort(&w->out);
    for (int i = 0; i < MAX_THREADS; i++) {
        logtk_strbuf_free(&w->jobs[i].text);
        logtk_strbuf_free(&w->jobs[i].payload);
        ltka_encoder_free(w->jobs[i].enc);
    }
    ltka_index_free(&w->index);
    free(w);
}
