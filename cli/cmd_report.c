/*
 * cmd_report.c - `logtk report`: one self-contained HTML page that a person
 * looks at instead of reading 20,000 rows.
 *
 * Three kinds of page:
 *  - a parse run (LOG): the log is parsed here, in one pass, and summarised
 *    as it streams: per template a time series of REPORT_BINS bins over the
 *    line numbers (bins double in width whenever the log outgrows them, so
 *    the number of lines need not be known first), the line where it first
 *    appeared, its first line as an example, and the most frequent values of
 *    its first parameters (space-saving counters: a fixed few slots per
 *    parameter, so memory grows with templates, never with lines);
 *  - a detect run (--detect MODEL LOG): the same page, and the log cut into
 *    windows of --window-size lines as `logtk detect --window count` cuts it,
 *    each scored by the model; anomalous windows are shaded on the timeline
 *    and listed;
 *  - a diff (--diff FILE): the JSON Lines of `logtk diff --output jsonl`
 *    (report_diff.c).
 *
 * The axis is the line number by default: it needs no timestamp format and
 * is what every log has; with --time-fields and --time-format it is the
 * lines' time (UTC), relative to the first line's, in bins that double in
 * width the same way.  Anomalous windows are cut by lines (as detect cuts
 * them), so each window remembers the span of positions its lines took.
 *
 * Output is written to a temporary file and renamed into place, as every
 * logtk output, so a failed run never replaces a good page.
 *
 * Exit status: 0 success, 1 bad data, 2 usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "report.h"

#define SUB "report"

static void report_usage(FILE *out)
{
    fprintf(out,
            "usage: logtk report [options] -o PAGE.html LOG...\n"
            "       logtk report --diff DIFF.jsonl -o PAGE.html\n"
            "\n"
            "Write one self-contained HTML page (inline CSS and SVG, no script, no network)\n"
            "summarising a log: template frequency over the log (a stacked timeline and a\n"
            "sparkline per template), templates new after the first tenth of the log, the\n"
            "most frequent parameter values, and, with --detect, anomalous windows shaded.\n"
            "With --diff, the ranked changes of `logtk diff --output jsonl`.\n"
            "\n"
            "input:\n"
            "  --dataset NAME        Loghub preset: log format, masks, parser parameters\n"
            "  --format FMT          log format, e.g. '<Date> <Time> <Level> <Component>: <Content>'\n"
            "  --parser NAME         online parser (default fuse)\n"
            "  --param NAME=VALUE    set a parser parameter (repeatable)\n"
            "  --mask [NAME=]RE      replace matches of the PCRE2 regex by <*> (repeatable)\n"
            "  --mask-file FILE      one mask a line: RE, or RE<TAB>REPLACEMENT\n"
            "  --max-line-length N   longest line accepted, in bytes (default 1048576)\n"
            "  --binary              parse files that look binary instead of refusing them\n"
            "  --detect MODEL        score windows of the log with a model of 'logtk detect train'\n"
            "                        (trained with --window count) and shade the anomalous ones\n"
            "  --window-size N       lines per window for --detect (default 100)\n"
            "  --time-fields NAMES   header fields (space-separated) holding each line's time;\n"
            "  --time-format FMT     read with FMT (as logtk detect's, e.g. '%%y%%m%%d %%H%%M%%S'):\n"
            "                        the axis is then UTC time instead of the line number\n"
            "  --diff FILE           render a diff's JSON Lines instead of parsing a log\n"
            "output:\n"
            "  -o, --out FILE        the page (default stdout); written atomically\n"
            "  --title TEXT          the page's title (default: the input's name)\n"
            "  -q, --quiet           no progress on stderr\n"
            "  -h, --help            show this help\n"
            "\n"
            "Caps keep the page small on any input: %d bins, %d template rows, %d templates\n"
            "stacked, %d bytes of each text.  Exit status: 0 success, 1 bad data, 2 usage\n"
            "error.  See logtk-report(1).\n",
            REPORT_BINS, REPORT_TOP_TEMPLATES, REPORT_STACKED, REPORT_TEXT_MAX);
}

typedef struct report_options {
    cli_parser_options in; /* read and applied as parse does (cli_parser_options.c) */
    const char *out_path, *title;
    const char *model_path, *diff_path, *time_fields, *time_format;
    uint64_t window_size;
    int quiet;
} report_options;

/* ------------------------------------------------------------ summary */

/* One counted value of a parameter (space-saving: count may overstate by the
   count of the value it replaced, never understate). */
typedef struct param_slot {
    uint64_t count;
    uint64_t error; /* the count of the value it displaced: count - error is sure */
    unsigned char len, cut;
    char value[REPORT_VALUE_MAX];
} param_slot;

/* One parameter position of a template: its most frequent values, and the
   range of its values while all of them are numbers. */
typedef struct param_pos {
    uint64_t seen, numeric;
    double min, max;
    param_slot slots[REPORT_PARAM_SLOTS];
} param_pos;

typedef struct template_stat {
    uint64_t first_line;   /* 1-based line of the log where it first appeared */
    double first_pos;      /* and its position on the axis (line index or seconds) */
    size_t example_off;    /* its first line's content in summary.examples */
    size_t example_len;
    int example_cut;
    size_t nparams_max;    /* most parameters seen on one of its lines */
    param_pos *slots;      /* [REPORT_PARAM_POSITIONS], or NULL */
} template_stat;

/* Time axis: the header fields whose values, joined by a space, are a line's
   timestamp, read with a time format (see logtk_parse_time). */
#define REPORT_TIME_FIELDS 8
#define REPORT_TIME_TEXT 256

typedef struct summary {
    uint64_t lines;
    /* The axis: a line's position is its 0-based index, or with a time format
       its timestamp minus the first one's (seconds); bin b holds positions
       [b * bin_width, (b + 1) * bin_width). */
    double bin_width, max_pos, last_pos, origin;
    int timed, have_origin;
    const char *time_format;
    size_t time_field[REPORT_TIME_FIELDS], ntime_fields;
    uint64_t bad_time, early;
    /* --detect: the span of positions of each window of window_size lines */
    uint64_t window_size;
    double *win_lo, *win_hi;
    size_t win_cap;
    uint64_t total_bins[REPORT_BINS];
    uint64_t *bins;        /* [id * REPORT_BINS + b] */
    template_stat *stats;  /* [id], ids 1..cap-1 */
    size_t cap;
    char *examples;
    size_t examples_len, examples_cap;
    int failed;            /* out of memory */
} summary;

