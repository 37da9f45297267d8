/*
 * detect_sessions.c - session sets: loading, labels, splits and metrics.
 *
 * A session set stores every event of every session as a set-local event
 * index (uint32) in one flat array with per-session offsets, so that building
 * count vectors for hundreds of thousands of rows touches contiguous memory
 * and never hashes a string.  Event names are interned once.
 *
 * Sessions can be built two ways: loaded whole from a sessions CSV (append
 * in order, flat at once), or event by event from a log where sessions
 * interleave (HDFS blocks).  The second way records (session, event) pairs
 * and a stable counting sort by session flattens them when the set is next
 * read, which keeps each session's events in log order at O(n) cost.
 *
 * Session and label files are read with the public streaming CSV reader
 * (logtk_csv), so they may be compressed or come from stdin, and malformed
 * records are reported with the file and line it names.
 */
#include "config.h"
#include "detect_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int logtk_sessions_new(logtk_sessions **out)
{
    *out = NULL;
    logtk_sessions *s = calloc(1, sizeof *s);
    if (!s)
        return LOGTK_ERR_NOMEM;
    if (ltk_hashtab_init(&s->ids, 1024) != 0 || ltk_hashtab_init(&s->events, 256) != 0) {
        logtk_sessions_free(s);
        return LOGTK_ERR_NOMEM;
    }
    s->offsets = calloc(1, sizeof *s->offsets);
    if (!s->offsets) {
        logtk_sessions_free(s);
        return LOGTK_ERR_NOMEM;
    }
    s->flat = 1;
    *out = s;
    return LOGTK_OK;
}

void logtk_sessions_free(logtk_sessions *s)
{
    if (!s)
        return;
    ltk_hashtab_free(&s->ids);
    ltk_hashtab_free(&s->events);
    free(s->labels);
    free(s->seq);
    free(s->offsets);
    free(s->pending_event);
    free(s->pending_session);
    free(s);
}

const char *logtk_sessions_errmsg(const logtk_sessions *s)
{
    return s ? ltk_error_text(&s->err) : "no session set";
}

size_t logtk_sessions_count(const logtk_sessions *s)
{
    return s ? s->count : 0;
}

logtk_slice logtk_sessions_id(const logtk_sessions *s, size_t i)
{
    logtk_slice sl = {"", 0};
    if (s && i < s->count) {
        sl.ptr = ltk_hashtab_key(&s->ids, (uint32_t)i, &sl.len);
    }
    return sl;
}

int logtk_sessions_label(const logtk_sessions *s, size_t i)
{
    return s && i < s->count ? s->labels[i] : LOGTK_LABEL_UNKNOWN;
}

size_t logtk_sessions_length(const logtk_sessions *s, size_t i)
{
    if (!s || i >= s->count)
        return 0;
    if (ltk_detect_sessions_flatten((logtk_sessions *)s) != 0)
        return 0;
    return s->offsets[i + 1] - s->offsets[i];
}

logtk_slice logtk_sessions_event(const logtk_sessions *s, size_t i, size_t k)
{
    logtk_slice sl = {"", 0};
    if (!s || i >= s->count || ltk_detect_sessions_flatten((logtk_sessions *)s) != 0)
        return sl;
    if (k >= s->offsets[i + 1] - s->offsets[i])
        return sl;
    sl.ptr = ltk_hashtab_key(&s->events, s->seq[s->offsets[i] + k], &sl.len);
    return sl;
}

int ltk_detect_parse_label(const char *p, size_t n)
{
    static const struct {
        const char *text;
        int label;
    } names[] = {{"Normal", 0}, {"Anomaly", 1}, {"0", 0},          {"1", 1},
                 {"-", 0},      {"normal", 0},  {"anomalous", 1}, {"abnormal", 1}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i].text) == n && strncasecmp(names[i].text, p, n) == 0)
            return names[i].label;
    return -2;
}

