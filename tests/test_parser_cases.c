/*
 * test_parser_cases.c - runs the parser cases written as data: every file
 * NAME.test in tests/parser_cases, in name order, or the files named on the
 * command line.
 *
 * A case feeds a few hand-made lines to one parser and states what must
 * hold: which lines share a template, which do not, the text of a line's
 * template, how many templates there are, which parameters are refused.
 * Cases whose logic is not a table (several runs compared, generated input,
 * every registered parser) stay C, in tests/test_parser_NAME.c.
 *
 * The format (one file per parser, named after it), one directive a line;
 * '#' starts a comment line, blank lines are skipped:
 *
 *   parser NAME            starts a case: a new parser of algorithm NAME
 *   param NAME VALUE       logtk_parser_set_option() must accept it
 *   reject NAME VALUE invalid|not_found
 *                          ... must refuse it with LOGTK_ERR_INVALID or
 *                          LOGTK_ERR_NOT_FOUND
 *   mask REGEX             logtk_parser_add_mask(); REGEX is the rest of the
 *                          line, verbatim
 *   line TEXT              feeds TEXT, the rest of the line after "line ",
 *                          verbatim (trailing blanks included); "line" alone
 *                          feeds an empty line.  Lines are numbered from 0
 *                          in the order fed.
 *
 * The first of these checks finishes the parser (logtk_parser_finish()):
 *
 *   same A B ... [not C ...]  lines A, B, ... have one template, and it is
 *                          not the template of line C, ...
 *   differ A B ...         line A's template is none of lines B, ...
 *   distinct A B ...       lines A, B, ... have pairwise different templates
 *   template A TEXT        line A's template reads TEXT (rest of the line,
 *                          verbatim; "template A" alone: the empty template)
 *   count N                the parser has N templates
 *
 * A case whose lines were fed but that checks nothing is still finished.
 * Every call and every directive counts as one check, as the C tests count
 * theirs (a line's template looked up is one check, once per pair
 * compared), so a case carried over from C passes the same number of checks.
 * A failure, or a directive the driver does not understand, is reported as
 * FILE:LINE and counts as a failed check.
 */
#include "config.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logtk.h"
#include "test_harness.h"

/* The case being run: where it is, its parser, and how many lines it fed. */
typedef struct parser_case {
    const char *file;
    unsigned lineno; /* line of the directive being run */
    logtk_parser *parser;
    const char *algo;
    uint64_t nfed;
    int finished;
} parser_case;

