/*
 * cmd_parse_export.c - `logtk parse --export lognorm|patterndb FILE`: the
 * learned templates as rules that rsyslog (mmnormalize, liblognorm v2) and
 * syslog-ng (db-parser(), patterndb) run in-process.
 *
 * A template's text cannot be turned into a rule by itself: "<*>" stands for
 * any text, a blank for any blank run, and the rule engines match literal
 * text exactly and fields by their type.  So the exporter watches the lines
 * as pass 2 writes them (each with its final template and its parameters):
 *
 *  - a line's *shape* is the exact text between its non-empty parameters
 *    (blank runs as they are in the line; an empty parameter joins the texts
 *    around it; two parameters with nothing between them are one field,
 *    since no engine can split them);  every distinct shape of a template
 *    becomes one rule, all named by the template's EventId, so a line is
 *    matched by a rule that has its literal text byte for byte;
 *  - each field records the set of bytes it held and whether the literal
 *    after it ever occurred inside it; the field type is the narrowest one
 *    that accepts every value seen and stops where the next literal starts
 *    (number, a word or string of the seen bytes, up to a character or a
 *    string, the rest of the line).  Narrow types are what keep two rules
 *    apart when their templates overlap: both engines try literal text before
 *    fields and give the first rule that matches the whole message, so a
 *    field that would also swallow another template's literal words would
 *    take that template's lines.
 *
 * The rules match the Content part of a line (after the header that the log
 * format splits off): the shipper hands in the message ($msg in rsyslog,
 * $MESSAGE in syslog-ng), not the raw line.  See logtk-shippers(7).
 *
 * Memory: one record per template shape and 32 bytes per field; nothing per
 * line (the shape key is built in a reused buffer).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "parse_shippers.h"

/* More shapes than this for one template means its blanks or empty parameters
 * vary without end; its further shapes are left out (and counted). */
#define MAX_SHAPES_PER_TEMPLATE 256

enum { EXPORT_LOGNORM, EXPORT_PATTERNDB };

typedef struct export_field {
    uint8_t bytes[32]; /* bit b: byte b occurred in the value */
    int stop_inside;   /* the literal after the field occurred inside a value */
    int pdb_stop_inside; /* the same for patterndb's stop string (the literal up to '@') */
    int not_ipv4;      /* a value was not a dotted-quad IPv4 address */
} export_field;

typedef struct export_shape {
    uint32_t template_id;
    uint32_t next;        /* next shape of the same template + 1, 0 = none */
    uint64_t hash;
    uint64_t lines;
    size_t nfields;
    char *key;            /* nfields + 1 literals, each followed by '\0' */
    size_t key_len;
    export_field *fields;
} export_shape;

struct cli_export {
    int kind;
    export_shape *shapes;
    size_t nshapes, cap;
    uint32_t *first;       /* [template id] first shape + 1 */
    uint32_t *count;       /* [template id] shapes */
    size_t ntemplates;     /* size of first/count */
    uint64_t skipped;
    /* per-line scratch, reused */
    char *key;
    size_t key_cap;
    size_t *range;         /* 2 per field: start, end */
    size_t range_cap;
};

int cli_export_kind_known(const char *kind)
{
    return strcmp(kind, "lognorm") == 0 || strcmp(kind, "patterndb") == 0;
}

cli_export *cli_export_new(const char *kind)
{
    if (!cli_export_kind_known(kind))
        return NULL;
    cli_export *x = calloc(1, sizeof *x);
    if (x)
        x->kind = strcmp(kind, "lognorm") == 0 ? EXPORT_LOGNORM : EXPORT_PATTERNDB;
    return x;
}

uint64_t cli_export_skipped(const cli_export *x) { return x->skipped; }

void cli_export_free(cli_export *x)
{
    if (x == NULL)
        return;
    for (size_t i = 0; i < x->nshapes; i++) {
        free(x->shapes[i].key);
        free(x->shapes[i].fields);
    }
    free(x->shapes);
    free(x->first);
    free(x->count);
    free(x->key);
    free(x->range);
    free(x);
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *bigger = realloc(*p, n * size);
    if (bigger == NULL)
        return -1;
    *p = bigger;
    *cap = n;
    return 0;
}

