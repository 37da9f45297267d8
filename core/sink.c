/*
 * sink.c - the generic part of structured output sinks.
 *
 * A sink turns parsed lines (logtk_row) into rows of one output kind.  This
 * file holds what the kinds share, so each kind (sink_text.c, sink_sqlite.c)
 * is only its encoding:
 *  - the output file, always written through core/outfile.h: a temporary file
 *    next to the target, renamed into place only by a successful
 *    logtk_sink_close().  A run that fails half-way (bad input, full disk,
 *    Ctrl-C before close) therefore never replaces a good file;
 *  - copies of the format's field names, so the caller may free the format;
 *  - a sticky error: once a write fails every later call returns the same
 *    error, and close refuses to commit, so a caller that checks only the
 *    final close still cannot publish a truncated file;
 *  - UTF-8 validation and base64, which the JSON Lines and SQLite kinds use to
 *    stay lossless on bytes that are not UTF-8.
 * Rows are assembled in a reused buffer and written with one fwrite, so the
 * hot path allocates nothing once the buffer has seen the longest row.
 *
 * A sink writing a file of its own (the temporary file; not stdout, which
 * other writers share, nor a device or pipe, nor a sink flushed per row)
 * lets the rows collect in that buffer up to SINK_BLOCK bytes and hands each
 * full block to a writer thread (sink_writer.c), so the copy into the page
 * cache overlaps the formatting of the next block instead of following it.
 * Everything that touches the file first drains the blocks (sink_drain).
 */
#include "config.h"
#include "sink_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const ltk_sink_ops *const sink_kinds[] = {
    &ltk_sink_tsv_ops,
    &ltk_sink_csv_ops,
    &ltk_sink_jsonl_ops,
    &ltk_sink_sqlite_ops,
    &ltk_sink_templates_ops,
};
#define SINK_KIND_COUNT (sizeof sink_kinds / sizeof sink_kinds[0])

const char *logtk_sink_kind_name(size_t i)
{
    return i < SINK_KIND_COUNT ? sink_kinds[i]->kind : NULL;
}

int ltk_sink_nomem(logtk_sink *s)
{
    return ltk_error_set(&s->err, LOGTK_ERR_NOMEM, "%s: out of memory", s->display_path);
}

/* Rows of a batched sink go out in blocks of at least this many bytes. */
#define SINK_BLOCK ((size_t)1 << 18)

static int sink_io_error(logtk_sink *s, int e)
{
    return ltk_error_set(&s->err, LOGTK_ERR_IO, "%s: %s", s->display_path,
                           strerror(e ? e : EIO));
}

/* A batched sink's full block: to the writer thread (started with the first
 * block), or written here when no thread can be had. */
static int sink_put_block(logtk_sink *s)
{
    if (s->writer == NULL && !s->writer_failed) {
        s->writer = ltk_sink_writer_start(s->out.fp);
        s->writer_failed = s->writer == NULL;
    }
    if (s->writer) {
        int e = ltk_sink_writer_put(s->writer, &s->row);
        ltk_strbuf_clear(&s->row);
        return e ? sink_io_error(s, e) : LOGTK_OK;
    }
    size_t n = s->row.len;
    errno = 0;
    int e = n && fwrite(s->row.data, 1, n, s->out.fp) != n ? (errno ? errno : EIO) : 0;
    ltk_strbuf_clear(&s->row);
    return e ? sink_io_error(s, e) : LOGTK_OK;
}

/* Writes the rows a batched sink still holds and stops its writer thread, so
 * the file is complete and the caller may use it. */
static int sink_drain(logtk_sink *s)
{
    int e = ltk_sink_writer_stop(s->writer);
    s->writer = NULL;
    if (e) {
        ltk_strbuf_clear(&s->row);
        return sink_io_error(s, e);
    }
    if (!s->batch || s->row.len == 0)
        return LOGTK_OK;
    s->writer_failed = 1; /* the last bytes are written here */
    int rc = sink_put_block(s);
    s->writer_failed = 0;
    return rc;
}