static void case_result(parser_case *c, int ok, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Counts one check; on failure says where in the data file and what. */
static void case_result(parser_case *c, int ok, const char *fmt, ...)
{
    if (ok) {
        test_passed_count++;
        return;
    }
    test_failed_count++;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s:%u: %s: ", c->file, c->lineno, c->algo ? c->algo : "(no parser)");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static void finish_case(parser_case *c)
{
    if (c->parser && !c->finished) {
        int rc = logtk_parser_finish(c->parser);
        case_result(c, rc == LOGTK_OK, "finish returned %d", rc);
        c->finished = 1;
    }
}

static void end_case(parser_case *c)
{
    if (c->parser && c->nfed > 0)
        finish_case(c);
    logtk_parser_free(c->parser);
    c->parser = NULL;
    c->algo = NULL;
    c->nfed = 0;
    c->finished = 0;
}

/* Reads a line number from *s (advancing it); -1 if there is none or it
   names a line the case did not feed. */
static int64_t read_index(parser_case *c, char **s)
{
    char *end;
    while (**s == ' ')
        (*s)++;
    if (**s < '0' || **s > '9')
        return -1;
    unsigned long long v = strtoull(*s, &end, 10);
    *s = end;
    if (v >= c->nfed) {
        case_result(c, 0, "line %llu: the case fed %llu lines", v, (unsigned long long)c->nfed);
        return -2;
    }
    return (int64_t)v;
}

/* Line i's template id; looking it up is a check, as tid() is in C. */
static uint32_t template_of(parser_case *c, int64_t i)
{
    uint32_t id = 0;
    int rc = logtk_parser_assignment(c->parser, (uint64_t)i, &id);
    case_result(c, rc == LOGTK_OK, "no template for line %lld (%d)", (long long)i, rc);
    return id;
}

/* Up to 64 line numbers of a same/differ/distinct directive. */
enum { MAX_INDEXES = 64 };

static int read_indexes(parser_case *c, char **s, int64_t *out, size_t *n)
{
    *n = 0;
    for (;;) {
        int64_t i = read_index(c, s);
        if (i == -2)
            return -1;
        if (i < 0)
            return 0;
        if (*n == MAX_INDEXES) {
            case_result(c, 0, "more than %d line numbers", MAX_INDEXES);
            return -1;
        }
        out[(*n)++] = i;
    }
}

static void check_groups(parser_case *c, const char *kind, char *args)
{
    int64_t lines[MAX_INDEXES], apart[MAX_INDEXES];
    size_t nlines = 0, napart = 0;
    if (read_indexes(c, &args, lines, &nlines) < 0)
        return;
    if (strcmp(kind, "same") == 0 && strncmp(args, "not", 3) == 0 &&
        (args[3] == ' ' || args[3] == '\0')) {
        args += 3;
        if (read_indexes(c, &args, apart, &napart) < 0)
            return;
    }
    while (*args == ' ')
        args++;
    if (nlines < 2 && napart == 0) {
        case_result(c, 0, "%s needs two line numbers or more", kind);
        return;
    }
    if (*args != '\0') {
        case_result(c, 0, "%s: unexpected \"%s\"", kind, args);
        return;
    }
    int ok = 1;
    if (strcmp(kind, "distinct") == 0) {
        for (size_t i = 0; i < nlines; i++)
            for (size_t j = i + 1; j < nlines; j++)
                if (template_of(c, lines[i]) == template_of(c, lines[j])) {
                    fprintf(stderr, "%s:%u: lines %lld and %lld share a template\n", c->file,
                            c->lineno, (long long)lines[i], (long long)lines[j]);
                    ok = 0;
                }
    } else {
        int want_same = strcmp(kind, "same") == 0;
        for (size_t j = 1; j < nlines; j++) {
            uint32_t a = template_of(c, lines[0]), b = template_of(c, lines[j]);
            if ((a == b) != want_same) {
                fprintf(stderr, "%s:%u: lines %lld and %lld have templates %u and %u\n", c->file,
                        c->lineno, (long long)lines[0], (long long)lines[j], (unsigned)a,
                        (unsigned)b);
                ok = 0;
            }
        }
        for (size_t j = 0; j < napart; j++)
            if (template_of(c, lines[0]) == template_of(c, apart[j])) {
                fprintf(stderr, "%s:%u: lines %lld and %lld share a template\n", c->file,
                        c->lineno, (long long)lines[0], (long long)apart[j]);
                ok = 0;
            }
    }
    case_result(c, ok, "%s does not hold", kind);
}

static void check_template(parser_case *c, char *args)
{
    int64_t i = read_index(c, &args);
    if (i == -2)
        return;
    if (i < 0 || (*args != '\0' && *args != ' ')) {
        case_result(c, 0, "template needs a line number");
        return;
    }
    const char *want = *args == ' ' ? args + 1 : args;
    uint32_t id = template_of(c, i);
    logtk_slice t = {0};
    int rc = logtk_parser_template(c->parser, id, &t, NULL);
    case_result(c, rc == LOGTK_OK && t.len == strlen(want) && memcmp(t.ptr, want, t.len) == 0,
                "line %lld: template %u is \"%.*s\", expected \"%s\"", (long long)i, (unsigned)id,
                (int)t.len, t.ptr ? t.ptr : "", want);
}

/* Splits "NAME VALUE [STATUS]" in place. */
static int split_words(char *s, char **words, int max)
{
    int n = 0;
    for (char *tok = strtok(s, " "); tok; tok = strtok(NULL, " ")) {
        if (n == max)
            return -1;
        words[n++] = tok;
    }
    return n;
}

static void run_directive(parser_case *c, char *text)
{
    char *args = strchr(text, ' ');
    size_t klen = args ? (size_t)(args - text) : strlen(text);
    char keyword[16];
    if (klen >= sizeof keyword) {
        case_result(c, 0, "unknown directive \"%s\"", text);
        return;
    }
    memcpy(keyword, text, klen);
    keyword[klen] = '\0';
    args = args ? args + 1 : text + klen; /* the rest, after one space */

    if (strcmp(keyword, "parser") == 0) {
        end_case(c);
        int rc = logtk_parser_new(&c->parser, args);
        c->algo = c->parser ? logtk_parser_algorithm(c->parser) : NULL;
        case_result(c, rc == LOGTK_OK, "no parser \"%s\" (%d)", args, rc);
        return;
    }
    if (c->parser == NULL) {
        case_result(c, 0, "\"%s\" before any \"parser\" line", keyword);
        return;
    }
    if (strcmp(keyword, "line") == 0) {
        if (c->finished) {
            case_result(c, 0, "line after a check: the parser is finished");
            return;
        }
        int rc = logtk_parser_feed(c->parser, args, strlen(args), NULL);
        case_result(c, rc == LOGTK_OK, "feed returned %d", rc);
        c->nfed++;
    } else if (strcmp(keyword, "mask") == 0) {
        int rc = logtk_parser_add_mask(c->parser, args, NULL);
        case_result(c, rc == LOGTK_OK, "mask \"%s\" refused (%d)", args, rc);
    } else if (strcmp(keyword, "param") == 0 || strcmp(keyword, "reject") == 0) {
        int reject = keyword[0] == 'r';
        char *w[3];
        int n = split_words(args, w, 3);
        if (n != (reject ? 3 : 2)) {
            case_result(c, 0, "%s needs NAME VALUE%s", keyword, reject ? " STATUS" : "");
            return;
        }
        int want = LOGTK_OK;
        if (reject && strcmp(w[2], "invalid") == 0)
            want = LOGTK_ERR_INVALID;
        else if (reject && strcmp(w[2], "not_found") == 0)
            want = LOGTK_ERR_NOT_FOUND;
        else if (reject) {
            case_result(c, 0, "reject: status \"%s\" is neither invalid nor not_found", w[2]);
            return;
        }
        int rc = logtk_parser_set_option(c->parser, w[0], w[1]);
        case_result(c, rc == want, "%s=%s returned %d, expected %d", w[0], w[1], rc, want);
    } else if (strcmp(keyword, "same") == 0 || strcmp(keyword, "differ") == 0 ||
               strcmp(keyword, "distinct") == 0) {
        finish_case(c);
        check_groups(c, keyword, args);
    } else if (strcmp(keyword, "template") == 0) {
        finish_case(c);
        check_template(c, args);
    } else if (strcmp(keyword, "count") == 0) {
        finish_case(c);
        char *end;
        unsigned long want = strtoul(args, &end, 10);
        uint32_t have = logtk_parser_template_count(c->parser);
        if (end == args || *end != '\0')
            case_result(c, 0, "count needs a number");
        else
            case_result(c, have == want, "%u templates, expected %lu", (unsigned)have, want);
    } else {
        case_result(c, 0, "unknown directive \"%s\"", keyword);
    }
}

static void run_file(const char *path)
{
    FILE *f = fopen(path, "r");
    parser_case c = {.file = path};
    if (f == NULL) {
        case_result(&c, 0, "cannot open");
        return;
    }
    char *text = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&text, &cap, f)) >= 0) {
        c.lineno++;
        if (len > 0 && text[len - 1] == '\n')
            text[--len] = '\0';
        if (len == 0 || text[0] == '#')
            continue;
        run_directive(&c, text);
    }
    end_case(&c);
    free(text);
    fclose(f);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        for (int i = 1; i < argc; i++)
            run_file(argv[i]);
        return TEST_SUMMARY();
    }
    const char *src = getenv("LOGTK_SRCDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/parser_cases", src ? src : ".");
    DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "%s: cannot open the parser cases\n", dir);
        return 1;
    }
    /* the files, in name order so that the output does not depend on the
       file system's order; their count is not a check, so that the sum of
       checks stays that of the cases */
    char **names = NULL;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len <= 5 || strcmp(e->d_name + len - 5, ".test") != 0)
            continue;
        char **grown = realloc(names, (n + 1) * sizeof *names);
        if (grown == NULL || (grown[n] = strdup(e->d_name)) == NULL) {
            fprintf(stderr, "out of memory\n");
            return 1;
        }
        names = grown;
        n++;
    }
    closedir(d);
    if (n == 0) { /* a missing folder must not pass as "nothing to run" */
        fprintf(stderr, "%s: no .test file\n", dir);
        return 1;
    }
    qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        int before = test_passed_count + test_failed_count;
        run_file(path);
        printf("%s: %d checks\n", names[i], test_passed_count + test_failed_count - before);
        free(names[i]);
    }
    free(names);
    return TEST_SUMMARY();
}