/* patterndb's stop string for a field: the literal after it up to its first
 * '@' (an ESTRING argument cannot hold '@'); the rest follows as literal text. */
static size_t pdb_stop_len(const char *literal)
{
    const char *at = strchr(literal, '@');
    return at ? (size_t)(at - literal) : strlen(literal);
}

/* A dotted quad, each part 0..255 in at most 3 digits. */
static int is_ipv4(const unsigned char *v, size_t n)
{
    size_t i = 0;
    for (int part = 0; part < 4; part++) {
        if (part) {
            if (i >= n || v[i] != '.')
                return 0;
            i++;
        }
        unsigned value = 0, digits = 0;
        while (i < n && v[i] >= '0' && v[i] <= '9' && digits < 4) {
            value = value * 10 + (unsigned)(v[i] - '0');
            digits++;
            i++;
        }
        if (digits == 0 || digits > 3 || value > 255)
            return 0;
    }
    return i == n;
}

static int contains(const char *hay, size_t n, const char *needle, size_t k)
{
    return k > 0 && k <= n && memmem(hay, n, needle, k) != NULL;
}

int cli_export_observe(cli_export *x, uint32_t id, const char *content, size_t len,
                       const logtk_slice *params, size_t nparams)
{
    if (memchr(content, '\0', len) != NULL) { /* no rule language can hold a NUL */
        x->skipped++;
        return 0;
    }
    /* the fields: non-empty parameters, neighbours with nothing between joined */
    if (grow((void **)&x->range, &x->range_cap, 2 * nparams + 2, sizeof *x->range) != 0)
        return -1;
    size_t nf = 0;
    for (size_t i = 0; i < nparams; i++) {
        if (params[i].len == 0)
            continue;
        size_t start = (size_t)(params[i].ptr - content), end = start + params[i].len;
        if (params[i].ptr < content || end > len) { /* not the content's own text */
            x->skipped++;
            return 0;
        }
        if (nf && x->range[2 * nf - 1] == start)
            x->range[2 * nf - 1] = end;
        else {
            x->range[2 * nf] = start;
            x->range[2 * nf + 1] = end;
            nf++;
        }
    }
    /* the key: the literals, each ended by '\0' */
    if (grow((void **)&x->key, &x->key_cap, len + nf + 2, 1) != 0)
        return -1;
    size_t k = 0, at = 0;
    for (size_t f = 0; f <= nf; f++) {
        size_t stop = f < nf ? x->range[2 * f] : len;
        memcpy(x->key + k, content + at, stop - at);
        k += stop - at;
        x->key[k++] = '\0';
        if (f < nf)
            at = x->range[2 * f + 1];
    }
    uint64_t h = cli_string_hash(x->key, k) ^ id;

    if (id >= x->ntemplates) {
        size_t old = x->ntemplates, n = old;
        if (grow((void **)&x->first, &n, (size_t)id + 1, sizeof *x->first) != 0)
            return -1;
        n = old;
        if (grow((void **)&x->count, &n, (size_t)id + 1, sizeof *x->count) != 0)
            return -1;
        memset(x->first + old, 0, (n - old) * sizeof *x->first);
        memset(x->count + old, 0, (n - old) * sizeof *x->count);
        x->ntemplates = n;
    }
    export_shape *s = NULL;
    for (uint32_t i = x->first[id]; i; i = x->shapes[i - 1].next) {
        export_shape *c = &x->shapes[i - 1];
        if (c->hash == h && c->key_len == k && c->nfields == nf && memcmp(c->key, x->key, k) == 0) {
            s = c;
            break;
        }
    }
    if (s == NULL) {
        if (x->count[id] >= MAX_SHAPES_PER_TEMPLATE) {
            x->skipped++;
            return 0;
        }
        if (grow((void **)&x->shapes, &x->cap, x->nshapes + 1, sizeof *x->shapes) != 0)
            return -1;
        s = &x->shapes[x->nshapes];
        memset(s, 0, sizeof *s);
        s->key = malloc(k);
        s->fields = calloc(nf ? nf : 1, sizeof *s->fields);
        if (s->key == NULL || s->fields == NULL) {
            free(s->key);
            free(s->fields);
            return -1;
        }
        memcpy(s->key, x->key, k);
        s->key_len = k;
        s->nfields = nf;
        s->hash = h;
        s->template_id = id;
        /* appended at the end of the template's list: rules keep arrival order */
        uint32_t *link = &x->first[id];
        while (*link)
            link = &x->shapes[*link - 1].next;
        *link = (uint32_t)++x->nshapes;
        x->count[id]++;
    }
    s->lines++;
    const char *lit = s->key;
    for (size_t f = 0; f < nf; f++) {
        const unsigned char *v = (const unsigned char *)content + x->range[2 * f];
        size_t n = x->range[2 * f + 1] - x->range[2 * f];
        export_field *fd = &s->fields[f];
        for (size_t i = 0; i < n; i++)
            fd->bytes[v[i] >> 3] |= (uint8_t)(1u << (v[i] & 7));
        lit += strlen(lit) + 1; /* the literal after field f */
        size_t ll = strlen(lit);
        if (!fd->stop_inside && contains((const char *)v, n, lit, ll))
            fd->stop_inside = 1;
        if (!fd->pdb_stop_inside && contains((const char *)v, n, lit, pdb_stop_len(lit)))
            fd->pdb_stop_inside = 1;
        if (!fd->not_ipv4 && !is_ipv4(v, n))
            fd->not_ipv4 = 1;
    }
    return 0;
}