/* Marks the sink failed with status rc (its message already set) and drops the output. */
static int sink_fail(logtk_sink *s, int rc)
{
    s->failed = 1;
    ltk_sink_writer_stop(s->writer); /* its error, if any, comes second */
    s->writer = NULL;
    ltk_strbuf_clear(&s->row);
    if (s->ops && s->ops->release && s->impl) {
        s->ops->release(s);
    }
    if (s->open) {
        if (s->out.fp)
            ltk_outfile_abort(&s->out);
        s->open = 0;
    }
    return rc;
}

/* The part of every constructor before the output opens: kind, field names. */
static int sink_setup(logtk_sink **out, const char *kind, const char *display,
                      const logtk_format *format)
{
    if (out == NULL)
        return LOGTK_ERR_INVALID;
    *out = NULL;
    logtk_sink *s = calloc(1, sizeof *s);
    if (s == NULL)
        return LOGTK_ERR_NOMEM;
    *out = s;
    ltk_arena_init(&s->arena, 4096);
    s->display_path = ltk_arena_strndup(&s->arena, display, strlen(display));
    if (s->display_path == NULL) {
        s->display_path = "<output>";
        s->failed = 1;
        return ltk_sink_nomem(s);
    }

    for (size_t i = 0; i < SINK_KIND_COUNT; i++)
        if (kind && strcasecmp(kind, sink_kinds[i]->kind) == 0)
            s->ops = sink_kinds[i];
    if (s->ops == NULL) {
        s->failed = 1;
        return ltk_error_set(&s->err, LOGTK_ERR_NOT_FOUND,
                               "unknown output kind '%s' (known: tsv, csv, jsonl, sqlite, templates)",
                               kind ? kind : "(null)");
    }

    s->nfields = format ? logtk_format_field_count(format) : 0;
    if (s->nfields) {
        s->field_names = ltk_arena_alloc(&s->arena, s->nfields * sizeof *s->field_names);
        if (s->field_names == NULL) {
            s->failed = 1;
            return ltk_sink_nomem(s);
        }
        for (size_t i = 0; i < s->nfields; i++) {
            const char *name = logtk_format_field_name(format, i);
            if (name == NULL)
                name = "";
            s->field_names[i] = ltk_arena_strndup(&s->arena, name, strlen(name));
            if (s->field_names[i] == NULL) {
                s->failed = 1;
                return ltk_sink_nomem(s);
            }
        }
    }
    return LOGTK_OK;
}

int logtk_sink_new(logtk_sink **out, const char *kind, const char *path,
                   const logtk_format *format)
{
    int to_stdout = path == NULL || strcmp(path, "-") == 0;
    int rc = sink_setup(out, kind, to_stdout ? "<stdout>" : path, format);
    if (rc != LOGTK_OK)
        return rc;
    logtk_sink *s = *out;
    if (s->ops->needs_file && to_stdout) {
        s->failed = 1;
        return ltk_error_set(&s->err, LOGTK_ERR_INVALID,
                               "%s output cannot go to standard output: name a file", s->ops->kind);
    }
    rc = ltk_outfile_open(&s->out, path, &s->err);
    if (rc != LOGTK_OK) {
        s->failed = 1;
        return rc;
    }
    s->open = 1;
    if (s->ops->needs_file && s->out.tmp_path == NULL) {
        ltk_error_set(&s->err, LOGTK_ERR_INVALID,
                        "%s: %s output needs a regular file, not a device or pipe", path,
                        s->ops->kind);
        return sink_fail(s, LOGTK_ERR_INVALID);
    }
    s->batch = s->out.tmp_path != NULL && !s->ops->needs_file;
    rc = s->ops->begin(s);
    if (rc != LOGTK_OK)
        return sink_fail(s, rc);
    return LOGTK_OK;
}

/* Callback and memory sinks: no file to open; the header goes out now. */
static int sink_new_unfiled(logtk_sink **out, const char *kind, const logtk_format *format,
                            logtk_write_callback cb, void *user, const char *display)
{
    int rc = sink_setup(out, kind, display, format);
    if (rc != LOGTK_OK)
        return rc;
    logtk_sink *s = *out;
    if (s->ops->needs_file) {
        s->failed = 1;
        return ltk_error_set(&s->err, LOGTK_ERR_INVALID, "%s output needs a file, not %s",
                               s->ops->kind, display);
    }
    s->callback = cb;
    s->callback_user = user;
    s->to_memory = cb == NULL;
    s->open = 1;
    rc = s->ops->begin(s);
    if (rc != LOGTK_OK)
        return sink_fail(s, rc);
    return LOGTK_OK;
}

