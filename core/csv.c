/*
 * csv.c - RFC 4180 CSV records (Loghub ground truth and label files).
 *
 * The input comes through the line reader, so compressed and archived CSV
 * work and line numbers in messages are physical lines.  A record is parsed
 * field by field with a small state machine: an unquoted field runs to the
 * next comma; a quoted field runs to a quote that is not doubled, and may
 * continue over line breaks, in which case the line's own terminator (LF or
 * CRLF, exactly as in the file) becomes part of the value.  Loghub's Mac
 * ground truth depends on this: 2,000 records on 2,007 physical lines.
 *
 * All field bytes of a record are copied into one reused buffer and the
 * slices are made only when the record is complete, because the buffer may
 * move while a multi-line record grows; after the first few records nothing
 * is allocated.  Anything RFC 4180 does not allow (a quote inside an unquoted
 * field, text after a closing quote, a file ending inside quotes) is
 * LOGTK_ERR_DATA naming the file and line, rather than a guess; so is a
 * record longer than LOGTK_DEFAULT_MAX_LINE, the reader's bound on a line.  A UTF-8 byte
 * order mark at the start of the file is skipped.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "logtk.h"
#include "strbuf.h"

struct logtk_csv {
    ltk_errbuf err;
    logtk_reader *reader;
    int open;
    int at_start;           /* no record read yet: skip a BOM */
    uint64_t record_line;   /* physical line where the last record began */
    ltk_strbuf bytes;     /* field bytes of the current record */
    ltk_strbuf open_source; /* source of a line whose quoted field goes on */
    size_t *ends;           /* end offset of each field in bytes */
    logtk_slice *fields;
    size_t cap;             /* capacity of ends and fields */
};

int logtk_csv_new(logtk_csv **out)
{
    logtk_csv *c = calloc(1, sizeof *c);
    *out = c;
    if (!c)
        return LOGTK_ERR_NOMEM;
    if (logtk_reader_new(&c->reader) != LOGTK_OK) {
        free(c);
        *out = NULL;
        return LOGTK_ERR_NOMEM;
    }
    return LOGTK_OK;
}

void logtk_csv_free(logtk_csv *c)
{
    if (!c)
        return;
    logtk_reader_free(c->reader);
    ltk_strbuf_free(&c->bytes);
    ltk_strbuf_free(&c->open_source);
    free(c->ends);
    free(c->fields);
    free(c);
}

const char *logtk_csv_errmsg(const logtk_csv *c)
{
    return ltk_error_text(&c->err);
}

uint64_t logtk_csv_line(const logtk_csv *c)
{
    return c->record_line;
}

static int opened(logtk_csv *c, int rc)
{
    c->record_line = 0;
    c->at_start = 1;
    c->open = rc == LOGTK_OK;
    if (rc != LOGTK_OK)
        return ltk_error_set(&c->err, rc, "%s", logtk_reader_errmsg(c->reader));
    return LOGTK_OK;
}

int logtk_csv_open_path(logtk_csv *c, const char *path)
{
    ltk_error_clear(&c->err);
    return opened(c, logtk_reader_open_path(c->reader, path));
}

int logtk_csv_open_memory(logtk_csv *c, const void *buf, size_t len, const char *name)
{
    ltk_error_clear(&c->err);
    return opened(c, logtk_reader_open_memory(c->reader, buf, len, name));
}

static int end_field(logtk_csv *c, size_t *nfields)
{
    if (*nfields == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;
        size_t *e = realloc(c->ends, cap * sizeof *e);
        if (e)
            c->ends = e;
        logtk_slice *s = realloc(c->fields, cap * sizeof *s);
        if (s)
            c->fields = s;
        if (!e || !s)
            return ltk_error_set(&c->err, LOGTK_ERR_NOMEM, "out of memory");
        c->cap = cap;
    }
    c->ends[(*nfields)++] = c->bytes.len;
    return LOGTK_OK;
}