/* ------------------------------------------------------------ writing */

static int has_byte(const export_field *f, unsigned char c)
{
    return (f->bytes[c >> 3] >> (c & 7)) & 1;
}

static int only_digits(const export_field *f)
{
    for (int c = 0; c < 256; c++)
        if (has_byte(f, (unsigned char)c) && !(c >= '0' && c <= '9'))
            return 0;
    return 1;
}

/* Text valid as XML 1.0 character data: well-formed UTF-8, no control bytes but tab. */
static int xml_safe(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        unsigned c = p[i];
        if (c < 0x80) {
            if (c < 0x20 && c != '\t')
                return 0;
            i++;
            continue;
        }
        size_t k = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
        if (k == 0 || i + k > n)
            return 0;
        for (size_t j = 1; j < k; j++)
            if ((p[i + j] & 0xc0) != 0x80)
                return 0;
        i += k;
    }
    return 1;
}

static void xml_text(FILE *fp, const char *s, size_t n, int double_at)
{
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case '&': fputs("&amp;", fp); break;
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '\'': fputs("&apos;", fp); break;
        case '"': fputs("&quot;", fp); break;
        case '@': fputs(double_at ? "@@" : "@", fp); break;
        default: fputc(s[i], fp);
        }
    }
}

/* A liblognorm literal: '%' starts a field and '\' an escape, so both are doubled. */
static void lognorm_literal(FILE *fp, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%')
            fputs("%%", fp);
        else if (s[i] == '\\')
            fputs("\\\\", fp);
        else
            fputc(s[i], fp);
    }
}

/* A JSON string inside a liblognorm field: '%' would end the field, so it is \u0025. */
static void lognorm_json_string(FILE *fp, const char *s, size_t n)
{
    fputc('"', fp);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(fp, "\\%c", c);
        else if (c < 0x20 || c == '%')
            fprintf(fp, "\\u%04x", c);
        else
            fputc(c, fp);
    }
    fputc('"', fp);
}

/*
 * One liblognorm field: the narrowest type that took every value seen.
 * `literal_after` is the literal text the rule still has after the field:
 * where the parse DAG offers several fields at one point, the one leading to
 * more literal text (the more specific template, as logtk would pick) is
 * tried first.  Literals keep liblognorm's default priority, 30000, so they
 * are still tried before any field.
 */
static unsigned lognorm_priority(size_t literal_after)
{
    return 30001 + 20000 - (unsigned)(literal_after < 20000 ? literal_after : 20000);
}