static int summary_grow(summary *s, uint32_t id)
{
    if (id < s->cap)
        return 0;
    size_t cap = s->cap ? s->cap : 64;
    while (cap <= id)
        cap *= 2;
    uint64_t *bins = realloc(s->bins, cap * REPORT_BINS * sizeof *bins);
    if (!bins)
        return -1;
    s->bins = bins;
    template_stat *stats = realloc(s->stats, cap * sizeof *stats);
    if (!stats)
        return -1;
    s->stats = stats;
    memset(s->bins + s->cap * REPORT_BINS, 0, (cap - s->cap) * REPORT_BINS * sizeof *bins);
    memset(s->stats + s->cap, 0, (cap - s->cap) * sizeof *stats);
    s->cap = cap;
    return 0;
}

/* The log outgrew the bins: every pair of bins becomes one, twice as wide. */
static void summary_halve(summary *s)
{
    for (size_t id = 0; id < s->cap; id++) {
        uint64_t *b = s->bins + id * REPORT_BINS;
        for (size_t j = 0; j < REPORT_BINS / 2; j++)
            b[j] = b[2 * j] + b[2 * j + 1];
        memset(b + REPORT_BINS / 2, 0, (REPORT_BINS / 2) * sizeof *b);
    }
    for (size_t j = 0; j < REPORT_BINS / 2; j++)
        s->total_bins[j] = s->total_bins[2 * j] + s->total_bins[2 * j + 1];
    memset(s->total_bins + REPORT_BINS / 2, 0, (REPORT_BINS / 2) * sizeof s->total_bins[0]);
    s->bin_width *= 2;
}

static void slot_count(param_slot *slots, const char *v, size_t n, uint64_t times)
{
    size_t keep = report_cut(v, n, REPORT_VALUE_MAX);
    param_slot *least = &slots[0];
    for (size_t k = 0; k < REPORT_PARAM_SLOTS; k++) {
        param_slot *p = &slots[k];
        if (p->count && p->len == keep && p->cut == (n > keep) && memcmp(p->value, v, keep) == 0) {
            p->count += times;
            return;
        }
        if (p->count < least->count)
            least = p;
    }
    /* a free slot (count 0) or the least counted one takes the new value */
    least->error = least->count;
    least->count += times;
    least->len = (unsigned char)keep;
    least->cut = n > keep;
    memcpy(least->value, v, keep);
}

/* Is v[0..n) a decimal number?  Its value in *out. */
static int numeric_value(const char *v, size_t n, double *out)
{
    char tmp[32];
    if (n == 0 || n >= sizeof tmp)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((v[i] >= '0' && v[i] <= '9') || (i == 0 && (v[i] == '-' || v[i] == '+')) ||
              v[i] == '.'))
            return 0;
    memcpy(tmp, v, n);
    tmp[n] = '\0';
    char *end;
    *out = strtod(tmp, &end);
    return end == tmp + n;
}

static void pos_count(param_pos *pos, const char *v, size_t n)
{
    double x;
    if (numeric_value(v, n, &x)) {
        if (pos->numeric == 0 || x < pos->min)
            pos->min = x;
        if (pos->numeric == 0 || x > pos->max)
            pos->max = x;
        pos->numeric++;
    }
    pos->seen++;
    slot_count(pos->slots, v, n, 1);
}

static int add_example(summary *s, template_stat *t, const char *text, size_t len)
{
    size_t keep = report_cut(text, len, REPORT_TEXT_MAX);
    if (s->examples_len + keep > s->examples_cap) {
        size_t cap = s->examples_cap ? s->examples_cap * 2 : 65536;
        while (cap < s->examples_len + keep)
            cap *= 2;
        char *grown = realloc(s->examples, cap);
        if (!grown)
            return -1;
        s->examples = grown;
        s->examples_cap = cap;
    }
    if (keep) /* an empty line keeps nothing: examples may still be NULL */
        memcpy(s->examples + s->examples_len, text, keep);
    t->example_off = s->examples_len;
    t->example_len = keep;
    t->example_cut = len > keep;
    s->examples_len += keep;
    return 0;
}

/* The line's timestamp, relative to the first; a line whose time does not
   parse keeps the previous line's, and one before the first time goes to 0. */
static double time_position(summary *s, const logtk_record *rec)
{
    char text[REPORT_TIME_TEXT];
    size_t n = 0;
    int ok = 1;
    for (size_t k = 0; k < s->ntime_fields && ok; k++) {
        size_t f = s->time_field[k];
        if (!rec->matched || f >= rec->nfields ||
            n + rec->fields[f].len + 1 >= sizeof text) {
            ok = 0;
            break;
        }
        if (k)
            text[n++] = ' ';
        memcpy(text + n, rec->fields[f].ptr, rec->fields[f].len);
        n += rec->fields[f].len;
    }
    double t;
    if (!ok || logtk_parse_time(s->time_format, text, n, &t) != LOGTK_OK) {
        s->bad_time++;
        return s->last_pos;
    }
    if (!s->have_origin) {
        s->origin = t;
        s->have_origin = 1;
    }
    if (t < s->origin) {
        s->early++;
        return 0;
    }
    return t - s->origin;
}

static int note_window(summary *s, uint64_t index, double pos)
{
    size_t w = (size_t)(index / s->window_size);
    if (w >= s->win_cap) {
        size_t cap = s->win_cap ? s->win_cap * 2 : 256;
        while (cap <= w)
            cap *= 2;
        double *lo = realloc(s->win_lo, cap * sizeof *lo);
        if (!lo)
            return -1;
        s->win_lo = lo;
        double *hi = realloc(s->win_hi, cap * sizeof *hi);
        if (!hi)
            return -1;
        s->win_hi = hi;
        s->win_cap = cap;
    }
    /* the end is exclusive on the line axis (a line covers [i, i + 1)) */
    double end = s->timed ? pos : pos + 1;
    if (index % s->window_size == 0) {
        s->win_lo[w] = pos;
        s->win_hi[w] = end;
    } else {
        s->win_lo[w] = pos < s->win_lo[w] ? pos : s->win_lo[w];
        s->win_hi[w] = end > s->win_hi[w] ? end : s->win_hi[w];
    }
    return 0;
}