int logtk_csv_next(logtk_csv *c, const logtk_slice **fields, size_t *nfields)
{
    *fields = NULL;
    *nfields = 0;
    if (!c->open)
        return ltk_error_set(&c->err, LOGTK_ERR_INVALID, "CSV reader has no open file");
    logtk_line line;
    int rc = logtk_reader_next(c->reader, &line);
    if (rc == LOGTK_DONE)
        return LOGTK_DONE;
    if (rc != LOGTK_OK)
        return ltk_error_set(&c->err, rc, "%s", logtk_reader_errmsg(c->reader));

    const char *p = line.data, *end = line.data + line.len;
    if (c->at_start) {
        c->at_start = 0;
        if (line.len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
            p += 3;
    }
    c->record_line = line.number;
    ltk_strbuf_clear(&c->bytes);
    if (ltk_strbuf_reserve(&c->bytes, 64) != 0) /* slices never point at NULL */
        return ltk_error_set(&c->err, LOGTK_ERR_NOMEM, "out of memory");
    size_t n = 0;
    for (;;) { /* one field per iteration; p is at its first byte */
        if (p < end && *p == '"') {
            p++;
            for (;;) {
                const char *q = memchr(p, '"', (size_t)(end - p));
                if (!q) { /* the quoted field goes on over the line break */
                    if (ltk_strbuf_append(&c->bytes, p, (size_t)(end - p)) != 0 ||
                        ltk_strbuf_append(&c->bytes, end, line.eol_len) != 0)
                        return ltk_error_set(&c->err, LOGTK_ERR_NOMEM, "out of memory");
                    /* a record is bounded as a line is: a quote never closed
                       in a file of millions of short lines (a compressed one
                       expands a few kilobytes to them) is an error, not a
                       field of gigabytes */
                    if (c->bytes.len > LOGTK_DEFAULT_MAX_LINE)
                        return ltk_error_set(&c->err, LOGTK_ERR_DATA,
                                               "%s:%llu: quoted field longer than %zu bytes (is "
                                               "its closing quote missing?)",
                                               line.source, (unsigned long long)c->record_line,
                                               (size_t)LOGTK_DEFAULT_MAX_LINE);
                    /* The reader reuses its source name for the next archive
                       member: keep this one for the message. */
                    ltk_strbuf_clear(&c->open_source);
                    if (ltk_strbuf_puts(&c->open_source, line.source) != 0)
                        return ltk_error_set(&c->err, LOGTK_ERR_NOMEM, "out of memory");
                    uint64_t previous = line.number;
                    if (line.eol_len == 0) /* the reader's final line had no terminator */
                        rc = LOGTK_DONE;
                    else
                        rc = logtk_reader_next(c->reader, &line);
                    if (rc == LOGTK_OK && line.number != previous + 1)
                        rc = LOGTK_DONE; /* the next member of an archive began */
                    if (rc == LOGTK_DONE)
                        return ltk_error_set(&c->err, LOGTK_ERR_DATA,
                                               "%s:%llu: quoted field not closed before the end of "
                                               "the file",
                                               c->open_source.data,
                                               (unsigned long long)c->record_line);
                    if (rc != LOGTK_OK)
                        return ltk_error_set(&c->err, rc, "%s",
                                               logtk_reader_errmsg(c->reader));
                    p = line.data;
                    end = line.data + line.len;
                    continue;
                }
                if (ltk_strbuf_append(&c->bytes, p, (size_t)(q - p)) != 0)
                    return ltk_error_set(&c->err, LOGTK_ERR_NOMEM, "out of memory");
                p = q + 1;
                if (p < end && *p == '"') { /* a doubled quote */
                    if (ltk_strbuf_putc(&c->bytes, '"') != 0)
                        return ltk_error_set(&c->err, LOGTK_ERR_NOMEM, "out of memory");
                    p++;
                    continue;
                }
                break;
            }
            if (p < end && *p != ',')
                return ltk_error_set(&c->err, LOGTK_ERR_DATA,
                                       "%s:%llu: unexpected character after a closing quote "
                                       "(column %zu)",
                                       line.source, (unsigned long long)line.number,
                                       (size_t)(p - line.data) + 1);
        } else {
            const char *q = p;
            while (q < end && *q != ',' && *q != '"')
                q++;
            if (q < end && *q == '"')
                return ltk_error_set(&c->err, LOGTK_ERR_DATA,
                                       "%s:%llu: quote inside an unquoted field (column %zu)",
                                       line.source, (unsigned long long)line.number,
                                       (size_t)(q - line.data) + 1);
            if (ltk_strbuf_append(&c->bytes, p, (size_t)(q - p)) != 0)
                return ltk_error_set(&c->err, LOGTK_ERR_NOMEM, "out of memory");
            p = q;
        }
        if ((rc = end_field(c, &n)) != LOGTK_OK)
            return rc;
        if (p >= end)
            break;
        p++; /* the comma */
    }
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        c->fields[i].ptr = c->bytes.data + start;
        c->fields[i].len = c->ends[i] - start;
        start = c->ends[i];
    }
    *fields = c->fields;
    *nfields = n;
    return LOGTK_OK;
}
