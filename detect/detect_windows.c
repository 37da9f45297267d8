/*
 * detect_windows.c - session, time and count windows over parsed lines.
 *
 * Detectors score windows, not lines, so a stream of (line, event, label)
 * must be cut into windows the way loglizer cuts it:
 *   - session windows gather the lines that name an id (an HDFS block).  The
 *     id regex (PCRE2, compiled once with JIT and match limits, core/regex.h) is searched
 *     over the whole line and every match counts, so a line naming two
 *     blocks joins both sessions, as loglizer's HDFS loader does.  Each
 *     session is a growable array; memory grows with open sessions, and an
 *     "idle" limit completes sessions not seen for that many lines, which
 *     bounds memory when streaming;
 *   - time windows start at the first timestamp and advance by `step`
 *     seconds, each covering `size` seconds (sliding when step < size).
 *     Lines wait in one buffer until their window ends; a gap in time skips
 *     the empty windows arithmetically (counted, never materialised), so a
 *     sparse sample spanning months costs nothing extra;
 *   - count windows cover `size` lines every `step` lines.
 * Completed windows are copied into an output queue that the caller drains
 * with logtk_windows_next(); the per-line path appends to arrays that keep
 * their capacity, so there is no allocation per line once warmed up.
 *
 * Timestamps are parsed by a small strptime-like reader computing UTC
 * seconds directly (days-from-civil), which is locale- and timezone-free
 * and much faster than strptime + timegm.
 */
#include "config.h"
#include "detect_impl.h"
#include "regex.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define WIN_SESSION 0
#define WIN_TIME 1
#define WIN_COUNT 2
#define WIN_MAX_TIME_FIELDS 8
#define WIN_MATCH_LIMIT 100000
#define WIN_MAX_IDS_PER_LINE 64

typedef struct win_session {
    uint32_t *events;
    uint64_t *lines;
    size_t n, cap;
    int label; /* running label (see merge_label) */
    uint64_t last_seen; /* stats.lines when last touched */
    int active;
    size_t order_pos; /* its entry in w->order */
} win_session;

typedef struct win_queued {
    size_t ev_off, nev, id_off, id_len;
    int label;
    double start, end;
} win_queued;

struct logtk_windows {
    int kind;
    /* options */
    char *id_regex;
    uint64_t idle;
    double size, step;
    int size_set, step_set;
    char *time_fields, *time_format;
    size_t ntime_fields;
    int time_field_index[WIN_MAX_TIME_FIELDS];
    int bound;
    int started;
    /* id regex */
    ltk_regex *re;
    /* sessions */
    ltk_hashtab ids;
    win_session *sess;
    size_t nsess, sess_cap;
    uint32_t *order;
    size_t norder, order_cap;
    /* count / time buffer: lines [head, len) */
    uint32_t *bev;
    uint64_t *bln;
    int8_t *blab;
    double *btime;
    size_t bhead, blen, bcap;
    uint64_t next_start;    /* count: index of the next window's first line */
    uint64_t emitted_end;   /* count: lines [0, emitted_end) are in some window */
    uint64_t added;         /* count: lines taken into windows */
    double win_start;
    int have_start;
    /* output queue */
    uint32_t *qev;
    uint64_t *qln;
    size_t qlen, qcap;
    win_queued *q;
    size_t nq, q_cap, q_pos;
    ltk_strbuf qids;
    ltk_strbuf scratch;
    logtk_window_stats stats;
    ltk_errbuf err;
};

/* Running label of a window: unknown (-1) as soon as an unlabeled line
   joins, unless an anomalous line makes it anomalous for good. */
static int merge_label(int have, int line_label, int first)
{
    if (have == LOGTK_LABEL_ANOMALY || line_label == LOGTK_LABEL_ANOMALY)
        return LOGTK_LABEL_ANOMALY;
    if (first)
        return line_label;
    if (have == LOGTK_LABEL_UNKNOWN || line_label == LOGTK_LABEL_UNKNOWN)
        return LOGTK_LABEL_UNKNOWN;
    return LOGTK_LABEL_NORMAL;
}