static int summary_add(summary *s, const logtk_line *line, const logtk_record *rec,
                       const logtk_event *ev)
{
    uint32_t id = ev->template_id;
    if (summary_grow(s, id) != 0)
        return -1;
    uint64_t index = s->lines++;
    double pos = s->timed ? time_position(s, rec) : (double)index;
    s->last_pos = pos;
    if (pos > s->max_pos)
        s->max_pos = pos;
    if (s->window_size && note_window(s, index, pos) != 0)
        return -1;
    while (pos / s->bin_width >= REPORT_BINS)
        summary_halve(s);
    size_t b = (size_t)(pos / s->bin_width);
    s->bins[(size_t)id * REPORT_BINS + b]++;
    s->total_bins[b]++;
    template_stat *t = &s->stats[id];
    if (t->first_line == 0) {
        t->first_line = index + 1;
        t->first_pos = pos;
        if (add_example(s, t, line->data, line->len) != 0)
            return -1;
    }
    if (ev->nparams > t->nparams_max)
        t->nparams_max = ev->nparams;
    if (ev->nparams) {
        if (!t->slots) {
            t->slots = calloc(REPORT_PARAM_POSITIONS, sizeof *t->slots);
            if (!t->slots)
                return -1;
        }
        for (size_t k = 0; k < ev->nparams && k < REPORT_PARAM_POSITIONS; k++)
            pos_count(&t->slots[k], ev->params[k].ptr, ev->params[k].len);
    }
    return 0;
}

static int on_report_line(void *user, const logtk_line *line, const logtk_record *rec,
                          const logtk_event *ev)
{
    summary *s = user;
    if (summary_add(s, line, rec, ev) != 0) {
        s->failed = 1;
        cli_error(SUB, "out of memory");
        return EXIT_DATA;
    }
    return 0;
}

static void summary_free(summary *s)
{
    for (size_t id = 0; id < s->cap; id++)
        free(s->stats[id].slots);
    free(s->stats);
    free(s->bins);
    free(s->win_lo);
    free(s->win_hi);
    free(s->examples);
}

/* Folds template `from` into `to` (an online parser made their texts equal). */
static void summary_fold(summary *s, uint32_t to, uint32_t from)
{
    uint64_t *a = s->bins + (size_t)to * REPORT_BINS, *b = s->bins + (size_t)from * REPORT_BINS;
    for (size_t j = 0; j < REPORT_BINS; j++)
        a[j] += b[j];
    template_stat *t = &s->stats[to], *f = &s->stats[from];
    if (f->first_line && (t->first_line == 0 || f->first_line < t->first_line)) {
        t->first_line = f->first_line;
        t->first_pos = f->first_pos;
        t->example_off = f->example_off;
        t->example_len = f->example_len;
        t->example_cut = f->example_cut;
    }
    if (f->nparams_max > t->nparams_max)
        t->nparams_max = f->nparams_max;
    if (f->slots && !t->slots) {
        t->slots = f->slots;
        f->slots = NULL;
    } else if (f->slots) {
        for (size_t k = 0; k < REPORT_PARAM_POSITIONS; k++) {
            param_pos *into = &t->slots[k], *from_pos = &f->slots[k];
            if (from_pos->numeric && (into->numeric == 0 || from_pos->min < into->min))
                into->min = from_pos->min;
            if (from_pos->numeric && (into->numeric == 0 || from_pos->max > into->max))
                into->max = from_pos->max;
            into->numeric += from_pos->numeric;
            into->seen += from_pos->seen;
            for (size_t j = 0; j < REPORT_PARAM_SLOTS; j++)
                if (from_pos->slots[j].count)
                    slot_count(into->slots, from_pos->slots[j].value, from_pos->slots[j].len,
                               from_pos->slots[j].count);
        }
    }
}

/* ------------------------------------------------------------ detection */

typedef struct window_score {
    uint64_t first, last; /* 1-based lines */
    double score;
} window_score;

/*
 * Scores windows of `size` lines with the model, as `logtk detect --window
 * count --size N` cuts a raw log, events named as detect names them.
 * Fills the anomalous windows into *out (caller frees).  Returns EXIT_OK or
 * EXIT_DATA after printing why.
 */
