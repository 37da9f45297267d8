/*
 * report_html.c - the frame of `logtk report`'s page: escaping of hostile
 * text, the head with its CSS and Content-Security-Policy, sparklines.
 *
 * Why no script: everything a reader needs (series, tables, shading) is
 * computed in C and drawn as SVG, so the page needs nothing to run and the
 * policy can be "default-src 'none'" -- any fetch the page attempted would be
 * refused and logged, which the browser test looks for.
 *
 * Why the responsive CSS is this simple: tables scroll inside their card on a
 * narrow screen rather than reflowing, the charts are SVG with a viewBox and
 * width 100%, so they scale, and the summary tiles wrap.
 */
#include <string.h>

#include "report.h"

const char *const report_palette[REPORT_STACKED + 1] = {
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f",
    "#bab0ac"};

/* Length of the well-formed UTF-8 sequence at s (Unicode 15, table 3-7), or 0. */
static size_t utf8_length(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    size_t len;
    unsigned char lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf)
        len = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        if (c == 0xe0)
            lo = 0xa0; /* no overlong forms */
        if (c == 0xed)
            hi = 0x9f; /* no surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        if (c == 0xf0)
            lo = 0x90;
        if (c == 0xf4)
            hi = 0x8f; /* nothing above U+10FFFF */
    } else
        return 0;
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return len;
}

size_t report_cut(const char *text, size_t n, size_t max)
{
    if (n <= max)
        return n;
    /* back off over continuation bytes to the start of the cut character
       (at most 3: a longer run is not UTF-8 and is cut anywhere) */
    size_t cut = max;
    for (int i = 0; i < 3 && cut > 0 && ((unsigned char)text[cut] & 0xc0) == 0x80; i++)
        cut--;
    return ((unsigned char)text[cut] & 0xc0) == 0x80 ? max : cut;
}

/* Text nodes only (never attribute values), so quotes need no escaping and
   a byte grows to at most 5 ("&amp;"): that bounds the page's size. */
void report_text(FILE *fp, const char *text, size_t n, size_t max)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t i = 0;
    int cut = 0;
    if (max && n > max) {
        n = report_cut(text, n, max);
        cut = 1;
    }
    while (i < n) {
        unsigned char c = s[i];
        size_t len = utf8_length(s + i, n - i);
        if (len == 0) {
            fputs("\xef\xbf\xbd", fp); /* U+FFFD for each bad byte */
            i++;
            continue;
        }
        if (len > 1) {
            fwrite(s + i, 1, len, fp);
            i += len;
            continue;
        }
        switch (c) {
        case '&': fputs("&amp;", fp); break;
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '\t': case '\n': case '\r': fputc(' ', fp); break;
        default:
            if (c < 0x20 || c == 0x7f)
                fputs("\xef\xbf\xbd", fp);
            else
                fputc(c, fp);
        }
        i++;
    }
    if (cut)
        fputs("\xe2\x80\xa6", fp);
}

void report_str(FILE *fp, const char *s)
{
    report_text(fp, s, strlen(s), 0);
}

const char *report_count(char *buf, uint64_t n)
{
    char digits[32];
    int len = snprintf(digits, sizeof digits, "%llu", (unsigned long long)n);
    int out = 0;
    for (int i = 0; i < len; i++) {
        if (i && (len - i) % 3 == 0)
            buf[out++] = ',';
        buf[out++] = digits[i];
    }
    buf[out] = '\0';
    return buf;
}