/* Adds a session; returns its index, or -1 (no memory), -2 (duplicate id). */
static int64_t add_session(logtk_sessions *s, const char *id, size_t id_len, int allow_existing)
{
    int inserted = 0;
    int64_t k = ltk_hashtab_intern(&s->ids, id, id_len, &inserted);
    if (k < 0)
        return -1;
    if (!inserted)
        return allow_existing ? k : -2;
    if (s->count == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 1024;
        int8_t *labels = realloc(s->labels, cap);
        size_t *offsets = realloc(s->offsets, (cap + 1) * sizeof *offsets);
        if (labels)
            s->labels = labels;
        if (offsets)
            s->offsets = offsets;
        if (!labels || !offsets)
            return -1;
        s->cap = cap;
    }
    s->labels[s->count] = LOGTK_LABEL_UNKNOWN;
    s->offsets[s->count + 1] = s->offsets[s->count];
    s->count++;
    return k;
}

static int seq_reserve(logtk_sessions *s, size_t extra)
{
    if (s->seq_len + extra <= s->seq_cap)
        return 0;
    size_t cap = s->seq_cap ? s->seq_cap : 4096;
    while (cap < s->seq_len + extra)
        cap *= 2;
    uint32_t *seq = realloc(s->seq, cap * sizeof *seq);
    if (!seq)
        return -1;
    s->seq = seq;
    s->seq_cap = cap;
    return 0;
}

int logtk_sessions_append(logtk_sessions *s, const char *id, size_t id_len, const char *event,
                          size_t event_len)
{
    int64_t k = add_session(s, id, id_len, 1);
    int64_t e = k < 0 ? -1 : ltk_hashtab_intern(&s->events, event, event_len, NULL);
    if (k < 0 || e < 0)
        return ltk_error_set(&s->err, LOGTK_ERR_NOMEM, "out of memory");
    if (s->npending == s->pending_cap) {
        size_t cap = s->pending_cap ? s->pending_cap * 2 : 4096;
        uint32_t *pe = realloc(s->pending_event, cap * sizeof *pe);
        if (pe)
            s->pending_event = pe;
        uint32_t *ps = realloc(s->pending_session, cap * sizeof *ps);
        if (ps)
            s->pending_session = ps;
        if (!pe || !ps)
            return ltk_error_set(&s->err, LOGTK_ERR_NOMEM, "out of memory");
        s->pending_cap = cap;
    }
    s->pending_event[s->npending] = (uint32_t)e;
    s->pending_session[s->npending] = (uint32_t)k;
    s->npending++;
    s->flat = 0;
    return LOGTK_OK;
}

int ltk_detect_sessions_flatten(logtk_sessions *s)
{
    if (s->flat || s->npending == 0) {
        s->flat = 1;
        return 0;
    }
    /* Sessions may have been created after the last flatten with no flat
       events: their offsets equal the end.  New layout: old events, then the
       pending ones, per session. */
    size_t n = s->count;
    size_t *newoff = malloc((n + 1) * sizeof *newoff);
    uint32_t *newseq = malloc((s->seq_len + s->npending + 1) * sizeof *newseq);
    if (!newoff || !newseq) {
        free(newoff);
        free(newseq);
        return -1;
    }
    memset(newoff, 0, (n + 1) * sizeof *newoff);
    for (size_t i = 0; i < n; i++)
        newoff[i + 1] = s->offsets[i + 1] - s->offsets[i];
    for (size_t k = 0; k < s->npending; k++)
        newoff[s->pending_session[k] + 1]++;
    for (size_t i = 0; i < n; i++)
        newoff[i + 1] += newoff[i];
    size_t *fill = malloc((n ? n : 1) * sizeof *fill);
    if (!fill) {
        free(newoff);
        free(newseq);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        size_t old = s->offsets[i + 1] - s->offsets[i];
        if (old)
            memcpy(newseq + newoff[i], s->seq + s->offsets[i], old * sizeof *newseq);
        fill[i] = newoff[i] + old;
    }
    for (size_t k = 0; k < s->npending; k++)
        newseq[fill[s->pending_session[k]]++] = s->pending_event[k];
    free(fill);
    free(s->seq);
    free(s->offsets);
    s->seq = newseq;
    s->seq_len = s->seq_cap = newoff[n];
    s->offsets = newoff;
    s->cap = n; /* offsets has exactly n + 1 entries now */
    if (n == 0) {
        /* keep labels consistent with cap */
    }
    {
        int8_t *labels = realloc(s->labels, n ? n : 1);
        if (labels)
            s->labels = labels;
    }
    s->npending = 0;
    s->flat = 1;
    return 0;
}