static int detect_windows(logtk_parser *p, const char *model_path, uint64_t size,
                          window_score **out, size_t *nout, size_t *nwindows)
{
    logtk_detector *d = NULL;
    logtk_sessions *sessions = NULL;
    char *names = NULL;
    double *scores = NULL;
    uint8_t *anomalous = NULL;
    int rc = EXIT_DATA;
    *out = NULL;
    *nout = 0;
    *nwindows = 0;
    if (logtk_detector_new(&d, NULL) != LOGTK_OK || logtk_sessions_new(&sessions) != LOGTK_OK) {
        cli_error(SUB, "out of memory");
        goto done;
    }
    if (logtk_detector_load_file(d, model_path) != LOGTK_OK) {
        cli_error(SUB, "%s", logtk_detector_errmsg(d));
        goto done;
    }
    uint32_t n = logtk_parser_template_count(p);
    names = malloc(((size_t)n + 1) * 9);
    if (!names) {
        cli_error(SUB, "out of memory");
        goto done;
    }
    for (uint32_t id = 1; id <= n; id++) {
        logtk_slice text;
        if (logtk_parser_template(p, id, &text, NULL) != LOGTK_OK)
            text.ptr = "", text.len = 0;
        logtk_loghub_event_id(text.ptr, text.len, names + (size_t)id * 9);
    }
    uint64_t lines = logtk_parser_line_count(p);
    char sid[64];
    for (uint64_t i = 0; i < lines; i++) {
        uint32_t id;
        if (logtk_parser_assignment(p, i, &id) != LOGTK_OK || id == 0 || id > n) {
            cli_error(SUB, "--detect needs a parser that keeps each line's template");
            goto done;
        }
        uint64_t first = i / size * size + 1, last = first + size - 1;
        if (last > lines)
            last = lines;
        int len = snprintf(sid, sizeof sid, "lines %llu-%llu", (unsigned long long)first,
                           (unsigned long long)last);
        if (logtk_sessions_append(sessions, sid, (size_t)len, names + (size_t)id * 9, 8) !=
            LOGTK_OK) {
            cli_error(SUB, "%s", logtk_sessions_errmsg(sessions));
            goto done;
        }
    }
    size_t count = logtk_sessions_count(sessions);
    scores = calloc(count + 1, sizeof *scores);
    anomalous = calloc(count + 1, 1);
    if (!scores || !anomalous) {
        cli_error(SUB, "out of memory");
        goto done;
    }
    if (count && logtk_detector_score(d, sessions, NULL, count, scores, anomalous) != LOGTK_OK) {
        cli_error(SUB, "%s: %s", model_path, logtk_detector_errmsg(d));
        goto done;
    }
    size_t bad = 0;
    for (size_t i = 0; i < count; i++)
        bad += anomalous[i] != 0;
    *out = calloc(bad + 1, sizeof **out);
    if (!*out) {
        cli_error(SUB, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < count; i++) {
        if (!anomalous[i])
            continue;
        window_score *w = &(*out)[(*nout)++];
        w->first = (uint64_t)i * size + 1;
        w->last = w->first + size - 1 > lines ? lines : w->first + size - 1;
        w->score = scores[i];
    }
    *nwindows = count;
    rc = EXIT_OK;
done:
    free(names);
    free(scores);
    free(anomalous);
    logtk_sessions_free(sessions);
    logtk_detector_free(d);
    return rc;
}

/* ------------------------------------------------------------ the page */

typedef struct page {
    FILE *fp;
    summary *s;
    cli_template_set *set;
    uint32_t *order;  /* canonical ids by count, descending */
    size_t norder;
    size_t nbins;     /* bins in use */
    uint64_t warmup;  /* templates first seen after this line are "new" */
    size_t nnew;
    const window_score *windows;
    size_t nwindows, nscored;
    uint64_t window_size;
    uint64_t unmatched;
} page;

static const cli_template_set *sort_set;

static int by_count_desc(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint64_t cx = sort_set->count[x], cy = sort_set->count[y];
    if (cx != cy)
        return cx < cy ? 1 : -1;
    return x < y ? -1 : x > y;
}

/* The timeline is drawn in a 1000 x 200 box stretched to the chart's size
   (preserveAspectRatio none: wide on a desktop, lower on a phone), so it
   holds no text; the axis labels are HTML around it. */
#define PLOT_W 1000.0
#define PLOT_H 200.0
#define MARK_H 12.0 /* a band above the plot for the new-template marks */

/* x coordinate (chart units) of a position on the axis */
static double pos_x(const page *pg, double pos)
{
    double span = (double)pg->nbins * pg->s->bin_width;
    return PLOT_W * pos / (span > 0 ? span : 1);
}

/* A position as the axis names it: "line N", or a UTC time. */
static const char *axis_label(const summary *s, double pos, char *buf, size_t size)
{
    if (!s->timed) {
        char c[32];
        snprintf(buf, size, "line %s", report_count(c, (uint64_t)pos + 1));
        return buf;
    }
    time_t t = (time_t)(s->origin + pos);
    struct tm tm;
    if (!s->have_origin || !gmtime_r(&t, &tm))
        snprintf(buf, size, "no time");
    else
        strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm);
    return buf;
}

/* A bin's width in words: "4 lines", "15 s", "2.5 min", "3 h". */
static const char *bin_words(const summary *s, char *buf, size_t size)
{
    char c[32];
    double w = s->bin_width;
    if (!s->timed)
        snprintf(buf, size, "%s lines", report_count(c, (uint64_t)w));
    else if (w < 120)
        snprintf(buf, size, "%g s", w);
    else if (w < 7200)
        snprintf(buf, size, "%.3g min", w / 60);
    else if (w < 172800)
        snprintf(buf, size, "%.3g h", w / 3600);
    else
        snprintf(buf, size, "%.3g days", w / 86400);
    return buf;
}

