/*
 * cmd_parse_reply.c - `logtk parse --reply rsyslog`: logtk as an rsyslog
 * message modification plugin (mmexternal).
 *
 * The protocol (rsyslog's plugins/external/INTERFACE.md): rsyslog writes one
 * message per line on our standard input -- the MSG property by default
 * (interface.input="msg"), or the whole message object as one JSON line
 * (interface.input="fulljson", the jsonmesg property, whose "msg" member we
 * parse) -- and reads exactly one JSON line back per message, in order,
 * naming the properties to change; "{}" changes nothing.  We answer
 *
 *   {"$!":{"logtk":{"EventId":"E3","EventKey":"...","EventTemplate":"...",
 *     "ParameterList":[...],"NewTemplate":true,"TemplateChanged":false,
 *     ("ParameterNames":[...] with named masks: --mask NAME=REGEX)
 *     <header fields of --format/--dataset by name>}}}
 *
 * (with --reply-alert, also "Alerts":[{"Kind":"rare-template","EventId":"E7",
 * "Value":1}] and "Anomaly":true when an alert concerns this message's event)
 * which rsyslog merges into the message's $! tree, so a template can use
 * $!logtk!EventId.  Each reply is flushed at once: rsyslog waits for it
 * before it sends the next message of the batch, so a buffered reply would
 * stall the pipeline.  A line we cannot read (fulljson that is not a JSON
 * object with a string "msg") still gets a reply, "{}", and a warning on
 * stderr naming the line, so replies never go out of step with messages; the
 * plugin never exits on bad data, since rsyslog would restart it and lose
 * its templates.
 *
 * Template ids are those of one online parser run (as --stream): rsyslog may
 * start several instances of a plugin, each learning on its own, so the
 * recipe in logtk-shippers(7) sets forceSingleInstance="on".
 */
#include <stdlib.h>
#include <string.h>

#include "parse_shippers.h"

/* ------------------------------------------------- fulljson: the "msg" */

typedef struct json_cursor {
    const char *p, *end;
} json_cursor;

static void skip_blank(json_cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '\n'))
        c->p++;
}