int logtk_sessions_set_label(logtk_sessions *s, const char *id, size_t id_len, int label)
{
    if (label < LOGTK_LABEL_UNKNOWN || label > LOGTK_LABEL_ANOMALY)
        return ltk_error_set(&s->err, LOGTK_ERR_INVALID, "bad label %d", label);
    int64_t k = ltk_hashtab_find(&s->ids, id, id_len);
    if (k < 0)
        return ltk_error_set(&s->err, LOGTK_ERR_NOT_FOUND, "no session '%.*s'", (int)id_len,
                               id);
    s->labels[k] = (int8_t)label;
    return LOGTK_OK;
}

/* ---------------------------------------------------------------- CSV */

static int find_column(const logtk_slice *fields, size_t nfields, const char *name)
{
    for (size_t i = 0; i < nfields; i++)
        if (fields[i].len == strlen(name) && strncasecmp(fields[i].ptr, name, fields[i].len) == 0)
            return (int)i;
    return -1;
}

/* Opens path with the public CSV reader (compressed files and stdin work). */
static int csv_open(logtk_csv **out, const char *path, ltk_errbuf *err)
{
    if (logtk_csv_new(out) != LOGTK_OK)
        return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    int rc = logtk_csv_open_path(*out, path);
    if (rc != LOGTK_OK) {
        ltk_error_set(err, rc, "%s", logtk_csv_errmsg(*out));
        logtk_csv_free(*out);
        *out = NULL;
    }
    return rc;
}

static int csv_error(ltk_errbuf *err, const logtk_csv *c, int rc)
{
    return ltk_error_set(err, rc, "%s", logtk_csv_errmsg(c));
}

/* The layouts of session files (see logtk_sessions_load_layout). */
enum { LAYOUT_CSV, LAYOUT_ID_EVENTS, LAYOUT_LINES };

static int layout_code(const char *layout)
{
    if (!layout || strcmp(layout, "csv") == 0)
        return LAYOUT_CSV;
    if (strcmp(layout, "id-events") == 0)
        return LAYOUT_ID_EVENTS;
    if (strcmp(layout, "lines") == 0)
        return LAYOUT_LINES;
    return -1;
}

/* An event name as the files write them: letters, digits, '_', '-' (E5,
   bbb51b95, 22).  Raw log lines have '.', ':', '/', '=' ... in nearly every
   line, so a line made only of such names and spaces is a session. */
static int event_char(unsigned char ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
           ch == '_' || ch == '-';
}

/* 1 when p[0..n) is one or more event names separated by spaces (or a
   Python list of them: ['E5', 'E22'], as loglizer writes). */
static int looks_like_events(const char *p, size_t n, int numbers_only)
{
    size_t names = 0;
    for (size_t i = 0; i < n;) {
        while (i < n && (p[i] == ' ' || p[i] == '[' || p[i] == ']' || p[i] == '\'' ||
                         p[i] == ',' || p[i] == '"'))
            i++;
        size_t start = i;
        while (i < n && event_char((unsigned char)p[i]) &&
               (!numbers_only || (p[i] >= '0' && p[i] <= '9')))
            i++;
        if (i > start)
            names++;
        if (i < n && p[i] != ' ' && p[i] != '[' && p[i] != ']' && p[i] != '\'' && p[i] != ',' &&
            p[i] != '"')
            return 0;
    }
    return names > 0;
}

const char *logtk_sessions_sniff(const char *line, size_t len)
{
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        len--;
    if (len == 0)
        return NULL;
    if (memmem(line, len, "EventSequence", 13))
        return "csv";
    /* DeepLog: event numbers only.  Numbers only, so that a line of words
       (a raw log's message such as "Starting up") is never taken for one. */
    if (looks_like_events(line, len, 1))
        return "lines";
    /* id,events: one comma (or a quoted events field), an id without
       spaces, then event names */
    const char *comma = memchr(line, ',', len);
    if (!comma || comma == line)
        return NULL;
    for (const char *q = line; q < comma; q++)
        if (!event_char((unsigned char)*q) && *q != '.' && *q != ':')
            return NULL;
    const char *ev = comma + 1;
    size_t evlen = len - (size_t)(ev - line);
    if (evlen >= 2 && ev[0] == '"' && ev[evlen - 1] == '"')
        ev++, evlen -= 2;
    if (memchr(ev, ',', evlen) && !(memchr(ev, '[', evlen)))
        return NULL;
    return looks_like_events(ev, evlen, 0) ? "id-events" : NULL;
}