static void write_timeline(page *pg)
{
    FILE *fp = pg->fp;
    summary *s = pg->s;
    size_t nb = pg->nbins, nstack = pg->norder < REPORT_STACKED ? pg->norder : REPORT_STACKED;
    uint64_t max = 1;
    for (size_t b = 0; b < nb; b++)
        max = s->total_bins[b] > max ? s->total_bins[b] : max;
    char c1[32], c2[64], c3[64];
    fprintf(fp, "<section id=\"timeline\"><h2>Templates over the log</h2>\n"
                "<div class=\"axis\"><span>%s lines per bin at most</span></div>\n"
                "<div class=\"chart\"><svg class=\"timeline\" viewBox=\"0 0 1000 %.0f\" "
                "preserveAspectRatio=\"none\" role=\"img\" aria-label=\"stacked line counts "
                "per bin\">\n",
            report_count(c1, max), PLOT_H + MARK_H);
    /* stacked step areas: series k lies between cum[k-1] and cum[k] */
    uint64_t lower[REPORT_BINS] = {0}, upper[REPORT_BINS];
    for (size_t k = 0; k <= nstack; k++) {
        int other = k == nstack;
        if (other && pg->norder <= nstack)
            break;
        for (size_t b = 0; b < nb; b++) {
            uint64_t v;
            if (other) {
                v = s->total_bins[b];
                for (size_t j = 0; j < nstack; j++)
                    v -= s->bins[(size_t)pg->order[j] * REPORT_BINS + b];
            } else {
                v = s->bins[(size_t)pg->order[k] * REPORT_BINS + b];
            }
            upper[b] = lower[b] + v;
        }
        fprintf(fp, "<path fill=\"%s\" d=\"", report_palette[other ? REPORT_STACKED : k]);
        for (size_t b = 0; b < nb; b++) {
            double x0 = PLOT_W * (double)b / (double)nb, x1 = PLOT_W * (double)(b + 1) / (double)nb;
            double y = MARK_H + PLOT_H - PLOT_H * (double)upper[b] / (double)max;
            fprintf(fp, "%s%.1f %.1fH%.1f", b ? "L" : "M", x0, y, x1);
        }
        for (size_t b = nb; b-- > 0;) {
            double x0 = PLOT_W * (double)b / (double)nb, x1 = PLOT_W * (double)(b + 1) / (double)nb;
            double y = MARK_H + PLOT_H - PLOT_H * (double)lower[b] / (double)max;
            fprintf(fp, "L%.1f %.1fH%.1f", x1, y, x0);
        }
        fputs("Z\"/>\n", fp);
        memcpy(lower, upper, nb * sizeof *lower);
    }
    /* anomalous windows over the series: a veil and a red rule along the top */
    for (size_t i = 0; i < pg->nwindows; i++) {
        size_t k = (size_t)((pg->windows[i].first - 1) / s->window_size);
        double x0 = k < s->win_cap ? pos_x(pg, s->win_lo[k]) : 0;
        double x1 = k < s->win_cap ? pos_x(pg, s->win_hi[k]) : 0;
        double w = x1 - x0 < 2 ? 2 : x1 - x0;
        fprintf(fp, "<rect class=\"anomaly\" x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" "
                    "height=\"%.0f\" fill=\"#c0392b\" fill-opacity=\"0.28\"/>"
                    "<rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"4\" fill=\"#c0392b\"/>\n",
                x0, MARK_H, w, PLOT_H, x0, MARK_H, w);
    }
    /* new templates: a mark in the band above, where each first appeared */
    size_t marks = 0;
    for (size_t i = 0; i < pg->norder && marks < REPORT_TOP_TEMPLATES; i++) {
        const template_stat *t = &s->stats[pg->order[i]];
        if (t->first_line <= pg->warmup)
            continue;
        fprintf(fp, "<rect class=\"newmark\" x=\"%.1f\" y=\"0\" width=\"3\" height=\"%.0f\" "
                    "fill=\"#9a3412\"/>\n",
                pos_x(pg, t->first_pos) - 1.5, MARK_H - 2);
        marks++;
    }
    fputs("</svg></div>\n", fp);
    double span = (double)pg->nbins * s->bin_width;
    fprintf(fp, "<div class=\"axis\"><span>%s</span>", axis_label(s, 0, c2, sizeof c2));
    fprintf(fp, "<span>%s</span>", axis_label(s, span / 2, c2, sizeof c2));
    fprintf(fp, "<span>%s</span></div>\n<ul class=\"legend\">",
            axis_label(s, s->timed ? span : s->max_pos, c3, sizeof c3));
    for (size_t k = 0; k < nstack; k++) {
        const logtk_slice *t = &pg->set->text[pg->order[k]];
        fprintf(fp, "<li><span class=\"sw\" style=\"background:%s\"></span><code>",
                report_palette[k]);
        report_text(fp, t->ptr, t->len, 80);
        fputs("</code></li>", fp);
    }
    if (pg->norder > nstack)
        fprintf(fp, "<li><span class=\"sw\" style=\"background:%s\"></span>%zu other "
                    "templates</li>",
                report_palette[REPORT_STACKED], pg->norder - nstack);
    if (pg->nnew)
        fputs("<li><span class=\"sw\" style=\"background:#9a3412\"></span>a new template "
              "appears</li>",
              fp);
    if (pg->nwindows)
        fputs("<li><span class=\"sw\" style=\"background:#c0392b\"></span>anomalous "
              "window</li>",
              fp);
    fprintf(fp, "</ul>\n<p class=\"note\">Each bin holds %s; the height is lines per bin.",
            bin_words(s, c2, sizeof c2));
    if (s->timed)
        fputs(" Times are UTC.", fp);
    if (s->bad_time)
        fprintf(fp, " %s lines whose time did not parse count at the time of the line before.",
                report_count(c1, s->bad_time));
    if (s->early)
        fprintf(fp, " %s lines older than the first line count at its time.",
                report_count(c1, s->early));
    fputs("</p></section>\n", fp);
}

/* Integers as integers (a byte count reads better whole), others in %g. */
static void put_number(FILE *fp, double v)
{
    char c[32];
    if (v == (double)(int64_t)v && v >= 0 && v < 1e18)
        fputs(report_count(c, (uint64_t)v), fp);
    else
        fprintf(fp, "%.4g", v);
}

/* A parameter's values: the range when all are numbers, then the values
   surely seen more than once, most frequent first (or one example when
   every value differs). */
static void write_params(FILE *fp, const template_stat *t)
{
    if (!t->slots) {
        fputs("<span class=\"note\">none</span>", fp);
        return;
    }
    char c[32];
    fputs("<ul class=\"params\">", fp);
    for (size_t k = 0; k < REPORT_PARAM_POSITIONS && k < t->nparams_max; k++) {
        const param_pos *pos = &t->slots[k];
        const param_slot *slots = pos->slots;
        size_t idx[REPORT_PARAM_SLOTS], n = 0, latest = 0;
        for (size_t j = 0; j < REPORT_PARAM_SLOTS; j++) {
            if (slots[j].count - slots[j].error >= 2)
                idx[n++] = j;
            if (slots[j].count && slots[j].error >= slots[latest].error)
                latest = j;
        }
        for (size_t a = 1; a < n; a++) /* a handful: insertion sort by count */
            for (size_t b = a; b > 0 && slots[idx[b]].count > slots[idx[b - 1]].count; b--) {
                size_t tmp = idx[b];
                idx[b] = idx[b - 1];
                idx[b - 1] = tmp;
            }
        fprintf(fp, "<li data-param=\"%zu\">#%zu ", k + 1, k + 1);
        if (pos->seen && pos->numeric == pos->seen && pos->min != pos->max) {
            fputs("<span class=\"range\">", fp);
            put_number(fp, pos->min);
            fputs("&ndash;", fp);
            put_number(fp, pos->max);
            fputs("</span> ", fp);
        }
        if (n == 0 && pos->seen) {
            fputs("many values, e.g. <code>", fp);
            report_text(fp, slots[latest].value, slots[latest].len, 0);
            fputs(slots[latest].cut ? "\xe2\x80\xa6</code>" : "</code>", fp);
        }
        for (size_t j = 0; j < n && j < REPORT_PARAM_SHOWN; j++) {
            fputs(j ? ", <code>" : "<code>", fp);
            report_text(fp, slots[idx[j]].value, slots[idx[j]].len, 0);
            if (slots[idx[j]].cut)
                fputs("\xe2\x80\xa6", fp);
            fprintf(fp, "</code>&nbsp;&times;%s%s", slots[idx[j]].error ? "~" : "",
                    report_count(c, slots[idx[j]].count));
        }
        fputs("</li>", fp);
    }
    if (t->nparams_max > REPORT_PARAM_POSITIONS)
        fprintf(fp, "<li>+%zu more</li>", t->nparams_max - REPORT_PARAM_POSITIONS);
    fputs("</ul>", fp);
}