/* (priority 0: left out, for comparing fields) */
static void lognorm_field(FILE *fp, const export_field *f, size_t index, const char *next,
                          unsigned priority)
{
    size_t nl = strlen(next);
    fprintf(fp, "%%{\"name\":\"p%zu\",", index);
    if (priority)
        fprintf(fp, "\"priority\":%u,", priority);
    fputs("\"type\":", fp);
    if (only_digits(f) && !(nl && isdigit((unsigned char)next[0])))
        fputs("\"number\"", fp);
    else if (!f->not_ipv4 && !(nl && (isdigit((unsigned char)next[0]))))
        fputs("\"ipv4\"", fp);
    else if (nl == 0)
        fputs(has_byte(f, ' ') ? "\"rest\"" : "\"word\"", fp);
    else if (next[0] == ' ' && !has_byte(f, ' '))
        fputs("\"word\"", fp);
    else if (!has_byte(f, (unsigned char)next[0]) || nl == 1) {
        /* (liblognorm 2.0.6's string-to never matches a one-byte string; for
         * one byte, char-to means the same: up to its first occurrence) */
        fputs("\"char-to\",\"extradata\":", fp);
        lognorm_json_string(fp, next, 1);
    } else {
        /* a value held the first byte of the next literal: up to the whole literal
         * (when a value held that too, the first occurrence ends the field) */
        fputs("\"string-to\",\"extradata\":", fp);
        lognorm_json_string(fp, next, nl);
    }
    fputs("}%", fp);
}

/*
 * One patterndb field; *consumed receives how many bytes of the next literal
 * the parser takes (ESTRING eats its stop string).  Returns 0 when the field
 * cannot be written (its values hold every byte that could end it and the
 * next literal starts with '@', which no ESTRING argument can hold).
 */
static int pdb_field(FILE *fp, const export_field *f, size_t index, const char *next,
                     size_t *consumed)
{
    size_t nl = strlen(next);
    *consumed = 0;
    if (only_digits(f) && !(nl && (isdigit((unsigned char)next[0]) || next[0] == 'x' ||
                                    next[0] == 'X' || next[0] == '.'))) {
        fprintf(fp, "@NUMBER:p%zu@", index);
        return 1;
    }
    if (!f->not_ipv4 && !(nl && isdigit((unsigned char)next[0]))) {
        fprintf(fp, "@IPv4:p%zu@", index);
        return 1;
    }
    if (!has_byte(f, '@') &&
        (nl == 0 || (!has_byte(f, (unsigned char)next[0]) && !isalnum((unsigned char)next[0])))) {
        /* STRING: alphanumerics plus the other bytes seen, greedy (so it must
         * stop at the next literal's first byte: neither seen nor alphanumeric) */
        char extra[257];
        size_t k = 0;
        for (int c = 1; c < 256; c++)
            if (has_byte(f, (unsigned char)c) && !isalnum(c))
                extra[k++] = (char)c;
        if (xml_safe(extra, k)) {
            fprintf(fp, "@STRING:p%zu:", index);
            xml_text(fp, extra, k, 0);
            fputc('@', fp);
            return 1;
        }
    }
    if (nl == 0) {
        fprintf(fp, "@ANYSTRING:p%zu@", index);
        return 1;
    }
    size_t stop = pdb_stop_len(next);
    if (stop == 0)
        return 0;
    fprintf(fp, "@ESTRING:p%zu:", index);
    xml_text(fp, next, stop, 0);
    fputc('@', fp);
    *consumed = stop;
    return 1;
}

/* One rule (a template's shape) while it is being written. */
typedef struct out_rule {
    const export_shape *s;
    FILE *fp;           /* open_memstream over buf/len */
    char *buf;
    size_t len;
    const char *next;   /* the literal after the field being written */
    size_t skip;        /* bytes of `next` the field's parser consumed */
    int dead;           /* cannot be written in this format */
} out_rule;