/* The last path component, for session ids made from line numbers. */
static const char *base_name(const char *path, size_t *n)
{
    if (strcmp(path, "-") == 0) {
        *n = 5;
        return "stdin";
    }
    const char *slash = strrchr(path, '/');
    const char *b = slash ? slash + 1 : path;
    *n = strlen(b);
    return b;
}

int logtk_sessions_load_layout(logtk_sessions *s, const char *path, const char *layout_name,
                               int label_all)
{
    int layout = layout_code(layout_name);
    if (layout < 0)
        return ltk_error_set(&s->err, LOGTK_ERR_INVALID,
                               "unknown session layout '%s' (csv, id-events, lines)",
                               layout_name);
    if (label_all < LOGTK_LABEL_UNKNOWN || label_all > LOGTK_LABEL_ANOMALY)
        return ltk_error_set(&s->err, LOGTK_ERR_INVALID, "bad label %d", label_all);
    if (ltk_detect_sessions_flatten(s) != 0)
        return ltk_error_set(&s->err, LOGTK_ERR_NOMEM, "out of memory");
    logtk_csv *c;
    int rc = csv_open(&c, path, &s->err);
    if (rc != LOGTK_OK)
        return rc;
    const logtk_slice *fields;
    size_t nfields;
    int col_label = -1, col_seq = 0, col_id = -1;
    size_t ncols = 1;
    int got = LOGTK_OK;
    if (layout == LAYOUT_CSV) {
        got = logtk_csv_next(c, &fields, &nfields);
        if (got != LOGTK_OK) {
            rc = got == LOGTK_DONE
                     ? ltk_error_set(&s->err, LOGTK_ERR_DATA, "%s: empty file", path)
                     : csv_error(&s->err, c, got);
            logtk_csv_free(c);
            return rc;
        }
        col_id = 0;
        col_label = find_column(fields, nfields, "Label");
        col_seq = find_column(fields, nfields, "EventSequence");
        ncols = nfields;
        if (col_seq < 0) {
            const char *hint = "";
            if (nfields == 1 && logtk_sessions_sniff(fields[0].ptr, fields[0].len))
                hint = " (one sequence per line, as DeepLog's files? use --input lines)";
            else if (nfields == 2 && logtk_sessions_sniff(fields[0].ptr, fields[0].len + 1 +
                                                                              fields[1].len))
                hint = " (id,events lines without a header? use --input id-events)";
            logtk_csv_free(c);
            return ltk_error_set(&s->err, LOGTK_ERR_DATA,
                                   "%s:1: no EventSequence column in the header%s", path, hint);
        }
    } else if (layout == LAYOUT_ID_EVENTS) {
        col_id = 0;
        col_seq = 1;
        ncols = 2;
    }
    size_t idbase_len;
    const char *idbase = base_name(path, &idbase_len);
    char idbuf[4096 + 32];
    /* Remember the state so that a bad file leaves the set unchanged. */
    size_t count0 = s->count, seq0 = s->seq_len;
    rc = LOGTK_OK;
    while ((got = logtk_csv_next(c, &fields, &nfields)) == LOGTK_OK) {
        unsigned long long line = (unsigned long long)logtk_csv_line(c);
        if (nfields == 1 && fields[0].len == 0)
            continue; /* blank line */
        if (nfields != ncols) {
            if (layout == LAYOUT_CSV)
                rc = ltk_error_set(&s->err, LOGTK_ERR_DATA,
                                     "%s:%llu: %zu fields, header has %zu", path, line, nfields,
                                     ncols);
            else
                rc = ltk_error_set(&s->err, LOGTK_ERR_DATA,
                                     "%s:%llu: %zu fields, the %s layout has %zu", path, line,
                                     nfields, layout_name, ncols);
            break;
        }
        int label = LOGTK_LABEL_UNKNOWN;
        if (col_label >= 0) {
            label = ltk_detect_parse_label(fields[col_label].ptr, fields[col_label].len);
            if (label == -2) {
                rc = ltk_error_set(&s->err, LOGTK_ERR_DATA, "%s:%llu: unknown label '%.*s'",
                                     path, line,
                                     (int)fields[col_label].len, fields[col_label].ptr);
                break;
            }
        }
        if (label_all != LOGTK_LABEL_UNKNOWN)
            label = label_all;
        const char *id;
        size_t id_len;
        if (col_id >= 0) {
            id = fields[col_id].ptr;
            id_len = fields[col_id].len;
        } else {
            /* DeepLog's files have no ids: the file's name and the line */
            int n = snprintf(idbuf, sizeof idbuf, "%.*s:%llu",
                             (int)(idbase_len > 4096 ? 4096 : idbase_len), idbase, line);
            id = idbuf;
            id_len = (size_t)n;
        }
        int64_t k = add_session(s, id, id_len, 0);
        if (k == -2) {
            rc = ltk_error_set(&s->err, LOGTK_ERR_DATA, "%s:%llu: duplicate session id '%.*s'",
                                 path, line, (int)id_len, id);
            break;
        }
        if (k < 0) {
            rc = ltk_error_set(&s->err, LOGTK_ERR_NOMEM, "out of memory");
            break;
        }
        s->labels[k] = (int8_t)label;
        const char *p = fields[col_seq].ptr, *end = p + fields[col_seq].len;
        while (p < end) {
            while (p < end && (*p == ' ' || *p == '[' || *p == ']' || *p == '\'' || *p == ','))
                p++;
            const char *q = p;
            while (q < end && *q != ' ' && *q != ']' && *q != '\'' && *q != ',')
                q++;
            if (q > p) {
                int64_t e = ltk_hashtab_intern(&s->events, p, (size_t)(q - p), NULL);
                if (e < 0 || seq_reserve(s, 1) != 0) {
                    rc = ltk_error_set(&s->err, LOGTK_ERR_NOMEM, "out of memory");
                    break;
                }
                s->seq[s->seq_len++] = (uint32_t)e;
            }
            p = q;
        }
        if (rc != LOGTK_OK)
            break;
        s->offsets[k + 1] = s->seq_len;
    }
    if (rc == LOGTK_OK && got < 0)
        rc = csv_error(&s->err, c, got);
    logtk_csv_free(c);
    if (rc != LOGTK_OK) {
        /* Undo: the interned ids of the failed rows stay in the table but
           point past count, which is harmless for lookups of loaded sessions
           only if we drop them; rebuild the id table to be exact. */
        ltk_hashtab ids;
        if (ltk_hashtab_init(&ids, count0 + 16) == 0) {
            for (size_t i = 0; i < count0; i++) {
                size_t n;
                const char *key = ltk_hashtab_key(&s->ids, (uint32_t)i, &n);
                ltk_hashtab_intern(&ids, key, n, NULL);
            }
            ltk_hashtab_free(&s->ids);
            s->ids = ids;
        }
        s->count = count0;
        s->seq_len = seq0;
    }
    return rc;
}