static void write_templates(page *pg)
{
    FILE *fp = pg->fp;
    summary *s = pg->s;
    size_t shown = pg->norder < REPORT_TOP_TEMPLATES ? pg->norder : REPORT_TOP_TEMPLATES;
    char c1[32], c2[32];
    fprintf(fp, "<section id=\"templates\" data-shown=\"%zu\" data-total=\"%zu\"><h2>Templates"
                "</h2>\n",
            shown, pg->norder);
    if (shown < pg->norder)
        fprintf(fp, "<p class=\"note\">The %zu most frequent of %s templates.</p>\n", shown,
                report_count(c1, pg->norder));
    fputs("<div class=\"scroll\"><table class=\"cards\">\n<thead><tr><th class=\"hide-narrow\">id</th>"
          "<th>template</th><th>lines</th><th>over the log</th><th class=\"hide-narrow\">share</th>"
          "<th class=\"hide-narrow\">first line</th><th>top parameters</th></tr></thead>\n"
          "<tbody>\n",
          fp);
    for (size_t i = 0; i < shown; i++) {
        uint32_t id = pg->order[i];
        const template_stat *t = &s->stats[id];
        uint64_t count = pg->set->count[id];
        int is_new = t->first_line > pg->warmup;
        fprintf(fp, "<tr data-template-id=\"%u\" data-count=\"%llu\"%s><td class=\"n hide-narrow\">"
                    "E%u</td>"
                    "<td class=\"t\"><code>",
                pg->set->number[id], (unsigned long long)count, is_new ? " data-new=\"1\"" : "",
                pg->set->number[id]); /* the EventId of logtk parse */
        report_text(fp, pg->set->text[id].ptr, pg->set->text[id].len, REPORT_TEXT_MAX);
        fputs("</code>", fp);
        if (is_new)
            fputs("<span class=\"badge new\">new</span>", fp);
        fputs("<p class=\"ex\">e.g. <code>", fp);
        report_text(fp, s->examples + t->example_off, t->example_len, 0);
        if (t->example_cut)
            fputs("\xe2\x80\xa6", fp);
        fprintf(fp, "</code></p></td><td class=\"n\" data-label=\"lines\">%s</td><td>",
                report_count(c1, count));
        report_sparkline(fp, s->bins + (size_t)id * REPORT_BINS, pg->nbins, 0);
        fprintf(fp, "</td><td class=\"n hide-narrow\">%.2f%%</td><td class=\"n hide-narrow\">%s"
                    "</td><td class=\"p\">",
                100.0 * (double)count / (double)(s->lines ? s->lines : 1),
                report_count(c2, t->first_line));
        write_params(fp, t);
        fputs("</td></tr>\n", fp);
    }
    fputs("</tbody></table></div></section>\n", fp);
}

static void write_anomalies(page *pg)
{
    FILE *fp = pg->fp;
    char c1[32], c2[32];
    size_t shown = pg->nwindows < REPORT_TOP_TEMPLATES ? pg->nwindows : REPORT_TOP_TEMPLATES;
    fprintf(fp, "<section id=\"anomalies\" data-windows=\"%zu\" data-anomalous=\"%zu\">"
                "<h2>Anomalous windows</h2>\n<p class=\"note\">%zu of %zu windows of %s lines "
                "scored anomalous by the model.</p>\n",
            pg->nscored, pg->nwindows, pg->nwindows, pg->nscored,
            report_count(c1, pg->window_size));
    if (shown) {
        fputs("<div class=\"scroll\"><table><thead><tr><th>lines</th><th>score</th></tr></thead>"
              "<tbody>\n",
              fp);
        for (size_t i = 0; i < shown; i++)
            fprintf(fp, "<tr class=\"window\"><td>%s&ndash;%s</td><td class=\"n\">%.4g</td></tr>\n",
                    report_count(c1, pg->windows[i].first), report_count(c2, pg->windows[i].last),
                    pg->windows[i].score);
        fputs("</tbody></table></div>", fp);
    }
    fputs("</section>\n", fp);
}

static void write_summary_page(page *pg, const char *title, const char *subtitle)
{
    FILE *fp = pg->fp;
    char c[32], c2[32];
    report_page_begin(fp, title);
    fputs("<header><h1>", fp);
    report_str(fp, title);
    fputs("</h1><p>", fp);
    report_str(fp, subtitle);
    fputs("</p></header>\n<main>\n", fp);
    fprintf(fp, "<section id=\"summary\" data-lines=\"%llu\" data-templates=\"%zu\" "
                "data-new=\"%zu\"><div class=\"tiles\">",
            (unsigned long long)pg->s->lines, pg->norder, pg->nnew);
    fprintf(fp, "<div class=\"tile\"><b>%s</b><span>lines</span></div>",
            report_count(c, pg->s->lines));
    fprintf(fp, "<div class=\"tile\"><b>%s</b><span>templates</span></div>",
            report_count(c, pg->norder));
    fprintf(fp, "<div class=\"tile\"><b>%s</b><span>new after line %s</span></div>",
            report_count(c, pg->nnew), report_count(c2, pg->warmup));
    if (pg->unmatched)
        fprintf(fp, "<div class=\"tile\"><b>%s</b><span>lines not matching the format</span>"
                    "</div>",
                report_count(c, pg->unmatched));
    if (pg->nscored)
        fprintf(fp, "<div class=\"tile\"><b>%zu</b><span>anomalous windows of %zu</span></div>",
                pg->nwindows, pg->nscored);
    fputs("</div></section>\n", fp);
    if (pg->s->lines == 0) {
        fputs("<section id=\"empty\"><p>The input holds no line.</p></section>\n", fp);
    } else {
        write_timeline(pg);
        if (pg->nscored)
            write_anomalies(pg);
        write_templates(pg);
    }
    fputs("</main>\n", fp);
    char note[512];
    snprintf(note, sizeof note,
             "logtk %s report. Caps: %d bins over the log, the %d most frequent templates, %d "
             "stacked, the %d most frequent values of the first %d parameters (approximate "
             "counts: space-saving, ~ marks a count that may be overstated), %d bytes of each text.",
             logtk_version(), REPORT_BINS, REPORT_TOP_TEMPLATES, REPORT_STACKED, REPORT_PARAM_SHOWN,
             REPORT_PARAM_POSITIONS, REPORT_TEXT_MAX);
    report_page_end(fp, note);
}