int logtk_sink_new_callback(logtk_sink **out, const char *kind, logtk_write_callback cb,
                            void *user, const logtk_format *format)
{
    if (cb == NULL) {
        if (out)
            *out = NULL;
        return LOGTK_ERR_INVALID;
    }
    return sink_new_unfiled(out, kind, format, cb, user, "<callback>");
}

int logtk_sink_new_memory(logtk_sink **out, const char *kind, const logtk_format *format)
{
    return sink_new_unfiled(out, kind, format, NULL, NULL, "<memory>");
}

int logtk_sink_memory_take(logtk_sink *s, logtk_slice *bytes)
{
    if (s == NULL || bytes == NULL || !s->to_memory)
        return LOGTK_ERR_INVALID;
    if (s->memory_taken)
        ltk_strbuf_clear(&s->memory);
    bytes->ptr = s->memory.data ? s->memory.data : "";
    bytes->len = s->memory.len;
    s->memory_taken = 1;
    return LOGTK_OK;
}

int logtk_sink_set_flush(logtk_sink *s, int every_row)
{
    if (s == NULL)
        return LOGTK_ERR_INVALID;
    if (every_row && !s->flush_each_row && !s->failed && s->open) {
        /* from now on each row is written at once: the rows held go first */
        int rc = sink_drain(s);
        if (rc == LOGTK_OK && s->batch && fflush(s->out.fp) != 0)
            rc = sink_io_error(s, errno);
        if (rc != LOGTK_OK)
            return sink_fail(s, rc);
    }
    s->flush_each_row = every_row != 0;
    return LOGTK_OK;
}

int ltk_sink_emit_row(logtk_sink *s)
{
    size_t n = s->row.len;
    if (s->callback || s->to_memory) {
        int failed;
        if (s->to_memory) {
            if (s->memory_taken) {
                ltk_strbuf_clear(&s->memory);
                s->memory_taken = 0;
            }
            failed = n && ltk_strbuf_append(&s->memory, s->row.data, n) != 0;
        } else {
            failed = n && s->callback(s->callback_user, s->row.data, n) != 0;
        }
        ltk_strbuf_clear(&s->row);
        if (failed)
            return s->to_memory ? ltk_sink_nomem(s)
                                : ltk_error_set(&s->err, LOGTK_ERR_IO,
                                                  "<callback>: the write function failed");
        return LOGTK_OK;
    }
    if (s->batch && !s->flush_each_row)
        return n < SINK_BLOCK ? LOGTK_OK : sink_put_block(s);
    if (n && fwrite(s->row.data, 1, n, s->out.fp) != n) {
        int e = errno;
        ltk_strbuf_clear(&s->row);
        return ltk_error_set(&s->err, LOGTK_ERR_IO, "%s: %s", s->display_path,
                               strerror(e ? e : EIO));
    }
    ltk_strbuf_clear(&s->row);
    if (s->flush_each_row && fflush(s->out.fp) != 0) {
        int e = errno;
        return ltk_error_set(&s->err, LOGTK_ERR_IO, "%s: %s", s->display_path,
                               strerror(e ? e : EIO));
    }
    return LOGTK_OK;
}

/* The status to return from a call on a sink that cannot write any more. */
static int sink_unusable(logtk_sink *s)
{
    if (s->err.code < 0)
        return s->err.code;
    return ltk_error_set(&s->err, LOGTK_ERR_INVALID, "%s: sink already closed",
                           s->display_path);
}

int logtk_sink_write(logtk_sink *s, const logtk_row *row)
{
    if (s == NULL || row == NULL)
        return LOGTK_ERR_INVALID;
    if (s->failed || !s->open)
        return sink_unusable(s);
    int rc = s->ops->write_row(s, row);
    if (rc != LOGTK_OK)
        return sink_fail(s, rc);
    return LOGTK_OK;
}

int logtk_sink_write_template(logtk_sink *s, uint32_t template_id, logtk_slice text,
                              uint64_t count)
{
    if (s == NULL)
        return LOGTK_ERR_INVALID;
    if (s->failed || !s->open)
        return sink_unusable(s);
    if (s->ops->write_template == NULL)
        return LOGTK_OK;
    int rc = s->ops->write_template(s, template_id, text, count);
    if (rc != LOGTK_OK)
        return sink_fail(s, rc);
    return LOGTK_OK;
}