int logtk_sessions_load(logtk_sessions *s, const char *path)
{
    return logtk_sessions_load_layout(s, path, "csv", LOGTK_LABEL_UNKNOWN);
}

int logtk_sessions_load_labels(logtk_sessions *s, const char *path, uint64_t *unknown_ids)
{
    if (unknown_ids)
        *unknown_ids = 0;
    logtk_csv *c;
    int rc = csv_open(&c, path, &s->err);
    if (rc != LOGTK_OK)
        return rc;
    const logtk_slice *fields;
    size_t nfields = 0;
    int got = logtk_csv_next(c, &fields, &nfields);
    int col_label = got == LOGTK_OK ? find_column(fields, nfields, "Label") : -1;
    if (got != LOGTK_OK || col_label < 0 || nfields < 2) {
        if (got < 0)
            rc = csv_error(&s->err, c, got);
        logtk_csv_free(c);
        if (got < 0)
            return rc;
        return ltk_error_set(&s->err, LOGTK_ERR_DATA,
                               "%s:1: expected a header with an id column and a Label column",
                               path);
    }
    int8_t *saved = malloc(s->count ? s->count : 1);
    /* the line that labelled each session, 0 none yet: a later row may repeat
       a label but not contradict it */
    uint64_t *labelled_on = calloc(s->count ? s->count : 1, sizeof *labelled_on);
    if (!saved || !labelled_on) {
        free(saved);
        free(labelled_on);
        logtk_csv_free(c);
        return ltk_error_set(&s->err, LOGTK_ERR_NOMEM, "out of memory");
    }
    memcpy(saved, s->labels, s->count);
    int id_col = col_label == 0 ? 1 : 0;
    uint64_t unknown = 0;
    while ((got = logtk_csv_next(c, &fields, &nfields)) == LOGTK_OK) {
        unsigned long long line = (unsigned long long)logtk_csv_line(c);
        if (nfields == 1 && fields[0].len == 0)
            continue;
        if ((int)nfields <= col_label || (int)nfields <= id_col) {
            rc = ltk_error_set(&s->err, LOGTK_ERR_DATA, "%s:%llu: missing field", path,
                                 line);
            break;
        }
        int label = ltk_detect_parse_label(fields[col_label].ptr, fields[col_label].len);
        if (label == -2) {
            rc = ltk_error_set(&s->err, LOGTK_ERR_DATA, "%s:%llu: unknown label '%.*s'", path,
                                 line, (int)fields[col_label].len,
                                 fields[col_label].ptr);
            break;
        }
        int64_t k = ltk_hashtab_find(&s->ids, fields[id_col].ptr, fields[id_col].len);
        if (k < 0 || (size_t)k >= s->count) {
            unknown++;
            continue;
        }
        if (labelled_on[k] && s->labels[k] != label) {
            rc = ltk_error_set(&s->err, LOGTK_ERR_DATA,
                                 "%s:%llu: id '%.*s' is labelled %s here but %s on line %llu",
                                 path, line, (int)fields[id_col].len, fields[id_col].ptr,
                                 label == LOGTK_LABEL_ANOMALY ? "Anomaly" : "Normal",
                                 s->labels[k] == LOGTK_LABEL_ANOMALY ? "Anomaly" : "Normal",
                                 (unsigned long long)labelled_on[k]);
            break;
        }
        if (!labelled_on[k])
            labelled_on[k] = line;
        s->labels[k] = (int8_t)label;
    }
    if (rc == LOGTK_OK && got < 0)
        rc = csv_error(&s->err, c, got);
    if (rc != LOGTK_OK)
        memcpy(s->labels, saved, s->count);
    free(saved);
    free(labelled_on);
    logtk_csv_free(c);
    if (unknown_ids)
        *unknown_ids = unknown;
    return rc;
}