/* ------------------------------------------------------------ options */

enum { OPT_DETECT = 256, OPT_WINDOW, OPT_DIFF, OPT_TITLE, OPT_TIME_FIELDS, OPT_TIME_FORMAT };

static const struct option long_options[] = {
    CLI_PARSER_LONG_OPTIONS,
    {"detect", required_argument, NULL, OPT_DETECT},
    {"window-size", required_argument, NULL, OPT_WINDOW},
    {"diff", required_argument, NULL, OPT_DIFF},
    {"title", required_argument, NULL, OPT_TITLE},
    {"time-fields", required_argument, NULL, OPT_TIME_FIELDS},
    {"time-format", required_argument, NULL, OPT_TIME_FORMAT},
    {"out", required_argument, NULL, 'o'},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* Returns -1 to go on, or the exit status to return now. */
static int report_arguments(int argc, char **argv, report_options *o, int *first)
{
    int c;
    optind = 1;
    opterr = 0;
    o->window_size = 100;
    o->in.data_exit = EXIT_DATA;
    while ((c = getopt_long(argc, argv, ":o:qh", long_options, NULL)) != -1) {
        int status;
        switch (c) {
        case OPT_DETECT: o->model_path = optarg; break;
        case OPT_WINDOW: {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(optarg, &end, 10);
            if (errno || end == optarg || *end || v == 0 || optarg[0] == '-')
                return cli_usage_error(SUB, "--window-size needs a positive number of lines, "
                                            "got '%s'",
                                       optarg);
            o->window_size = v;
            break;
        }
        case OPT_DIFF: o->diff_path = optarg; break;
        case OPT_TITLE: o->title = optarg; break;
        case OPT_TIME_FIELDS: o->time_fields = optarg; break;
        case OPT_TIME_FORMAT: o->time_format = optarg; break;
        case 'o': o->out_path = optarg; break;
        case 'q': o->quiet = 1; break;
        case 'h': report_usage(stdout); return EXIT_OK;
        case ':': return cli_usage_error(SUB, "option '%s' needs a value", argv[optind - 1]);
        default: /* --dataset, --format, --parser, --param, --mask... (cli_parser_options.c) */
            if (!cli_parser_option(SUB, c, optarg, &o->in, &status))
                return cli_unknown_option(SUB, argv);
            if (status >= 0)
                return status;
        }
    }
    *first = optind;
    size_t ninputs = (size_t)(argc - optind);
    if (!o->time_fields != !o->time_format)
        return cli_usage_error(SUB, "--time-fields and --time-format go together");
    if (o->diff_path) {
        const cli_parser_options *po = &o->in;
        if (ninputs || o->model_path || po->dataset_name || po->format_spec || po->parser_name ||
            po->nmasks || po->nmask_files || po->nparams || po->max_line || po->allow_binary ||
            o->time_fields)
            return cli_usage_error(SUB, "--diff renders a diff file: it takes no LOG, --detect, "
                                        "--time-fields or option that makes a parser "
                                        "(--dataset, --format, --parser, --param, --mask...)");
        char *in[] = {(char *)o->diff_path};
        if (cli_refuse_output_is_input(SUB, "-o", o->out_path, in, 1) != EXIT_OK)
            return EXIT_USAGE;
        return -1;
    }
    int stdin_count = ninputs == 0;
    for (int i = optind; i < argc; i++)
        stdin_count += strcmp(argv[i], "-") == 0;
    if (stdin_count > 1)
        return cli_usage_error(SUB, "standard input ('-') can be read only once");
    char *const *inputs = argv + optind;
    if (cli_refuse_output_is_input(SUB, "-o", o->out_path, inputs, ninputs) != EXIT_OK ||
        (o->model_path && cli_refuse_output_is_input(SUB, "-o", o->out_path,
                                                     (char *const *)&o->model_path, 1) != EXIT_OK))
        return EXIT_USAGE;
    return -1;
}

/* Creates the format and parser.  Returns -1 to go on or an exit status. */
static int report_set_up(const report_options *o, logtk_format **format, logtk_parser **parser)
{
    const logtk_dataset *dataset = NULL;
    int rc = cli_parser_options_format(SUB, &o->in, &dataset, format);
    if (rc < 0)
        rc = cli_parser_options_new_parser(SUB, &o->in, o->in.parser_name, parser);
    if (rc < 0)
        rc = cli_parser_options_configure(SUB, &o->in, dataset, *parser);
    if (rc >= 0)
        return rc;
    /* the summary is taken as lines stream by: it needs each line's template then */
    logtk_event ev;
    logtk_parser *probe = NULL;
    int batch = logtk_parser_new(&probe, logtk_parser_algorithm(*parser)) == LOGTK_OK &&
                logtk_parser_feed(probe, "probe line", 10, &ev) == LOGTK_OK && ev.template_id == 0;
    logtk_parser_free(probe);
    if (batch)
        return cli_usage_error(SUB, "report needs an online parser: %s is a batch parser",
                               logtk_parser_algorithm(*parser));
    return -1;
}

/* Names the header fields of --time-fields by their index in the format.
   Returns -1 to go on or an exit status. */
static int bind_time_fields(summary *s, const report_options *o, const logtk_format *format)
{
    const char *p = o->time_fields;
    s->timed = 1;
    s->time_format = o->time_format;
    while (*p) {
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, " ");
        if (n == 0)
            break;
        size_t f, nf = logtk_format_field_count(format);
        for (f = 0; f < nf; f++) {
            const char *name = logtk_format_field_name(format, f);
            if (strlen(name) == n && memcmp(name, p, n) == 0)
                break;
        }
        if (f == nf)
            return cli_usage_error(SUB, "--time-fields: the log format has no field '%.*s'",
                                   (int)n, p);
        if (s->ntime_fields == REPORT_TIME_FIELDS)
            return cli_usage_error(SUB, "--time-fields: at most %d fields", REPORT_TIME_FIELDS);
        s->time_field[s->ntime_fields++] = f;
        p += n;
    }
    if (s->ntime_fields == 0)
        return cli_usage_error(SUB, "--time-fields names no field");
    return -1;
}

