/*
 * header_fields.c - how many leading tokens of a block's lines are the header
 * fields of a log format (`logtk compress --format FMT` / `--dataset NAME`).
 *
 * The block encoder stores each line as units: up to LTK_MAX_HEADER_PARTS
 * leading blank-separated tokens ("header parts"), each with a template of
 * its own, then the rest of the line (see block_encode.c).  A header part's
 * templates are a small dictionary of that field's shapes - the levels
 * ("INFO", "WARN"), the components ("dfs.DataNode$PacketResponder:") - and
 * its template-id column indexes it; the numbers of a date or a time become
 * one column per field position, stored as deltas from the previous line
 * where that is smaller.  Without a format the encoder guesses the header
 * from the shapes of the block's first lines.  With one, the header is what
 * the format puts before <Content>: this file matches the block's first
 * lines against the format and counts the whole tokens in front of each
 * line's Content.  The count that most matching lines give wins, so a line
 * whose optional field is missing (Mac's "(\(<Address>\))?") or that does
 * not match at all does not move it; when fewer than half of the sampled
 * lines match, the format says nothing about this block (-1) and the encoder
 * falls back to its own guess.  Lines that do not match lose nothing either
 * way: parts are cut by blanks, never by the format, so every line comes back
 * byte for byte.
 */
#include "config.h"

#include <string.h>

#include "header_fields.h"
#include "block_layout.h"

/* Lines looked at per block: enough for a stable majority, cheap next to encoding the block. */
#define HEADER_SAMPLE_LINES 256

int ltk_format_header_parts(logtk_format *f, const char *text, size_t len, size_t max_parts)
{
    size_t votes[LTK_MAX_HEADER_PARTS + 1] = {0};
    size_t sampled = 0, matched = 0, pos = 0;
    if (max_parts > LTK_MAX_HEADER_PARTS)
        max_parts = LTK_MAX_HEADER_PARTS;
    while (pos < len && sampled < HEADER_SAMPLE_LINES) {
        const char *line = text + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - line) : len - pos;
        pos += n + (nl != NULL);
        if (n > 0 && line[n - 1] == '\r')
            n--;
        sampled++;
        logtk_record rec;
        if (logtk_format_match(f, line, n, &rec) != LOGTK_OK || !rec.matched)
            continue;
        matched++;
        /* whole tokens in front of Content: a token that runs into Content is not header */
        if (!rec.content.ptr || rec.content.ptr < line || rec.content.ptr > line + n)
            continue;
        size_t header_end = (size_t)(rec.content.ptr - line), tokens = 0, i = 0;
        while (i < header_end) {
            while (i < n && (line[i] == ' ' || line[i] == '\t'))
                i++;
            size_t start = i;
            while (i < n && line[i] != ' ' && line[i] != '\t')
                i++;
            if (i > start && i <= header_end)
                tokens++;
        }
        votes[tokens < max_parts ? tokens : max_parts]++;
    }
    if (matched == 0 || matched * 2 < sampled)
        return -1;
    size_t best = 0;
    for (size_t k = 1; k <= max_parts; k++)
        if (votes[k] > votes[best])
            best = k;
    return (int)best;
}