static int by_text(const void *a, const void *b)
{
    const out_rule *x = *(const out_rule *const *)a, *y = *(const out_rule *const *)b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->buf, y->buf, n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

static void write_literal(int kind, out_rule *r)
{
    size_t n = strlen(r->next);
    if (kind == EXPORT_LOGNORM)
        lognorm_literal(r->fp, r->next + r->skip, n - r->skip);
    else
        xml_text(r->fp, r->next + r->skip, n - r->skip, 1);
}

/*
 * Builds the text of every rule, field by field.  Rules whose text so far is
 * the same share a path in the engine's tree (liblognorm's parse DAG,
 * syslog-ng's radix tree) only when their next field is written the same way
 * too; both engines then try literal text before fields further on, as logtk
 * prefers the template with the word over the one with "<*>" there.  So the
 * field is typed once per group of rules with the same text so far, from the
 * bytes seen in all of them: "rhost=<*> user=<*>" and "rhost=<*> user=guest"
 * get the same rhost field, and "guest" wins over the user field.
 */
static int build_rules(cli_export *x, out_rule *rules, size_t n)
{
    size_t maxf = 0;
    for (size_t i = 0; i < n; i++) {
        out_rule *r = &rules[i];
        const export_shape *s = r->s;
        if (x->kind == EXPORT_PATTERNDB) {
            const char *lit = s->key;
            for (size_t f = 0; f <= s->nfields && !r->dead; f++) {
                size_t len = strlen(lit);
                r->dead = !xml_safe(lit, len);
                lit += len + 1;
            }
        }
        if (r->dead)
            continue;
        if ((r->fp = open_memstream(&r->buf, &r->len)) == NULL)
            return -1;
        r->next = s->key;
        write_literal(x->kind, r);
        if (s->nfields > maxf)
            maxf = s->nfields;
    }
    out_rule **order = malloc((n ? n : 1) * sizeof *order);
    size_t *after = malloc((n ? n : 1) * sizeof *after); /* [k] literal bytes after the field */
    char **spec = calloc(n ? n : 1, sizeof *spec);         /* [k] the field's text, lognorm */
    size_t *spec_len = calloc(n ? n : 1, sizeof *spec_len);
    if (order == NULL || after == NULL || spec == NULL || spec_len == NULL) {
        free(order);
        free(after);
        free(spec);
        free(spec_len);
        return -1;
    }
    for (size_t f = 0; f < maxf; f++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            if (rules[i].dead || rules[i].s->nfields <= f)
                continue;
            if (fflush(rules[i].fp) != 0) {
                free(order);
                return -1;
            }
            order[m++] = &rules[i];
        }
        qsort(order, m, sizeof *order, by_text);
        for (size_t i = 0, j; i < m; i = j) {
            export_field merged = order[i]->s->fields[f];
            for (j = i + 1; j < m && by_text(&order[i], &order[j]) == 0; j++) {
                const export_field *o = &order[j]->s->fields[f];
                for (int b = 0; b < 32; b++)
                    merged.bytes[b] |= o->bytes[b];
                merged.stop_inside |= o->stop_inside;
                merged.pdb_stop_inside |= o->pdb_stop_inside;
                merged.not_ipv4 |= o->not_ipv4;
            }
            for (size_t k = i; k < j; k++) {
                out_rule *r = order[k];
                r->next += strlen(r->next) + 1;
                r->skip = 0;
                after[k] = 0;
                const char *lit = r->next;
                for (size_t g = f + 1; g <= r->s->nfields; g++) {
                    after[k] += strlen(lit);
                    lit += strlen(lit) + 1;
                }
                if (x->kind == EXPORT_LOGNORM) {
                    FILE *mem = open_memstream(&spec[k], &spec_len[k]);
                    if (mem == NULL)
                        goto nomem;
                    lognorm_field(mem, &merged, f + 1, r->next, 0);
                    fclose(mem);
                }
            }
            for (size_t k = i; k < j; k++) {
                out_rule *r = order[k];
                if (x->kind == EXPORT_LOGNORM) {
                    /* the same field in several rules is one node of the DAG only
                     * with one priority (liblognorm 2.0.6 fails to match when many
                     * equal fields differ in priority): the most specific rule's */
                    size_t best = after[k];
                    for (size_t g = i; g < j; g++)
                        if (after[g] > best && spec_len[g] == spec_len[k] &&
                            memcmp(spec[g], spec[k], spec_len[k]) == 0)
                            best = after[g];
                    lognorm_field(r->fp, &merged, f + 1, r->next, lognorm_priority(best));
                } else if (!pdb_field(r->fp, &merged, f + 1, r->next, &r->skip)) {
                    r->dead = 1;
                    continue;
                }
                write_literal(x->kind, r);
            }
            for (size_t k = i; k < j; k++) {
                free(spec[k]);
                spec[k] = NULL;
            }
        }
    }
    free(order);
    free(after);
    free(spec);
    free(spec_len);
    for (size_t i = 0; i < n; i++)
        if (rules[i].fp && fflush(rules[i].fp) != 0)
            return -1;
    return 0;
nomem:
    for (size_t k = 0; k < n; k++)
        free(spec[k]);
    free(order);
    free(after);
    free(spec);
    free(spec_len);
    return -1;
}