static const char page_css[] =
    ":root{--fg:#1d2330;--muted:#5b6475;--line:#dde1e8;--bg:#f5f6f8;--card:#fff;"
    "--accent:#4e79a7;--bad:#c0392b;--good:#2e7d32}\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"
    "'Segoe UI',Roboto,'DejaVu Sans',sans-serif}\n"
    "header{background:#1d2330;color:#fff;padding:18px 24px}\n"
    "header h1{margin:0;font-size:20px;font-weight:600;overflow-wrap:anywhere}\n"
    "header p{margin:4px 0 0;color:#c5cbd6;font-size:13px;overflow-wrap:anywhere}\n"
    "main{max-width:1200px;margin:0 auto;padding:16px}\n"
    "section{background:var(--card);border:1px solid var(--line);border-radius:8px;"
    "padding:16px;margin:0 0 16px}\n"
    "h2{font-size:16px;margin:0 0 10px}\n"
    ".tiles{display:flex;flex-wrap:wrap;gap:10px}\n"
    ".tile{flex:1 1 140px;border:1px solid var(--line);border-radius:6px;padding:10px 12px}\n"
    ".tile b{display:block;font-size:22px;font-variant-numeric:tabular-nums}\n"
    ".tile span{color:var(--muted);font-size:12px}\n"
    ".chart svg{width:100%;height:auto;display:block}\n"
    ".chart svg.timeline{height:240px}\n"
    ".axis{display:flex;justify-content:space-between;color:var(--muted);font-size:11px;"
    "margin:2px 0}\n"
    ".legend{display:flex;flex-wrap:wrap;gap:4px 14px;margin:8px 0 0;padding:0;list-style:none;"
    "font-size:12px}\n"
    ".legend li{display:flex;align-items:center;gap:6px;min-width:0;max-width:100%}\n"
    ".legend li code{overflow:hidden;text-overflow:ellipsis;white-space:nowrap;max-width:34ch}\n"
    ".sw{display:inline-block;width:10px;height:10px;border-radius:2px;flex:none}\n"
    ".scroll{overflow-x:auto}\n"
    "table{border-collapse:collapse;width:100%;font-size:13px}\n"
    "th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--line);vertical-align:top}\n"
    "th{color:var(--muted);font-weight:600;font-size:12px;white-space:nowrap}\n"
    "td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "code{font:12px/1.4 ui-monospace,'DejaVu Sans Mono',monospace;overflow-wrap:anywhere}\n"
    "td.t{min-width:18ch;max-width:60ch}\n"
    ".badge{display:inline-block;font-size:11px;font-weight:600;border-radius:10px;padding:0 7px;"
    "margin-left:4px;white-space:nowrap}\n"
    ".new,.appeared{background:#fde2d2;color:#9a3412}\n"
    ".vanished{background:#e0e7ff;color:#3730a3}\n"
    ".changed{background:#fef3c7;color:#92400e}\n"
    ".same{background:#eceff3;color:var(--muted)}\n"
    ".sig{background:#fee2e2;color:var(--bad)}\n"
    ".params{margin:0;padding:0;list-style:none;font-size:12px;color:var(--muted)}\n"
    ".params code{color:var(--fg);background:#f1f3f6;border-radius:3px;padding:0 3px}\n"
    ".ex{margin:2px 0;font-size:12px;color:var(--muted)}\n"
    ".ex code{color:var(--fg)}\n"
    ".spark{width:120px;height:24px;display:block}\n"
    ".bars{width:120px;height:28px;display:block}\n"
    ".note{color:var(--muted);font-size:12px}\n"
    "footer{max-width:1200px;margin:0 auto;padding:0 16px 24px;color:var(--muted);font-size:12px}\n"
    ".hbars{display:grid;grid-template-columns:minmax(0,2fr) minmax(0,3fr);gap:4px 10px;"
    "align-items:center;font-size:12px;margin:0 0 12px}\n"
    ".hbars code{overflow:hidden;text-overflow:ellipsis;white-space:nowrap;display:block}\n"
    ".hbars span{display:flex;align-items:center;gap:6px}\n"
    ".hbars i{display:block;height:14px;border-radius:2px;min-width:2px}\n"
    ".hbars em{font-style:normal;color:var(--muted)}\n"
    "@media (max-width:640px){header{padding:14px}main{padding:8px}section{padding:12px}"
    ".tile{flex:1 1 92px;padding:8px}.tile b{font-size:18px}"
    ".chart svg.timeline{height:160px}.hide-narrow{display:none}"
    ".hbars{grid-template-columns:1fr}.hbars span{margin-bottom:4px}"
    "table.cards,table.cards tbody{display:block}table.cards thead{display:none}"
    "table.cards tr{display:flex;flex-wrap:wrap;align-items:center;gap:2px 14px;padding:8px 0;"
    "border-bottom:1px solid var(--line)}"
    "table.cards td{border:0;padding:1px 0}"
    "table.cards td.t,table.cards td.p{flex:1 1 100%;max-width:none;min-width:0}"
    "table.cards td[data-label]::before{content:attr(data-label) ' ';color:var(--muted);"
    "font-size:11px}}\n";

void report_page_begin(FILE *fp, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; img-src data:\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"logtk report\">\n<title>",
          fp);
    report_str(fp, title);
    fputs("</title>\n<style>\n", fp);
    fputs(page_css, fp);
    fputs("</style>\n</head>\n<body>\n", fp);
}

void report_page_end(FILE *fp, const char *note)
{
    fputs("<footer>", fp);
    report_str(fp, note);
    fputs("</footer>\n</body>\n</html>\n", fp);
}

void report_sparkline(FILE *fp, const uint64_t *v, size_t n, uint64_t max)
{
    if (max == 0)
        for (size_t i = 0; i < n; i++)
            max = v[i] > max ? v[i] : max;
    if (max == 0)
        max = 1;
    /* 120 x 24 units; the area under the line is filled lightly */
    fputs("<svg class=\"spark\" viewBox=\"0 0 120 24\" preserveAspectRatio=\"none\" "
          "role=\"img\" aria-label=\"frequency over the log\"><path d=\"M0 24",
          fp);
    for (size_t i = 0; i < n; i++) {
        double x = n > 1 ? 120.0 * (double)i / (double)(n - 1) : 60.0;
        double y = 23.0 - 22.0 * (double)v[i] / (double)max;
        fprintf(fp, "L%.1f %.1f", x, y);
    }
    fputs("L120 24Z\" fill=\"#dbe6f3\" stroke=\"#4e79a7\" stroke-width=\"1\" "
          "vector-effect=\"non-scaling-stroke\"/></svg>",
          fp);
}