/* ---------------------------------------------------------------- splits */

int logtk_sessions_split(const logtk_sessions *cs, const char *kind, double train_fraction,
                         uint64_t seed, size_t **train, size_t *ntrain, size_t **test,
                         size_t *ntest)
{
    logtk_sessions *s = (logtk_sessions *)cs;
    *train = *test = NULL;
    *ntrain = *ntest = 0;
    if (!(train_fraction >= 0.0 && train_fraction <= 1.0))
        return ltk_error_set(&s->err, LOGTK_ERR_INVALID,
                               "train fraction %g is not between 0 and 1", train_fraction);
    int uniform = strcmp(kind, "uniform") == 0;
    if (!uniform && strcmp(kind, "sequential") != 0 && strcmp(kind, "chronological") != 0)
        return ltk_error_set(&s->err, LOGTK_ERR_NOT_FOUND,
                               "unknown split '%s' (uniform, sequential, chronological)", kind);
    size_t n = s->count;
    size_t *tr = malloc((n + 1) * sizeof *tr), *te = malloc((n + 1) * sizeof *te);
    if (!tr || !te) {
        free(tr);
        free(te);
        return ltk_error_set(&s->err, LOGTK_ERR_NOMEM, "out of memory");
    }
    size_t a = 0, b = 0;
    if (uniform) {
        size_t npos = 0, nneg = 0;
        for (size_t i = 0; i < n; i++) {
            if (s->labels[i] == LOGTK_LABEL_UNKNOWN) {
                free(tr);
                free(te);
                return ltk_error_set(&s->err, LOGTK_ERR_DATA,
                                       "uniform split needs labels; session '%s' has none",
                                       ltk_hashtab_key(&s->ids, (uint32_t)i, NULL));
            }
            if (s->labels[i] == LOGTK_LABEL_ANOMALY)
                npos++;
            else
                nneg++;
        }
        /* loglizer: int(ratio * count) of each class, anomalies first */
        size_t train_pos = (size_t)(train_fraction * (double)npos);
        size_t train_neg = (size_t)(train_fraction * (double)nneg);
        size_t seen_pos = 0, seen_neg = 0;
        for (size_t i = 0; i < n; i++)
            if (s->labels[i] == LOGTK_LABEL_ANOMALY && seen_pos++ < train_pos)
                tr[a++] = i;
        for (size_t i = 0; i < n; i++)
            if (s->labels[i] != LOGTK_LABEL_ANOMALY && seen_neg++ < train_neg)
                tr[a++] = i;
        seen_pos = seen_neg = 0;
        for (size_t i = 0; i < n; i++)
            if (s->labels[i] == LOGTK_LABEL_ANOMALY && seen_pos++ >= train_pos)
                te[b++] = i;
        for (size_t i = 0; i < n; i++)
            if (s->labels[i] != LOGTK_LABEL_ANOMALY && seen_neg++ >= train_neg)
                te[b++] = i;
    } else {
        size_t ntr = (size_t)(train_fraction * (double)n);
        for (size_t i = 0; i < n; i++) {
            if (i < ntr)
                tr[a++] = i;
            else
                te[b++] = i;
        }
    }
    /* Fisher-Yates shuffle of the training rows with a fixed seed. */
    uint64_t state = seed;
    for (size_t i = a; i > 1; i--) {
        size_t j = (size_t)ltk_detect_rand_below(&state, i);
        size_t t = tr[i - 1];
        tr[i - 1] = tr[j];
        tr[j] = t;
    }
    *train = tr;
    *ntrain = a;
    *test = te;
    *ntest = b;
    return LOGTK_OK;
}