int cli_export_write(cli_export *x, FILE *fp, const cli_template_set *set)
{
    /* the rules in template order, each template's shapes in arrival order */
    size_t n = 0;
    for (uint32_t id = 1; id <= set->n; id++)
        if (set->canonical[id] == id && id < x->ntemplates)
            n += x->count[id];
    out_rule *rules = calloc(n ? n : 1, sizeof *rules);
    if (rules == NULL)
        return -1;
    size_t k = 0;
    for (uint32_t id = 1; id <= set->n; id++)
        if (set->canonical[id] == id && id < x->ntemplates)
            for (uint32_t i = x->first[id]; i; i = x->shapes[i - 1].next)
                rules[k++].s = &x->shapes[i - 1];
    int rc = build_rules(x, rules, n);

    if (rc == 0 && x->kind == EXPORT_LOGNORM) {
        fputs("version=2\n"
              "# liblognorm v2 rulebase written by logtk parse --export lognorm.\n"
              "# One rule per shape of each learned template, tagged with its EventId;\n"
              "# annotate adds logtk_key, the template's content key.  The rules match\n"
              "# the message content (after the header).\n",
              fp);
    } else if (rc == 0) {
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        fprintf(fp,
                "<?xml version='1.0' encoding='UTF-8'?>\n"
                "<!-- syslog-ng patterndb written by logtk parse --export patterndb: one rule per\n"
                "     learned template (id = its EventId), one pattern per shape of its lines;\n"
                "     the patterns match the message content (after the header). -->\n"
                "<patterndb version='5' pub_date='%04d-%02d-%02d'>\n"
                "  <ruleset name='logtk' id='logtk'>\n"
                "    <rules>\n",
                tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
    }
    for (size_t i = 0, j; rc == 0 && i < n; i = j) {
        uint32_t id = rules[i].s->template_id;
        int live = 0;
        for (j = i; j < n && rules[j].s->template_id == id; j++) {
            if (rules[j].dead)
                x->skipped += rules[j].s->lines;
            else
                live++;
        }
        if (live == 0) /* patterndb refuses a rule without patterns */
            continue;
        if (x->kind == EXPORT_LOGNORM) {
            fputs("\n# ", fp);
            for (size_t c = 0; c < set->text[id].len; c++) {
                char ch = set->text[id].ptr[c];
                fputc(ch == '\n' || ch == '\r' ? ' ' : ch, fp);
            }
            fputc('\n', fp);
            for (size_t r = i; r < j; r++)
                fprintf(fp, "rule=E%u:%.*s\n", (unsigned)set->number[id], (int)rules[r].len, rules[r].buf);
            fprintf(fp, "annotate=E%u:+logtk_key=\"%016llx\"\n", (unsigned)set->number[id],
                    (unsigned long long)set->key[id]);
        } else {
            fprintf(fp, "      <rule provider='logtk' id='E%u' class='logtk'>\n        <patterns>\n",
                    (unsigned)set->number[id]);
            for (size_t r = i; r < j; r++)
                if (!rules[r].dead)
                    fprintf(fp, "          <pattern>%.*s</pattern>\n", (int)rules[r].len,
                            rules[r].buf);
            fprintf(fp,
                    "        </patterns>\n"
                    "        <values>\n"
                    "          <value name='logtk.event'>E%u</value>\n"
                    "          <value name='logtk.key'>%016llx</value>\n"
                    "        </values>\n"
                    "      </rule>\n",
                    (unsigned)set->number[id], (unsigned long long)set->key[id]);
        }
    }
    if (rc == 0 && x->kind == EXPORT_PATTERNDB)
        fputs("    </rules>\n  </ruleset>\n</patterndb>\n", fp);
    for (size_t i = 0; i < n; i++) {
        if (rules[i].fp)
            fclose(rules[i].fp);
        free(rules[i].buf);
    }
    free(rules);
    return rc == 0 && !ferror(fp) ? 0 : -1;
}