/* ---------------------------------------------------------------- time parsing */

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static int read_digits(const char **p, const char *end, int maxd, int64_t *v)
{
    int n = 0;
    *v = 0;
    while (*p < end && n < maxd && **p >= '0' && **p <= '9') {
        *v = *v * 10 + (**p - '0');
        (*p)++;
        n++;
    }
    return n;
}

int logtk_parse_time(const char *format, const char *text, size_t len, double *out)
{
    static const char months[12][4] = {"jan", "feb", "mar", "apr", "may", "jun",
                                       "jul", "aug", "sep", "oct", "nov", "dec"};
    const char *p = text, *end = text + len;
    int64_t year = 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0, v;
    double frac = 0, epoch = 0;
    int have_epoch = 0;
    for (const char *f = format; *f; f++) {
        if (*f == ' ') {
            if (p >= end || (*p != ' ' && *p != '\t'))
                return LOGTK_ERR_DATA;
            while (p < end && (*p == ' ' || *p == '\t'))
                p++;
            continue;
        }
        if (*f != '%' || f[1] == '%') {
            if (*f == '%')
                f++;
            if (p >= end || *p != *f)
                return LOGTK_ERR_DATA;
            p++;
            continue;
        }
        f++;
        switch (*f) {
        case 'Y':
            if (read_digits(&p, end, 4, &year) != 4)
                return LOGTK_ERR_DATA;
            break;
        case 'y':
            if (read_digits(&p, end, 2, &v) != 2)
                return LOGTK_ERR_DATA;
            year = v < 69 ? 2000 + v : 1900 + v; /* POSIX */
            break;
        case 'm':
            if (!read_digits(&p, end, 2, &month) || month < 1 || month > 12)
                return LOGTK_ERR_DATA;
            break;
        case 'd':
            if (!read_digits(&p, end, 2, &day) || day < 1 || day > 31)
                return LOGTK_ERR_DATA;
            break;
        case 'H':
            if (!read_digits(&p, end, 2, &hour) || hour > 24)
                return LOGTK_ERR_DATA;
            break;
        case 'M':
            if (!read_digits(&p, end, 2, &minute) || minute > 59)
                return LOGTK_ERR_DATA;
            break;
        case 'S':
            if (!read_digits(&p, end, 2, &second) || second > 60)
                return LOGTK_ERR_DATA;
            break;
        case 'f': {
            double scale = 0.1;
            int n = 0;
            while (p < end && *p >= '0' && *p <= '9') {
                frac += (*p++ - '0') * scale;
                scale /= 10;
                n++;
            }
            if (!n)
                return LOGTK_ERR_DATA;
            break;
        }
        case 'b': {
            if (end - p < 3)
                return LOGTK_ERR_DATA;
            int found = 0;
            for (int k = 0; k < 12 && !found; k++)
                if (strncasecmp(p, months[k], 3) == 0) {
                    month = k + 1;
                    found = 1;
                }
            if (!found)
                return LOGTK_ERR_DATA;
            p += 3;
            while (p < end && ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
                p++; /* full month name */
            break;
        }
        case 's': {
            int neg = p < end && *p == '-';
            p += neg;
            if (!read_digits(&p, end, 18, &v))
                return LOGTK_ERR_DATA;
            epoch = (double)v;
            if (p < end && *p == '.') {
                double scale = 0.1;
                for (p++; p < end && *p >= '0' && *p <= '9'; p++, scale /= 10)
                    epoch += (*p - '0') * scale;
            }
            if (neg)
                epoch = -epoch;
            have_epoch = 1;
            break;
        }
        default:
            return LOGTK_ERR_INVALID;
        }
    }
    if (p != end)
        return LOGTK_ERR_DATA;
    if (have_epoch) {
        *out = epoch;
        return LOGTK_OK;
    }
    int64_t days = days_from_civil(year, (unsigned)month, (unsigned)day);
    *out = (double)(days * 86400 + hour * 3600 + minute * 60 + second) + frac;
    return LOGTK_OK;
}

/* Checks a time format's conversions (so a typo is a usage error, not a
   skip of every line). */
static int time_format_valid(const char *format)
{
    for (const char *f = format; *f; f++)
        if (*f == '%') {
            f++;
            if (!*f || !strchr("YymdHMSfbs%", *f))
                return 0;
        }
    return 1;
}

/* ---------------------------------------------------------------- handle */

int logtk_windows_new(logtk_windows **out, const char *kind)
{
    *out = NULL;
    int k = !kind || strcmp(kind, "session") == 0 ? WIN_SESSION
            : strcmp(kind, "time") == 0            ? WIN_TIME
            : strcmp(kind, "count") == 0           ? WIN_COUNT
                                                   : -1;
    if (k < 0)
        return LOGTK_ERR_NOT_FOUND;
    logtk_windows *w = calloc(1, sizeof *w);
    if (!w)
        return LOGTK_ERR_NOMEM;
    w->kind = k;
    w->size = k == WIN_TIME ? 3600 : 100;
    if (ltk_hashtab_init(&w->ids, k == WIN_SESSION ? 4096 : 16) != 0) {
        free(w);
        return LOGTK_ERR_NOMEM;
    }
    *out = w;
    return LOGTK_OK;
}

void logtk_windows_free(logtk_windows *w)
{
    if (!w)
        return;
    free(w->id_regex);
    free(w->time_fields);
    free(w->time_format);
    ltk_regex_free(w->re);
    ltk_hashtab_free(&w->ids);
    for (size_t i = 0; i < w->nsess; i++) {
        free(w->sess[i].events);
        free(w->sess[i].lines);
    }
    free(w->sess);
    free(w->order);
    free(w->bev);
    free(w->bln);
    free(w->blab);
    free(w->btime);
    free(w->qev);
    free(w->qln);
    free(w->q);
    ltk_strbuf_free(&w->qids);
    ltk_strbuf_free(&w->scratch);
    free(w);
}

const char *logtk_windows_errmsg(const logtk_windows *w)
{
    return w ? ltk_error_text(&w->err) : "no windower";
}

void logtk_windows_stats(const logtk_windows *w, logtk_window_stats *out)
{
    *out = w->stats;
}

static int set_string(char **dst, const char *value)
{
    char *copy = strdup(value);
    if (!copy)
        return -1;
    free(*dst);
    *dst = copy;
    return 0;
}

int logtk_windows_set_option(logtk_windows *w, const char *name, const char *value)
{
    if (w->started)
        return ltk_error_set(&w->err, LOGTK_ERR_INVALID, "option '%s' set after the first line",
                               name);
    if (strcmp(name, "id_regex") == 0) {
        if (set_string(&w->id_regex, value) != 0)
            return ltk_error_set(&w->err, LOGTK_ERR_NOMEM, "out of memory");
        static const ltk_regex_config config = {
            .match_limit = WIN_MATCH_LIMIT,
            .depth_limit = WIN_MATCH_LIMIT,
            .jit_stack_max = 512 * 1024,
        };
        ltk_regex *re;
        ltk_regex_error rerr;
        if (ltk_regex_compile(&re, value, (size_t)-1, &config, &rerr) != LOGTK_OK) {
            if (rerr.code == LOGTK_ERR_NOMEM)
                return ltk_error_set(&w->err, LOGTK_ERR_NOMEM, "out of memory");
            return ltk_error_set(&w->err, LOGTK_ERR_SYNTAX, "id regex '%s': %s at offset %zu",
                                   value, rerr.reason, rerr.offset);
        }
        ltk_regex_free(w->re);
        w->re = re;
        return LOGTK_OK;
    }
    if (strcmp(name, "time_fields") == 0 || strcmp(name, "time_format") == 0) {
        if (name[5] == 'f' && name[6] == 'o' && !time_format_valid(value))
            return ltk_error_set(&w->err, LOGTK_ERR_INVALID,
                                   "time format '%s': unknown conversion (use %%Y %%y %%m %%d "
                                   "%%H %%M %%S %%f %%b %%s %%%%)",
                                   value);
        if (set_string(name[5] == 'f' && name[6] == 'i' ? &w->time_fields : &w->time_format,
                       value) != 0)
            return ltk_error_set(&w->err, LOGTK_ERR_NOMEM, "out of memory");
        w->bound = 0;
        return LOGTK_OK;
    }
    char *end;
    double v = strtod(value, &end);
    int bad = *value == '\0' || *end != '\0' || !(v >= 0) || !isfinite(v);
    if (strcmp(name, "idle") == 0) {
        if (bad || v != floor(v) || v > 9007199254740992.0) /* 2^53: exact as a double */
            return ltk_error_set(&w->err, LOGTK_ERR_INVALID,
                                   "bad idle '%s' (lines, a whole number, 0..2^53)", value);
        w->idle = (uint64_t)v;
        return LOGTK_OK;
    }
    if (strcmp(name, "size") == 0 || strcmp(name, "step") == 0) {
        if (bad || v <= 0 || (w->kind == WIN_COUNT && v != floor(v)) || v > 1e15)
            return ltk_error_set(&w->err, LOGTK_ERR_INVALID, "bad %s '%s' (%s, > 0)", name,
                                   value, w->kind == WIN_COUNT ? "lines" : "seconds");
        if (name[1] == 'i') {
            w->size = v;
            w->size_set = 1;
        } else {
            w->step = v;
            w->step_set = 1;
        }
        return LOGTK_OK;
    }
    return ltk_error_set(&w->err, LOGTK_ERR_NOT_FOUND,
                           "unknown window option '%s' (id_regex, idle, size, step, time_fields, "
                           "time_format)",
                           name);
}

/* Binds time_fields to positions in a list of names. */
static int bind_names(logtk_windows *w, const char *const *names, size_t n)
{
    if (!w->time_fields)
        return ltk_error_set(&w->err, LOGTK_ERR_INVALID, "time windows need time_fields");
    w->ntime_fields = 0;
    const char *p = w->time_fields;
    while (*p) {
        while (*p == ' ')
            p++;
        size_t len = strcspn(p, " ");
        if (!len)
            break;
        int found = -1;
        for (size_t i = 0; i < n; i++)
            if (strlen(names[i]) == len && memcmp(names[i], p, len) == 0)
                found = (int)i;
        if (found < 0)
            return ltk_error_set(&w->err, LOGTK_ERR_NOT_FOUND,
                                   "time field '%.*s' is not a field of the log format", (int)len,
                                   p);
        if (w->ntime_fields == WIN_MAX_TIME_FIELDS)
            return ltk_error_set(&w->err, LOGTK_ERR_INVALID, "too many time fields");
        w->time_field_index[w->ntime_fields++] = found;
        p += len;
    }
    if (!w->ntime_fields)
        return ltk_error_set(&w->err, LOGTK_ERR_INVALID, "time_fields names no field");
    w->bound = 1;
    return LOGTK_OK;
}

int logtk_windows_set_format(logtk_windows *w, const logtk_format *f)
{
    const char *names[LOGTK_MAX_FIELDS];
    size_t n = logtk_format_field_count(f);
    for (size_t i = 0; i < n && i < LOGTK_MAX_FIELDS; i++)
        names[i] = logtk_format_field_name(f, i);
    return bind_names(w, names, n < LOGTK_MAX_FIELDS ? n : LOGTK_MAX_FIELDS);
}

int logtk_windows_set_columns(logtk_windows *w, const char *const *names, size_t n)
{
    return bind_names(w, names, n);
}

static int start(logtk_windows *w)
{
    if (!w->step_set)
        w->step = w->size;
    if (w->kind == WIN_SESSION) {
        if (!w->re && logtk_windows_set_option(w, "id_regex", "blk_-?\\d+") != LOGTK_OK)
            return w->err.code;
    } else if (w->kind == WIN_TIME) {
        if (!w->time_format)
            return ltk_error_set(&w->err, LOGTK_ERR_INVALID, "time windows need time_format");
        if (!w->bound)
            return ltk_error_set(&w->err, LOGTK_ERR_INVALID,
                                   "time windows need time_fields bound to a format or columns");
    }
    w->started = 1;
    return LOGTK_OK;
}

/* ---------------------------------------------------------------- output queue */

static int queue_window(logtk_windows *w, const uint32_t *ev, const uint64_t *ln, size_t n,
                        const char *id, size_t id_len, int label, double t0, double t1)
{
    if (w->q_pos == w->nq) { /* everything pulled: reuse the space */
        w->nq = w->q_pos = 0;
        w->qlen = 0;
        ltk_strbuf_clear(&w->qids);
    }
    if (w->qlen + n > w->qcap) {
        size_t cap = w->qcap ? w->qcap : 1024;
        while (cap < w->qlen + n)
            cap *= 2;
        uint32_t *e = realloc(w->qev, cap * sizeof *e);
        if (e)
            w->qev = e;
        uint64_t *l = realloc(w->qln, cap * sizeof *l);
        if (l)
            w->qln = l;
        if (!e || !l)
            return ltk_error_set(&w->err, LOGTK_ERR_NOMEM, "out of memory");
        w->qcap = cap;
    }
    if (w->nq == w->q_cap) {
        size_t cap = w->q_cap ? w->q_cap * 2 : 64;
        win_queued *q = realloc(w->q, cap * sizeof *q);
        if (!q)
            return ltk_error_set(&w->err, LOGTK_ERR_NOMEM, "out of memory");
        w->q = q;
        w->q_cap = cap;
    }
    win_queued *q = &w->q[w->nq];
    q->ev_off = w->qlen;
    q->nev = n;
    q->id_off = w->qids.len;
    q->id_len = id_len;
    q->label = label;
    q->start = t0;
    q->end = t1;
    if (ltk_strbuf_append(&w->qids, id, id_len) != 0)
        return ltk_error_set(&w->err, LOGTK_ERR_NOMEM, "out of memory");
    if (n) {
        memcpy(w->qev + w->qlen, ev, n * sizeof *ev);
        memcpy(w->qln + w->qlen, ln, n * sizeof *ln);
    }
    w->qlen += n;
    w->nq++;
    w->stats.windows++;
    return LOGTK_OK;
}

int logtk_windows_next(logtk_windows *w, logtk_window *out)
{
    if (w->q_pos >= w->nq) {
        w->nq = w->q_pos = 0;
        w->qlen = 0;
        ltk_strbuf_clear(&w->qids);
        return LOGTK_DONE;
    }
    const win_queued *q = &w->q[w->q_pos++];
    out->id.ptr = w->qids.data + q->id_off;
    out->id.len = q->id_len;
    out->nevents = q->nev;
    out->events = w->qev + q->ev_off;
    out->lines = w->qln + q->ev_off;
    out->label = q->label;
    out->start = q->start;
    out->end = q->end;
    return LOGTK_OK;
}

/* ---------------------------------------------------------------- sessions */

static int complete_session(logtk_windows *w, uint32_t k)
{
    win_session *se = &w->sess[k];
    size_t id_len;
    const char *id = ltk_hashtab_key(&w->ids, k, &id_len);
    int rc = queue_window(w, se->events, se->lines, se->n, id, id_len, se->label, 0, 0);
    se->n = 0;
    se->active = 0;
    return rc;
}

static int session_add(logtk_windows *w, const char *id, size_t id_len, uint64_t line_no,
                       uint32_t event, int label)
{
    int inserted = 0;
    int64_t k = ltk_hashtab_intern(&w->ids, id, id_len, &inserted);
    if (k < 0)
        return ltk_error_set(&w->err, LOGTK_ERR_NOMEM, "out of memory");
    if (inserted) {
        if (w->nsess == w->sess_cap) {
            size_t cap = w->sess_cap ? w->sess_cap * 2 : 1024;
            win_session *s = realloc(w->sess, cap * sizeof *s);
            if (!s)
                return ltk_error_set(&w->err, LOGTK_ERR_NOMEM, "out of memory");
            w->sess = s;
            w->sess_cap = cap;
        }
        memset(&w->sess[w->nsess++], 0, sizeof *w->sess);
    }
    win_session *se = &w->sess[k];
    if (!se->active) {
        if (w->norder == w->order_cap) {
            size_t cap = w->order_cap ? w->order_cap * 2 : 1024;
            uint32_t *o = realloc(w->order, cap * sizeof *o);
            if (!o)
                return ltk_error_set(&w->err, LOGTK_ERR_NOMEM, "out of memory");
            w->order = o;
            w->order_cap = cap;
        }
        se->order_pos = w->norder;
        w->order[w->norder++] = (uint32_t)k;
        se->active = 1;
        se->n = 0;
    }
    if (se->n == se->cap) {
        size_t cap = se->cap ? se->cap * 2 : 16;
        uint32_t *e = realloc(se->events, cap * sizeof *e);
        if (e)
            se->events = e;
        uint64_t *l = realloc(se->lines, cap * sizeof *l);
        if (l)
            se->lines = l;
        if (!e || !l)
            return ltk_error_set(&w->err, LOGTK_ERR_NOMEM, "out of memory");
        se->cap = cap;
    }
    se->label = merge_label(se->label, label, se->n == 0);
    se->events[se->n] = event;
    se->lines[se->n] = line_no;
    se->n++;
    se->last_seen = w->stats.lines;
    return LOGTK_OK;
}

/* Completes the sessions idle for w->idle lines, in order of start; keeps
   the order list compact. */
static int sweep_idle(logtk_windows *w, int all)
{
    size_t keep = 0;
    for (size_t i = 0; i < w->norder; i++) {
        uint32_t k = w->order[i];
        win_session *se = &w->sess[k];
        if (!se->active || se->order_pos != i)
            continue; /* stale entry */
        if (all || w->stats.lines - se->last_seen >= w->idle) {
            int rc = complete_session(w, k);
            if (rc != LOGTK_OK)
                return rc;
            continue;
        }
        se->order_pos = keep;
        w->order[keep++] = k;
    }
    w->norder = keep;
    return LOGTK_OK;
}

static int add_session_line(logtk_windows *w, const char *text, size_t len, uint64_t line_no,
                            uint32_t event, int label)
{
    size_t offset = 0;
    size_t found = 0;
    struct {
        size_t off, len;
    } seen[WIN_MAX_IDS_PER_LINE];
    while (offset <= len && found < WIN_MAX_IDS_PER_LINE) {
        int rc = ltk_regex_match(w->re, text, len, offset, 0);
        if (rc == LTK_REGEX_NOMATCH)
            break;
        if (rc < 0) {
            w->stats.no_id++;
            return ltk_error_set(&w->err, LOGTK_ERR_LIMIT,
                                   "line %llu: the id regex hit its match limit; line skipped",
                                   (unsigned long long)line_no);
        }
        const size_t *ov = ltk_regex_ovector(w->re);
        size_t s = ov[0], e = ov[1];
        int dup = 0;
        for (size_t i = 0; i < found && !dup; i++)
            dup = seen[i].len == e - s && memcmp(text + seen[i].off, text + s, e - s) == 0;
        if (!dup && e > s) {
            seen[found].off = s;
            seen[found].len = e - s;
            found++;
            int st = session_add(w, text + s, e - s, line_no, event, label);
            if (st != LOGTK_OK)
                return st;
        }
        offset = e > s ? e : e + 1;
    }
    if (!found)
        w->stats.no_id++;
    return LOGTK_OK;
}

/* ---------------------------------------------------------------- count and time */

static int buffer_push(logtk_windows *w, uint64_t line_no, uint32_t event, int label, double t)
{
    if (w->bhead > 0 && w->bhead * 2 >= w->blen) { /* compact */
        size_t n = w->blen - w->bhead;
        memmove(w->bev, w->bev + w->bhead, n * sizeof *w->bev);
        memmove(w->bln, w->bln + w->bhead, n * sizeof *w->bln);
        memmove(w->blab, w->blab + w->bhead, n * sizeof *w->blab);
        memmove(w->btime, w->btime + w->bhead, n * sizeof *w->btime);
        w->blen = n;
        w->bhead = 0;
    }
    if (w->blen == w->bcap) {
        size_t cap = w->bcap ? w->bcap * 2 : 1024;
        uint32_t *e = realloc(w->bev, cap * sizeof *e);
        if (e)
            w->bev = e;
        uint64_t *l = realloc(w->bln, cap * sizeof *l);
        if (l)
            w->bln = l;
        int8_t *b = realloc(w->blab, cap);
        if (b)
            w->blab = b;
        double *t2 = realloc(w->btime, cap * sizeof *t2);
        if (t2)
            w->btime = t2;
        if (!e || !l || !b || !t2)
            return ltk_error_set(&w->err, LOGTK_ERR_NOMEM, "out of memory");
        w->bcap = cap;
    }
    w->bev[w->blen] = event;
    w->bln[w->blen] = line_no;
    w->blab[w->blen] = (int8_t)label;
    w->btime[w->blen] = t;
    w->blen++;
    return LOGTK_OK;
}

/* Queues buffered lines [from, to) as one window. */
static int emit_range(logtk_windows *w, size_t from, size_t to, double t0, double t1)
{
    int label = LOGTK_LABEL_UNKNOWN;
    for (size_t i = from; i < to; i++)
        label = merge_label(label, w->blab[i], i == from);
    char id[64];
    int n;
    if (w->kind == WIN_COUNT) {
        n = snprintf(id, sizeof id, "lines %llu-%llu", (unsigned long long)w->bln[from],
                     (unsigned long long)w->bln[to - 1]);
    } else {
        int64_t secs = (int64_t)floor(t0);
        int64_t days = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
        int64_t rem = secs - days * 86400;
        /* civil from days (inverse of days_from_civil) */
        int64_t z = days + 719468;
        int64_t era = (z >= 0 ? z : z - 146096) / 146097;
        unsigned doe = (unsigned)(z - era * 146097);
        unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
        int64_t y = (int64_t)yoe + era * 400;
        unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        unsigned mp = (5 * doy + 2) / 153;
        unsigned d = doy - (153 * mp + 2) / 5 + 1;
        unsigned m = mp < 10 ? mp + 3 : mp - 9;
        y += m <= 2;
        n = snprintf(id, sizeof id, "%04lld-%02u-%02uT%02d:%02d:%02dZ", (long long)y, m, d,
                     (int)(rem / 3600), (int)(rem / 60 % 60), (int)(rem % 60));
    }
    return queue_window(w, w->bev + from, w->bln + from, to - from, id,
                        n > 0 ? (size_t)n : 0, label, t0, t1);
}

static int count_add(logtk_windows *w, uint64_t line_no, uint32_t event, int label)
{
    uint64_t index = w->added++;
    if (index < w->next_start)
        return LOGTK_OK; /* step > size: lines between windows belong to none */
    int rc = buffer_push(w, line_no, event, label, 0);
    if (rc != LOGTK_OK)
        return rc;
    uint64_t size = (uint64_t)w->size, step = (uint64_t)w->step;
    if (w->added - w->next_start == size) {
        rc = emit_range(w, w->bhead, w->bhead + size, 0, 0);
        if (rc != LOGTK_OK)
            return rc;
        w->emitted_end = w->added;
        uint64_t drop = step < size ? step : size;
        w->bhead += drop;
        w->next_start += step;
    }
    return LOGTK_OK;
}

/* a + b, or the next double above a when b is below a's precision: window
   bounds must move forward even at times such as 1e18 s (an 18-digit "%s"
   stamp), where doubles are 128 apart and a + 10 == a. */
static double time_after(double a, double b)
{
    double r = a + b;
    return r > a ? r : nextafter(a, INFINITY);
}

/* Advances the time window until t falls in it, emitting or counting the
   windows passed.  `flush` emits every remaining window (finish). */
static int time_advance(logtk_windows *w, double t, int flush)
{
    while (w->have_start &&
           (flush ? w->bhead < w->blen : t >= time_after(w->win_start, w->size))) {
        double end = time_after(w->win_start, w->size);
        /* lines of this window: those buffered with time < end (late lines
           included); all of them, since newer lines start a new window */
        size_t to = w->bhead;
        while (to < w->blen && w->btime[to] < end)
            to++;
        if (to > w->bhead) {
            int rc = emit_range(w, w->bhead, to, w->win_start, end);
            if (rc != LOGTK_OK)
                return rc;
        } else {
            w->stats.empty_windows++;
        }
        w->win_start = time_after(w->win_start, w->step);
        while (w->bhead < w->blen && w->btime[w->bhead] < w->win_start)
            w->bhead++;
        if (w->bhead == w->blen && !flush && t >= w->win_start + w->size) {
            /* nothing buffered: skip the empty windows before t at once */
            double skip = floor((t - w->size - w->win_start) / w->step) + 1;
            if (skip > 0) {
                w->stats.empty_windows += (uint64_t)skip;
                w->win_start += skip * w->step;
            }
        }
    }
    return LOGTK_OK;
}

static int time_add(logtk_windows *w, const logtk_slice *fields, size_t nfields, uint64_t line_no,
                    uint32_t event, int label)
{
    ltk_strbuf_clear(&w->scratch);
    int bad = 0;
    for (size_t i = 0; i < w->ntime_fields; i++) {
        size_t f = (size_t)w->time_field_index[i];
        if (!fields || f >= nfields) {
            bad = 1;
            break;
        }
        if ((i && ltk_strbuf_putc(&w->scratch, ' ') != 0) ||
            ltk_strbuf_append(&w->scratch, fields[f].ptr, fields[f].len) != 0)
            return ltk_error_set(&w->err, LOGTK_ERR_NOMEM, "out of memory");
    }
    double t = 0;
    if (bad ||
        logtk_parse_time(w->time_format, w->scratch.data ? w->scratch.data : "", w->scratch.len,
                         &t) != LOGTK_OK ||
        !isfinite(t)) {
        if (!w->stats.bad_time++)
            w->stats.first_bad_time_line = line_no;
        return LOGTK_OK;
    }
    if (!w->have_start) {
        w->win_start = t;
        w->have_start = 1;
    }
    if (t < w->win_start)
        w->stats.late++;
    int rc = time_advance(w, t, 0);
    if (rc != LOGTK_OK)
        return rc;
    return buffer_push(w, line_no, event, label, t);
}

/* ---------------------------------------------------------------- entry points */

int logtk_windows_add(logtk_windows *w, const char *text, size_t len, const logtk_slice *fields,
                      size_t nfields, uint64_t line_no, uint32_t event, int label)
{
    if (!w->started) {
        int rc = start(w);
        if (rc != LOGTK_OK)
            return rc;
    }
    w->stats.lines++;
    int rc;
    switch (w->kind) {
    case WIN_SESSION:
        rc = add_session_line(w, text, len, line_no, event, label);
        if (rc == LOGTK_OK && w->idle && w->stats.lines % w->idle == 0)
            rc = sweep_idle(w, 0);
        return rc;
    case WIN_TIME:
        return time_add(w, fields, nfields, line_no, event, label);
    default:
        return count_add(w, line_no, event, label);
    }
}

int logtk_windows_finish(logtk_windows *w)
{
    if (!w->started) {
        int rc = start(w);
        if (rc != LOGTK_OK)
            return rc;
    }
    switch (w->kind) {
    case WIN_SESSION:
        return sweep_idle(w, 1);
    case WIN_TIME:
        return time_advance(w, 0, 1);
    default:
        if (w->added > w->emitted_end && w->blen > w->bhead) {
            int rc = emit_range(w, w->bhead, w->blen, 0, 0);
            w->emitted_end = w->added;
            w->bhead = w->blen;
            return rc;
        }
        return LOGTK_OK;
    }
}