int logtk_sink_close(logtk_sink *s)
{
    if (s == NULL)
        return LOGTK_ERR_INVALID;
    if (s->closed)
        return LOGTK_OK;
    if (s->failed || !s->open)
        return sink_unusable(s);
    int rc = s->ops->finish ? s->ops->finish(s) : LOGTK_OK;
    if (rc == LOGTK_OK)
        rc = sink_drain(s);
    if (rc != LOGTK_OK)
        return sink_fail(s, rc);
    if (s->ops->release) {
        s->ops->release(s);
    }
    s->open = 0;
    if (s->callback || s->to_memory) {
        s->closed = 1;
        return LOGTK_OK;
    }
    rc = ltk_outfile_commit(&s->out, &s->err);
    if (rc != LOGTK_OK) {
        s->failed = 1;
        return rc;
    }
    s->closed = 1;
    return LOGTK_OK;
}

const char *logtk_sink_errmsg(const logtk_sink *s)
{
    if (s == NULL)
        return "no sink";
    return ltk_error_text(&s->err);
}

void logtk_sink_free(logtk_sink *s)
{
    if (s == NULL)
        return;
    if (s->ops && s->ops->release && s->impl)
        s->ops->release(s);
    ltk_sink_writer_stop(s->writer); /* before the file it writes is closed */
    s->writer = NULL;
    if (s->open && s->out.fp)
        ltk_outfile_abort(&s->out);
    ltk_strbuf_free(&s->row);
    ltk_strbuf_free(&s->memory);
    ltk_strbuf_free(&s->scratch);
    ltk_arena_free(&s->arena);
    free(s);
}

/* ------------------------------------------------------------------ UTF-8 */

size_t ltk_utf8_sequence_length(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    if (c < 0x80)
        return 1;
    size_t avail = (size_t)(end - p);
    if (c >= 0xC2 && c <= 0xDF) {
        return avail >= 2 && (p[1] & 0xC0) == 0x80 ? 2 : 0;
    }
    if (c >= 0xE0 && c <= 0xEF) {
        if (avail < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80)
            return 0;
        if (c == 0xE0 && p[1] < 0xA0) /* overlong */
            return 0;
        if (c == 0xED && p[1] >= 0xA0) /* UTF-16 surrogates */
            return 0;
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (avail < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 ||
            (p[3] & 0xC0) != 0x80)
            return 0;
        if (c == 0xF0 && p[1] < 0x90) /* overlong */
            return 0;
        if (c == 0xF4 && p[1] >= 0x90) /* past U+10FFFF */
            return 0;
        return 4;
    }
    return 0; /* continuation byte, C0/C1 overlong lead, F5..FF */
}

int ltk_utf8_valid(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    while (p < end) {
        /* ASCII fast path, eight bytes at a time. */
        while (end - p >= 8) {
            uint64_t w;
            memcpy(&w, p, 8);
            if (w & 0x8080808080808080ull)
                break;
            p += 8;
        }
        if (p >= end)
            break;
        size_t k = ltk_utf8_sequence_length(p, end);
        if (k == 0)
            return 0;
        p += k;
    }
    return 1;
}

/* ----------------------------------------------------------------- base64 */

int ltk_base64_append(ltk_strbuf *b, const void *data, size_t n)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *p = data;
    size_t out_len = (n + 2) / 3 * 4;
    if (ltk_strbuf_reserve(b, out_len) != 0)
        return -1;
    char *o = b->data + b->len;
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        *o++ = alphabet[v >> 18];
        *o++ = alphabet[(v >> 12) & 63];
        *o++ = alphabet[(v >> 6) & 63];
        *o++ = alphabet[v & 63];
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)p[i] << 16;
        *o++ = alphabet[v >> 18];
        *o++ = alphabet[(v >> 12) & 63];
        *o++ = '=';
        *o++ = '=';
    } else if (n - i == 2) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8;
        *o++ = alphabet[v >> 18];
        *o++ = alphabet[(v >> 12) & 63];
        *o++ = alphabet[(v >> 6) & 63];
        *o++ = '=';
    }
    b->len += out_len;
    b->data[b->len] = '\0';
    return 0;
}
