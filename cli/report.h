/*
 * report.h - `logtk report`'s pieces, shared by cmd_report.c (options, the
 * summary of a parse or detect run), report_diff.c (a diff's JSON Lines) and
 * report_html.c (escaping, the page's frame and its charts).
 *
 * The page is one self-contained HTML file: inline CSS and SVG, no script,
 * and a Content-Security-Policy that forbids every fetch, so opening it never
 * touches the network.  Log text is hostile: everything from the input goes
 * through report_text(), which HTML-escapes it and replaces bytes that are not
 * well-formed UTF-8 (and control bytes) with U+FFFD.
 */
#ifndef LTK_REPORT_H
#define LTK_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Caps that keep the page small whatever the input (see logtk-report(1)). */
#define REPORT_BINS 96          /* points of every time series */
#define REPORT_TOP_TEMPLATES 200 /* template rows shown, by count */
#define REPORT_STACKED 8        /* templates drawn in the stacked timeline; the rest is "other" */
#define REPORT_TEXT_MAX 300     /* bytes of a template or example shown */
#define REPORT_PARAM_POSITIONS 3 /* parameters of a template whose values are counted */
#define REPORT_PARAM_SLOTS 6    /* values counted per parameter (space-saving) */
#define REPORT_PARAM_SHOWN 3    /* values shown per parameter */
#define REPORT_VALUE_MAX 40     /* bytes of a parameter value kept */
#define REPORT_DIFF_ROWS 150    /* diff rows shown, by rank */
#define REPORT_PEER_ROWS 50     /* hosts shown, by rank */
#define REPORT_PEER_TEXT_MAX 120 /* bytes of a template shown in the hosts table */
#define REPORT_EXAMPLES 2       /* examples shown per side of a diff row */

/* Writes s[0..n) HTML-escaped for a text node (& < > escaped), at most `max` bytes of it (0: no limit; a cut
   ends in an ellipsis); malformed UTF-8 and control bytes become U+FFFD, tabs
   and line breaks a space. */
void report_text(FILE *fp, const char *s, size_t n, size_t max);
/* The length to keep of text[0..n) to keep at most max bytes without
   cutting a UTF-8 character in two (n itself when n <= max). */
size_t report_cut(const char *text, size_t n, size_t max);

/* As report_text() for a NUL-terminated string. */
void report_str(FILE *fp, const char *s);

/* The page's head (title escaped), its CSS and the opening of <body>. */
void report_page_begin(FILE *fp, const char *title);
/* Closes the page, with the caps named in a footer note. */
void report_page_end(FILE *fp, const char *note);

/* A sparkline of v[0..n) as inline SVG (max: the value at the top; 0: v's own). */
void report_sparkline(FILE *fp, const uint64_t *v, size_t n, uint64_t max);

/* Formats n with thousands separators into buf (at least 32 bytes). */
const char *report_count(char *buf, uint64_t n);

/* The eight colours of the stacked series, then grey for "other". */
extern const char *const report_palette[REPORT_STACKED + 1];

/* Renders the diff page of a `logtk diff --output jsonl` file to fp.
   Returns 0, or 1 after printing "logtk report: FILE:LINE: why". */
int report_diff_page(FILE *fp, const char *path, const char *title);

#endif