static int run_log_report(const report_options *o, char *const *inputs, size_t ninputs)
{
    logtk_format *format = NULL;
    logtk_parser *parser = NULL;
    summary s;
    cli_template_set set;
    uint32_t *order = NULL;
    window_score *windows = NULL;
    size_t nwindows = 0, nscored = 0;
    cli_output out = {0};
    int opened = 0;
    memset(&s, 0, sizeof s);
    memset(&set, 0, sizeof set);
    s.bin_width = 1;
    s.window_size = o->model_path ? o->window_size : 0;

    int rc = report_set_up(o, &format, &parser);
    if (rc >= 0)
        goto done;
    if (o->time_fields && (rc = bind_time_fields(&s, o, format)) >= 0)
        goto done;
    cli_progress progress;
    cli_progress_init(&progress, "report", o->quiet);
    cli_feed feed = {0};
    feed.subcommand = SUB;
    feed.format = format;
    feed.parser = parser;
    feed.on_line = on_report_line;
    feed.user = &s;
    feed.progress = &progress;
    feed.quiet = o->quiet;
    feed.max_line = o->in.max_line;
    feed.allow_binary = o->in.allow_binary;
    rc = cli_feed_run(&feed, inputs, ninputs);
    cli_progress_end(&progress);
    if (rc != EXIT_OK) {
        cli_feed_explain(&feed, NULL);
        goto done;
    }
    if (logtk_parser_finish(parser) != LOGTK_OK) {
        cli_error(SUB, "%s", logtk_parser_errmsg(parser));
        rc = EXIT_DATA;
        goto done;
    }
    if (cli_template_set_build(&set, parser) != 0 || summary_grow(&s, set.n) != 0) {
        cli_error(SUB, "out of memory");
        rc = EXIT_DATA;
        goto done;
    }
    if (o->model_path &&
        (rc = detect_windows(parser, o->model_path, o->window_size, &windows, &nwindows,
                             &nscored)) != EXIT_OK)
        goto done;

    order = malloc(((size_t)set.n + 1) * sizeof *order);
    if (!order) {
        cli_error(SUB, "out of memory");
        rc = EXIT_DATA;
        goto done;
    }
    page pg = {0};
    pg.s = &s;
    pg.set = &set;
    pg.order = order;
    for (uint32_t id = 1; id <= set.n; id++) {
        if (set.canonical[id] != id)
            summary_fold(&s, set.canonical[id], id);
        else if (set.count[id])
            order[pg.norder++] = id;
    }
    sort_set = &set;
    qsort(order, pg.norder, sizeof *order, by_count_desc);
    sort_set = NULL;
    pg.nbins = (size_t)(s.max_pos / s.bin_width) + 1;
    if (pg.nbins > REPORT_BINS)
        pg.nbins = REPORT_BINS;
    pg.warmup = s.lines / 10;
    for (size_t i = 0; i < pg.norder; i++)
        pg.nnew += s.stats[order[i]].first_line > pg.warmup;
    pg.windows = windows;
    pg.nwindows = nwindows;
    pg.nscored = nscored;
    pg.window_size = o->window_size;
    pg.unmatched = logtk_format_field_count(format) ? feed.unmatched : 0;

    if ((rc = cli_output_open(SUB, o->out_path, &out)) != EXIT_OK)
        goto done;
    opened = 1;
    pg.fp = out.fp;
    char lines_text[32], subtitle[600];
    snprintf(subtitle, sizeof subtitle, "%s lines parsed by %s%s%s%s",
             report_count(lines_text, s.lines), logtk_parser_algorithm(parser),
             o->in.dataset_name ? " with the " : "", o->in.dataset_name ? o->in.dataset_name : "",
             o->in.dataset_name ? " preset" : "");
    const char *title = o->title ? o->title : ninputs ? inputs[0] : "standard input";
    write_summary_page(&pg, title, subtitle);
    rc = cli_output_close(SUB, o->out_path, &out, 1);
    opened = 0;
done:
    if (opened)
        cli_output_close(SUB, o->out_path, &out, 0);
    free(order);
    free(windows);
    cli_template_set_free(&set);
    summary_free(&s);
    logtk_parser_free(parser);
    logtk_format_free(format);
    return rc;
}

static int run_diff_report(const report_options *o)
{
    cli_output out = {0};
    int rc = cli_output_open(SUB, o->out_path, &out);
    if (rc != EXIT_OK)
        return rc;
    rc = report_diff_page(out.fp, o->diff_path, o->title ? o->title : o->diff_path);
    int closed = cli_output_close(SUB, o->out_path, &out, rc == EXIT_OK);
    return rc != EXIT_OK ? rc : closed;
}

int cmd_report(int argc, char **argv)
{
    report_options o;
    memset(&o, 0, sizeof o);
    int first = 0;
    int rc = report_arguments(argc, argv, &o, &first);
    if (rc < 0)
        rc = o.diff_path ? run_diff_report(&o)
                         : run_log_report(&o, argv + first, (size_t)(argc - first));
    cli_parser_options_free(&o.in);
    return rc;
}