static int hex4(const char *p, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char h = p[i];
        v <<= 4;
        if (h >= '0' && h <= '9')
            v |= (unsigned)(h - '0');
        else if (h >= 'a' && h <= 'f')
            v |= (unsigned)(h - 'a' + 10);
        else if (h >= 'A' && h <= 'F')
            v |= (unsigned)(h - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

static size_t put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xc0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/*
 * Reads a JSON string at c->p (on its opening quote).  With `out` non-NULL the
 * decoded bytes go there (it has room: decoding never makes a string longer
 * than its JSON text) and *len gets their count.  Returns 0 or -1 (not a
 * string, bad escape, unterminated).
 */
static int json_string(json_cursor *c, char *out, size_t *len)
{
    if (c->p >= c->end || *c->p != '"')
        return -1;
    c->p++;
    size_t n = 0;
    while (c->p < c->end) {
        char ch = *c->p++;
        if (ch == '"') {
            if (len)
                *len = n;
            return 0;
        }
        if ((unsigned char)ch < 0x20)
            return -1;
        if (ch != '\\') {
            if (out)
                out[n] = ch;
            n++;
            continue;
        }
        if (c->p >= c->end)
            return -1;
        char e = *c->p++;
        char simple = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'b' ? '\b'
                    : e == 'f' ? '\f' : e == '/' ? '/' : e == '\\' ? '\\' : e == '"' ? '"' : 0;
        if (simple) {
            if (out)
                out[n] = simple;
            n++;
            continue;
        }
        unsigned cp;
        if (e != 'u' || c->end - c->p < 4 || hex4(c->p, &cp) != 0)
            return -1;
        c->p += 4;
        if (cp >= 0xd800 && cp < 0xdc00) { /* a surrogate pair makes one code point */
            unsigned lo;
            if (c->end - c->p >= 6 && c->p[0] == '\\' && c->p[1] == 'u' &&
                hex4(c->p + 2, &lo) == 0 && lo >= 0xdc00 && lo < 0xe000) {
                c->p += 6;
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            } else {
                cp = 0xfffd;
            }
        } else if (cp >= 0xdc00 && cp < 0xe000) {
            cp = 0xfffd;
        }
        char tmp[4];
        size_t k = put_utf8(tmp, cp);
        if (out)
            memcpy(out + n, tmp, k);
        n += k;
    }
    return -1;
}

/* Skips one JSON value of any kind.  Returns 0 or -1. */
static int json_skip(json_cursor *c, int depth)
{
    skip_blank(c);
    if (c->p >= c->end || depth > 64)
        return -1;
    char ch = *c->p;
    if (ch == '"')
        return json_string(c, NULL, NULL);
    if (ch == '{' || ch == '[') {
        char close = ch == '{' ? '}' : ']';
        c->p++;
        skip_blank(c);
        if (c->p < c->end && *c->p == close) {
            c->p++;
            return 0;
        }
        for (;;) {
            if (ch == '{') {
                skip_blank(c);
                if (json_string(c, NULL, NULL) != 0)
                    return -1;
                skip_blank(c);
                if (c->p >= c->end || *c->p++ != ':')
                    return -1;
            }
            if (json_skip(c, depth + 1) != 0)
                return -1;
            skip_blank(c);
            if (c->p >= c->end)
                return -1;
            if (*c->p == ',') {
                c->p++;
                continue;
            }
            if (*c->p++ != close)
                return -1;
            return 0;
        }
    }
    /* a number, true, false, null: up to the next delimiter */
    const char *start = c->p;
    while (c->p < c->end && *c->p != ',' && *c->p != '}' && *c->p != ']' && *c->p != ' ' &&
           *c->p != '\t' && *c->p != '\r' && *c->p != '\n')
        c->p++;
    return c->p > start ? 0 : -1;
}

/*
 * The top-level "msg" member of a JSON object, decoded in place into buf
 * (which holds a copy of the line).  Returns 0 and the message, or -1.
 */
static int fulljson_msg(char *buf, size_t len, const char **msg, size_t *msg_len)
{
    json_cursor c = {buf, buf + len};
    skip_blank(&c);
    if (c.p >= c.end || *c.p++ != '{')
        return -1;
    int found = 0;
    skip_blank(&c);
    if (c.p < c.end && *c.p == '}')
        return -1;
    for (;;) {
        skip_blank(&c);
        char *name = (char *)c.p + 1;
        size_t name_len;
        if (json_string(&c, name, &name_len) != 0)
            return -1;
        skip_blank(&c);
        if (c.p >= c.end || *c.p++ != ':')
            return -1;
        skip_blank(&c);
        if (!found && name_len == 3 && memcmp(name, "msg", 3) == 0 && c.p < c.end &&
            *c.p == '"') {
            char *out = (char *)c.p + 1; /* decoding only shrinks: in place is safe */
            if (json_string(&c, out, msg_len) != 0)
                return -1;
            *msg = out;
            found = 1;
        } else if (json_skip(&c, 0) != 0) {
            return -1;
        }
        skip_blank(&c);
        if (c.p >= c.end)
            return -1;
        if (*c.p == ',') {
            c.p++;
            continue;
        }
        if (*c.p != '}')
            return -1;
        return found ? 0 : -1;
    }
}

/* ------------------------------------------------------------ replies */

typedef struct reply_run {
    const char *sub;
    logtk_format *format;
    logtk_parser *parser;
    logtk_slice *params; /* a copy of the event's slices: the template lookup is another call */
    logtk_slice *names;  /* and of their mask names (named masks only) */
    size_t params_cap;
    int have_names;      /* the event named its parameters' masks */
    char *copy;          /* fulljson: the line, decoded in place */
    size_t copy_cap;
    logtk_stream *alerts; /* --reply-alert: streaming detectors, or NULL */
    uint64_t messages;    /* their clock */
} reply_run;

static int write_reply(reply_run *r, const logtk_record *rec, const logtk_event *ev)
{
    FILE *fp = stdout;
    logtk_slice text = {"", 0};
    uint64_t count, key = 0;
    if (ev->template_id == 0 ||
        logtk_parser_template(r->parser, ev->template_id, &text, &count) != LOGTK_OK ||
        logtk_parser_template_key(r->parser, ev->template_id, &key) != LOGTK_OK) {
        fputs("{}\n", fp);
        return 0;
    }
    int rc = LOGTK_OK;
    fprintf(fp, "{\"$!\":{\"logtk\":{\"EventId\":\"E%u\",\"EventKey\":\"%016llx\",",
            (unsigned)ev->template_id, (unsigned long long)key);
    rc |= logtk_json_write_member(fp, "EventTemplate", text.ptr, text.len);
    fputs(",\"ParameterList\":[", fp);
    for (size_t i = 0; i < ev->nparams; i++) {
        if (i)
            fputc(',', fp);
        rc |= logtk_json_write_string(fp, r->params[i].ptr, r->params[i].len);
    }
    if (r->have_names) {
        /* which named mask (--mask NAME=REGEX) produced each parameter; "" for none */
        fputs("],\"ParameterNames\":[", fp);
        for (size_t i = 0; i < ev->nparams; i++) {
            if (i)
                fputc(',', fp);
            rc |= logtk_json_write_string(fp, r->names[i].ptr, r->names[i].len);
        }
    }
    fprintf(fp, "],\"NewTemplate\":%s,\"TemplateChanged\":%s", ev->created ? "true" : "false",
            ev->changed ? "true" : "false");
    if (r->alerts) {
        const logtk_stream_alert *alerts = NULL;
        size_t n = 0;
        if (logtk_stream_observe(r->alerts, ev->template_id, (double)++r->messages, &alerts, &n) !=
            LOGTK_OK)
            return -1;
        int anomaly = 0;
        fputs(",\"Alerts\":[", fp);
        for (size_t i = 0; i < n; i++) {
            fprintf(fp, "%s{\"Kind\":\"%s\",\"EventId\":\"E%u\",\"Value\":%.17g}", i ? "," : "",
                    logtk_stream_alert_name(alerts[i].kind), (unsigned)alerts[i].event,
                    alerts[i].value);
            anomaly |= alerts[i].event == ev->template_id;
        }
        fprintf(fp, "],\"Anomaly\":%s", anomaly ? "true" : "false");
    }
    if (rec->matched) {
        for (size_t i = 0; i < rec->nfields; i++) {
            fputc(',', fp);
            rc |= logtk_json_write_member(fp, logtk_format_field_name(r->format, i),
                                          rec->fields[i].ptr, rec->fields[i].len);
        }
    }
    fputs("}}}\n", fp);
    return rc == LOGTK_OK ? 0 : -1;
}

/* --reply-alert NAME=VALUE: the streaming detectors.  Returns -1 to go on or an exit status. */
static int set_up_alerts(reply_run *r, const char *const *opts, size_t n)
{
    if (n == 0)
        return -1;
    if (logtk_stream_new(&r->alerts) != LOGTK_OK) {
        cli_error(r->sub, "out of memory");
        return EXIT_DATA;
    }
    for (size_t i = 0; i < n; i++) {
        char name[64];
        const char *eq = strchr(opts[i], '=');
        size_t len = (size_t)(eq - opts[i]);
        if (len >= sizeof name)
            len = sizeof name - 1;
        memcpy(name, opts[i], len);
        name[len] = '\0';
        if (logtk_stream_set_option(r->alerts, name, eq + 1) != LOGTK_OK)
            return cli_usage_error(r->sub, "--reply-alert %s: %s", opts[i],
                                   logtk_stream_errmsg(r->alerts));
    }
    return -1;
}

int cli_parse_reply_run(const char *subcommand, logtk_format *format, logtk_parser *parser,
                        int input_kind, size_t max_line, const char *const *alert_opts,
                        size_t nalert_opts)
{
    reply_run r;
    memset(&r, 0, sizeof r);
    r.sub = subcommand;
    r.format = format;
    r.parser = parser;
    int set_up = set_up_alerts(&r, alert_opts, nalert_opts);
    if (set_up >= 0) {
        logtk_stream_free(r.alerts);
        return set_up;
    }
    logtk_reader *reader = NULL;
    if (logtk_reader_new(&reader) != LOGTK_OK) {
        cli_error(subcommand, "out of memory");
        logtk_stream_free(r.alerts);
        return EXIT_DATA;
    }
    if (max_line)
        logtk_reader_set_max_line(reader, max_line);
    int status = EXIT_OK;
    if (logtk_reader_open_path(reader, "-") != LOGTK_OK) {
        cli_error(subcommand, "%s", logtk_reader_errmsg(reader));
        logtk_reader_free(reader);
        logtk_stream_free(r.alerts);
        return EXIT_DATA;
    }
    logtk_line line;
    logtk_record rec;
    logtk_event ev;
    for (;;) {
        int rc = logtk_reader_next(reader, &line);
        if (rc == LOGTK_DONE)
            break;
        if (rc != LOGTK_OK) {
            cli_error(subcommand, "%s", logtk_reader_errmsg(reader));
            status = EXIT_DATA;
            break;
        }
        const char *msg = line.data;
        size_t msg_len = line.len;
        if (input_kind == REPLY_INPUT_FULLJSON) {
            if (line.len + 1 > r.copy_cap) {
                size_t cap = (line.len + 1) * 2;
                char *bigger = realloc(r.copy, cap);
                if (bigger == NULL) {
                    cli_error(subcommand, "out of memory");
                    status = EXIT_DATA;
                    break;
                }
                r.copy = bigger;
                r.copy_cap = cap;
            }
            memcpy(r.copy, line.data, line.len);
            if (fulljson_msg(r.copy, line.len, &msg, &msg_len) != 0) {
                cli_error(subcommand, "standard input:%llu: not a JSON object with a string "
                                      "\"msg\" (interface.input=\"fulljson\"); replied {}",
                          (unsigned long long)line.number);
                if (fputs("{}\n", stdout) == EOF || fflush(stdout) != 0) {
                    status = EXIT_DATA;
                    break;
                }
                continue;
            }
        }
        logtk_format_match(format, msg, msg_len, &rec); /* LIMIT: kept whole as content */
        rc = logtk_parser_feed(parser, rec.content.ptr, rec.content.len, &ev);
        if (rc != LOGTK_OK && rc != LOGTK_ERR_LIMIT) {
            cli_error(subcommand, "standard input:%llu: %s", (unsigned long long)line.number,
                      logtk_parser_errmsg(parser));
            status = EXIT_DATA;
            break;
        }
        if (ev.nparams > r.params_cap) {
            size_t cap = ev.nparams * 2;
            logtk_slice *bigger = realloc(r.params, cap * sizeof *bigger);
            if (bigger != NULL)
                r.params = bigger;
            logtk_slice *bigger_names = bigger ? realloc(r.names, cap * sizeof *bigger_names) : NULL;
            if (bigger_names == NULL) {
                cli_error(subcommand, "out of memory");
                status = EXIT_DATA;
                break;
            }
            r.names = bigger_names;
            r.params_cap = cap;
        }
        r.have_names = ev.param_names != NULL;
        if (ev.nparams)
            memcpy(r.params, ev.params, ev.nparams * sizeof *r.params);
        if (ev.nparams && r.have_names)
            memcpy(r.names, ev.param_names, ev.nparams * sizeof *r.names);
        if (write_reply(&r, &rec, &ev) != 0 || fflush(stdout) != 0) {
            cli_error(subcommand, "standard output: write error");
            status = EXIT_DATA;
            break;
        }
    }
    logtk_reader_free(reader);
    logtk_stream_free(r.alerts);
    free(r.params);
    free(r.names);
    free(r.copy);
    return status;
}