/* ---------------------------------------------------------------- metrics */

int logtk_detect_evaluate(const logtk_sessions *s, const size_t *rows, size_t nrows,
                          const uint8_t *anomalous, logtk_detect_metrics *out)
{
    memset(out, 0, sizeof *out);
    if (!rows)
        nrows = s->count;
    for (size_t k = 0; k < nrows; k++) {
        size_t i = rows ? rows[k] : k;
        int label = i < s->count ? s->labels[i] : LOGTK_LABEL_UNKNOWN;
        if (label == LOGTK_LABEL_UNKNOWN) {
            out->unlabeled++;
            continue;
        }
        if (anomalous[k])
            label ? out->tp++ : out->fp++;
        else
            label ? out->fn++ : out->tn++;
    }
    out->precision = out->tp + out->fp ? (double)out->tp / (double)(out->tp + out->fp) : 0.0;
    out->recall = out->tp + out->fn ? (double)out->tp / (double)(out->tp + out->fn) : 0.0;
    out->f1 = out->precision + out->recall > 0
                  ? 2 * out->precision * out->recall / (out->precision + out->recall)
                  : 0.0;
    return LOGTK_OK;
}

/* ---------------------------------------------------------------- windows */

int logtk_sessions_add_window(logtk_sessions *s, const logtk_window *win,
                              const logtk_slice *names, size_t nnames)
{
    if (ltk_detect_sessions_flatten(s) != 0)
        return ltk_error_set(&s->err, LOGTK_ERR_NOMEM, "out of memory");
    char id[512];
    size_t id_len = win->id.len < 400 ? win->id.len : 400;
    memcpy(id, win->id.ptr, id_len);
    int64_t k = add_session(s, id, id_len, 0);
    for (unsigned copy = 2; k == -2; copy++) { /* a session id seen before: "id#2" */
        int n = snprintf(id + id_len, sizeof id - id_len, "#%u", copy);
        k = add_session(s, id, id_len + (size_t)n, 0);
    }
    if (k < 0 || seq_reserve(s, win->nevents) != 0)
        return ltk_error_set(&s->err, LOGTK_ERR_NOMEM, "out of memory");
    s->labels[k] = (int8_t)win->label;
    char num[16];
    for (size_t i = 0; i < win->nevents; i++) {
        uint32_t e = win->events[i];
        const char *name;
        size_t len;
        if (names && e < nnames) {
            name = names[e].ptr;
            len = names[e].len;
        } else {
            int n = snprintf(num, sizeof num, "%u", e);
            name = num;
            len = (size_t)n;
        }
        int64_t ev = ltk_hashtab_intern(&s->events, name, len, NULL);
        if (ev < 0)
            return ltk_error_set(&s->err, LOGTK_ERR_NOMEM, "out of memory");
        s->seq[s->seq_len++] = (uint32_t)ev;
    }
    s->offsets[k + 1] = s->seq_len;
    return LOGTK_OK;
}
