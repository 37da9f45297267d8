/*
 * block_query.c - search's questions to a block, answered from its
 * columns without rebuilding lines (the decoding itself is block_decode.c).
 *
 * Search (archive_search.c) stops between the decoding steps: templates
 * first, then the template ids, then only the values of candidate lines
 * (ltk_decode_values_for_lines).  Search pays only for what those lines
 * need, because most of a block is numbers and header columns:
 *  - ops are made only for templates whose lines are rebuilt (build_ops);
 *    the others are only checked and their variables counted;
 *  - only the number chunks holding wanted columns are decompressed, and
 *    parsed no further than their last wanted template; a plain column is
 *    skipped sixteen bytes at a time, a delta column summed without
 *    storing; explicit zero padding follows its column in the chunk; the
 *    strings stream is only read when a wanted template has strings;
 *  - for a rare pattern not every unit's template and rank is built:
 *    ltk_decode_lines_mark counts each part's ids (a machine word of one
 *    repeated id at a time, the rest clamped without branches, keeping the
 *    counts every CHECKPOINT_LINES lines) and marks only the parts that hold
 *    a marking template (a word at a time when few templates mark), and
 *    ltk_decode_index_lines derives the rank of each candidate unit from
 *    those counts.
 *  - search's number tests (ltk_decode_number_tests) check the values of a
 *    few columns against digits of the pattern without storing them; a
 *    plain column whose units earlier columns already failed is read only
 *    at the live units (sparse_column_tests), and ltk_decode_mark_units
 *    finds the lines of the units that pass from the id histograms.  The
 *    tested columns of a template run in order of how many of their first
 *    values fail (column_selectivity), not in column order: in HDFS the
 *    251 of 10.251.43.115 is in most addresses, the 43 is not; a column is
 *    read no further than its last unit still alive.  An IP column's test
 *    compares the octets the pattern fixes (LTK_TEST_IP_MASK; a packed
 *    non-canonical quad passes it and is checked by LTK_TEST_IP_PACKED,
 *    which every address passes); one stored as octet planes is read at the
 *    live units only, each value in place.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "block_decode_impl.h"
#include "growarray.h"

/* The template id of unit i of a column of the given width. */
static inline __attribute__((always_inline)) uint32_t tid_at(const uint8_t *p, unsigned width, uint32_t i)
{
    return width == 1   ? p[i]
           : width == 2 ? (uint32_t)p[2 * (size_t)i] | (uint32_t)p[2 * (size_t)i + 1] << 8
                        : ltk_le_get_u32(p + 4 * (size_t)i);
}

/*
 * Marks candidate lines of one part: line_mask[i] |= tmask[t], stopping
 * once the part's `expect` units of marking templates are found (search
 * knows the count from the part's histogram; rare templates end early).
 */
static inline __attribute__((always_inline)) void
mark_part(const uint8_t *p, unsigned width, uint32_t nl, uint32_t nt, const uint8_t *tmask,
          uint64_t expect, uint8_t *line_mask)
{
    for (uint32_t i = 0; i < nl && expect > 0; i++) {
        uint32_t t = tid_at(p, width, i);
        if (t < nt && tmask[t]) {
            line_mask[i] |= tmask[t];
            expect--;
        }
    }
}

/*
 * Adds the ids p[from..to) to count[]; an id out of range counts as nt, so
 * the caller tells a bad column by count[nt] != 0.  A machine word of one
 * id repeated (header parts often repeat one template) is added in one
 * step; the ids of other words one by one, clamped without a branch.
 */
static inline __attribute__((always_inline)) void
count_tids(const uint8_t *p, unsigned width, uint32_t from, uint32_t to, uint32_t nt, uint32_t *count)
{
    uint32_t i = from;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t spread = width == 1 ? 0x0101010101010101ull : width == 2 ? 0x0001000100010001ull : 0x0000000100000001ull;
    const uint64_t lane = width == 4 ? 0xffffffffull : (1ull << (8 * width)) - 1;
    const uint32_t per_word = 8 / width;
    uint64_t run_word = 0;
    uint32_t run_t = 0;
    int have_run = 0;
    for (; to - i >= per_word; i += per_word) {
        uint64_t w;
        memcpy(&w, p + (size_t)i * width, 8);
        if (have_run && w == run_word) {
            count[run_t] += per_word;
            continue;
        }
        /* the lanes of the word, unrolled by hand (per_word is 8, 4 or 2) */
#define COUNT_LANE(k)                                                                              \
    do {                                                                                           \
        uint32_t t = (uint32_t)(w >> (8 * width * (k)) & lane);                                    \
        count[t < nt ? t : nt]++;                                                                  \
    } while (0)
        COUNT_LANE(0);
        COUNT_LANE(1);
        if (per_word > 2) {
            COUNT_LANE(2);
            COUNT_LANE(3);
        }
        if (per_word > 4) {
            COUNT_LANE(4);
            COUNT_LANE(5);
            COUNT_LANE(6);
            COUNT_LANE(7);
        }
#undef COUNT_LANE
        if (w == (w & lane) * spread) {
            run_word = w;
            run_t = (uint32_t)(w & lane) < nt ? (uint32_t)(w & lane) : nt;
            have_run = 1;
        }
    }
#endif
    for (; i < to; i++) {
        uint32_t t = tid_at(p, width, i);
        count[t < nt ? t : nt]++;
    }
}

/*
 * How many ids of p[from..to) equal t: a machine word at a time, with the
 * exact zero-lane count of (word ^ t in every lane).  The lane pattern is
 * built from t's stored bytes, so this holds on any host byte order.
 */
static inline __attribute__((always_inline)) uint32_t
count_equal(const uint8_t *p, unsigned width, uint32_t from, uint32_t to, uint32_t t)
{
    uint8_t lane[8];
    for (unsigned k = 0; k < 8; k++)
        lane[k] = (uint8_t)(t >> (8 * (k % width)));
    uint64_t pattern, low;
    memcpy(&pattern, lane, 8);
    for (unsigned k = 0; k < 8; k++)
        lane[k] = k % width == width - 1 ? 0x7f : 0xff;
    memcpy(&low, lane, 8); /* every bit of a lane but its top one (in memory order) */
    const uint64_t top = ~low;
    const uint32_t per_word = 8 / width;
    uint32_t n = 0, i = from;
    for (; to - i >= per_word && i < to; i += per_word) {
        uint64_t w;
        memcpy(&w, p + (size_t)i * width, 8);
        uint64_t x = w ^ pattern;
        /* a lane's top bit ends up set exactly when the whole lane is zero */
        uint64_t zero = ~(((x & low) + low) | x) & top;
        /* lane tops sit at bits 7 mod 8: move them to bytes' low bits and add the bytes */
        n += (uint32_t)(((zero >> 7) * 0x0101010101010101ull) >> 56);
    }
    for (; i < to; i++)
        n += tid_at(p, width, i) == t;
    return n;
}
/*
 * mark_part for a part where at most MARK_FEW templates mark (the usual
 * case of a rare pattern): words holding none of them are passed over with
 * the zero-lane test of count_equal, one test per marking template.
 */
#define MARK_FEW 4
static inline __attribute__((always_inline)) void
mark_part_few(const uint8_t *p, unsigned width, uint32_t nl, const uint32_t *ts, uint32_t nts,
              const uint8_t *tmask, uint64_t expect, uint8_t *line_mask)
{
    uint64_t pattern[MARK_FEW], low;
    uint8_t lane[8];
    for (uint32_t j = 0; j < nts; j++) {
        for (unsigned k = 0; k < 8; k++)
            lane[k] = (uint8_t)(ts[j] >> (8 * (k % width)));
        memcpy(&pattern[j], lane, 8);
    }
    for (unsigned k = 0; k < 8; k++)
        lane[k] = k % width == width - 1 ? 0x7f : 0xff;
    memcpy(&low, lane, 8);
    const uint64_t top = ~low;
    const uint32_t per_word = 8 / width;
    uint32_t i = 0;
    for (; nl - i >= per_word && expect > 0; i += per_word) {
        uint64_t w, hit = 0;
        memcpy(&w, p + (size_t)i * width, 8);
        for (uint32_t j = 0; j < nts; j++) {
            uint64_t x = w ^ pattern[j];
            hit |= ~(((x & low) + low) | x) & top;
        }
        if (hit)
            for (uint32_t k = 0; k < per_word; k++) {
                uint8_t m = tmask[tid_at(p, width, i + k)]; /* ids checked by the histogram */
                if (m) {
                    line_mask[i + k] |= m;
                    expect--;
                }
            }
    }
    for (; i < nl && expect > 0; i++) {
        uint8_t m = tmask[tid_at(p, width, i)];
        if (m) {
            line_mask[i] |= m;
            expect--;
        }
    }
}
/*
 * The histogram pass keeps a copy of a part's counts every CHECKPOINT_LINES
 * lines, so the rank of a selected unit needs counting from the checkpoint
 * before it only (at most this many ids) instead of from the part's start.
 */
#define CHECKPOINT_LINES 2048u

int ltk_decode_lines_count(ltk_decoder *d, ltk_errbuf *err)
{
    int rc = ltk_decode_read_line_streams(d, err);
    if (rc == LOGTK_OK)
        rc = ltk_decode_locate_line_columns(d, err);
    size_t stride = (size_t)d->ntemplates + 1;
    size_t nseg = ((size_t)d->nlines + CHECKPOINT_LINES - 1) / CHECKPOINT_LINES;
    if (rc == LOGTK_OK && (ltk_array_reserve((void **)&d->part_count, &d->part_count_cap,
                                               stride * d->nparts, sizeof *d->part_count) != 0 ||
                           ltk_array_reserve((void **)&d->part_snap, &d->part_snap_cap,
                                               stride * d->nparts * nseg + 1, sizeof *d->part_snap) != 0))
        rc = ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    if (rc != LOGTK_OK)
        return ltk_decode_result(d, rc);
    uint32_t nt = d->ntemplates, nl = d->nlines;
    /* one histogram per part: checks every id, counts templates, tells where marks are */
    memset(d->tcount, 0, stride * sizeof *d->tcount);
    for (uint32_t part = 0; part < d->nparts; part++) {
        uint32_t *row = d->part_count + part * stride;
        const uint8_t *p = d->part_col[part];
        memset(row, 0, stride * sizeof *row);
        for (size_t seg = 0; seg < nseg; seg++) {
            memcpy(d->part_snap + (part * nseg + seg) * stride, row, stride * sizeof *row);
            uint32_t from = (uint32_t)(seg * CHECKPOINT_LINES);
            uint32_t to = nl - from > CHECKPOINT_LINES ? from + CHECKPOINT_LINES : nl;
            if (d->part_width[part] == 1)
                count_tids(p, 1, from, to, nt, row);
            else if (d->part_width[part] == 2)
                count_tids(p, 2, from, to, nt, row);
            else
                count_tids(p, 4, from, to, nt, row);
        }
        if (row[nt] != 0)
            return ltk_decode_result(d, BAD("part %u: bad template index", part));
        for (uint32_t t = 0; t < nt; t++)
            d->tcount[t] += row[t];
    }
    for (uint32_t t = 0; t < nt; t++)
        d->tmpls[t].count = d->tcount[t];
    return LOGTK_OK;
}

void ltk_decode_lines_mark_counted(ltk_decoder *d, const uint8_t *tmask, uint8_t *line_mask)
{
    uint32_t nt = d->ntemplates, nl = d->nlines;
    size_t stride = (size_t)nt + 1;
    for (uint32_t part = 0; part < d->nparts; part++) {
        const uint32_t *row = d->part_count + part * stride;
        const uint8_t *p = d->part_col[part];
        uint64_t expect = 0;
        uint32_t nmarking = 0, marking[MARK_FEW];
        for (uint32_t t = 0; t < nt; t++) {
            if (tmask[t] && row[t]) {
                expect += row[t];
                if (nmarking < MARK_FEW)
                    marking[nmarking] = t;
                nmarking++;
            }
        }
        if (expect == 0)
            continue; /* no line gets a mark from this part */
        if (nmarking <= MARK_FEW) {
            if (d->part_width[part] == 1)
                mark_part_few(p, 1, nl, marking, nmarking, tmask, expect, line_mask);
            else if (d->part_width[part] == 2)
                mark_part_few(p, 2, nl, marking, nmarking, tmask, expect, line_mask);
            else
                mark_part_few(p, 4, nl, marking, nmarking, tmask, expect, line_mask);
        } else if (d->part_width[part] == 1)
            mark_part(p, 1, nl, nt, tmask, expect, line_mask);
        else if (d->part_width[part] == 2)
            mark_part(p, 2, nl, nt, tmask, expect, line_mask);
        else
            mark_part(p, 4, nl, nt, tmask, expect, line_mask);
    }
}

int ltk_decode_lines_mark(ltk_decoder *d, const uint8_t *tmask, uint8_t *line_mask,
                           ltk_errbuf *err)
{
    int rc = ltk_decode_lines_count(d, err);
    if (rc == LOGTK_OK)
        ltk_decode_lines_mark_counted(d, tmask, line_mask);
    return rc;
}

/*
 * Finds the line of each wanted unit of template t (rank r, alive[r] != 0)
 * from the histograms: the part holding rank r is the one whose count of t
 * reaches past it, the checkpoint before it the last one whose count of t
 * is at most r's rank within the part, and from there the ids are read one
 * by one.  Ranks ascend, so a cursor per part carries on where the previous
 * unit was found: one template costs at most one pass over a part's ids,
 * and a few units only the stretches from their checkpoints.
 */
void ltk_decode_mark_units(ltk_decoder *d, uint32_t t, const uint8_t *alive, uint8_t bit,
                            uint8_t *line_mask)
{
    uint32_t nt = d->ntemplates, nl = d->nlines;
    if (t >= nt)
        return;
    size_t stride = (size_t)nt + 1;
    size_t nseg = ((size_t)nl + CHECKPOINT_LINES - 1) / CHECKPOINT_LINES;
    uint32_t before = 0, count = d->tmpls[t].count;
    uint32_t r = 0;
    for (uint32_t part = 0; part < d->nparts && r < count; part++) {
        uint32_t in_part = d->part_count[part * stride + t];
        uint32_t end = before + in_part;
        const uint8_t *p = d->part_col[part];
        unsigned width = d->part_width[part];
        const uint32_t *snap = d->part_snap + part * nseg * stride + t; /* snap[seg * stride] */
        size_t seg = 0;
        uint32_t pos = 0, seen = 0; /* ids before pos hold seen units of t */
        for (; r < end; r++) {
            if (!alive[r])
                continue;
            uint32_t within = r - before;
            if (in_part == nl) {
                line_mask[within] |= bit;
                continue;
            }
            while (seg + 1 < nseg && snap[(seg + 1) * stride] <= within)
                seg++;
            if ((size_t)pos < seg * CHECKPOINT_LINES) {
                pos = (uint32_t)(seg * CHECKPOINT_LINES);
                seen = snap[seg * stride];
            }
            for (; pos < nl; pos++)
                if (tid_at(p, width, pos) == t && seen++ == within)
                    break;
            if (pos < nl) {
                line_mask[pos] |= bit;
                pos++;
            }
        }
        before = end;
    }
}

int ltk_decode_index_lines(ltk_decoder *d, const uint32_t *lines, uint32_t nsel,
                            ltk_errbuf *err)
{
    uint32_t nt = d->ntemplates, nl = d->nlines;
    size_t stride = (size_t)nt + 1;
    size_t nseg = ((size_t)nl + CHECKPOINT_LINES - 1) / CHECKPOINT_LINES;
    /*
     * rank of a unit = its template's units in the parts before (from the
     * histograms) + those before it in its own part: the count at the
     * checkpoint before it plus the ids from there on, counted a word at a
     * time, or from the last selected unit of the same template when that is
     * nearer (a few cursors per part: dense candidates then cost one sweep
     * per template, not one per candidate).  A template that fills the part
     * needs no counting at all.
     */
    enum { NCURSORS = 16 };
    if ((uint64_t)nsel * 64 > nl) {
        /* many lines: one pass over every unit costs less than counting per line */
        int rc = ltk_decode_parse_lines(d, NULL, NULL, err);
        return ltk_decode_result(d, rc);
    }
    for (uint32_t part = 0; part < d->nparts; part++) {
        const uint8_t *p = d->part_col[part];
        unsigned width = d->part_width[part];
        const uint32_t *row = d->part_count + part * stride;
        uint32_t *tid = d->line_tid + (size_t)part * nl;
        uint32_t *rank = d->line_rank + (size_t)part * nl;
        uint32_t cur_t[NCURSORS], cur_pos[NCURSORS], cur_n[NCURSORS], ncur = 0, next_slot = 0;
        uint32_t from = 0;
        for (uint32_t k = 0; k < nsel; k++) {
            uint32_t i = lines[k];
            if (i >= nl || i < from)
                return ltk_error_set(err, LOGTK_ERR_INVALID, "selected lines not ascending");
            from = i + 1;
            uint32_t t = tid_at(p, width, i); /* checked by ltk_decode_lines_mark */
            uint32_t before = 0;
            for (uint32_t q = 0; q < part; q++)
                before += d->part_count[q * stride + t];
            uint32_t within = i;
            if (row[t] != nl) {
                size_t seg = i / CHECKPOINT_LINES;
                uint32_t start = (uint32_t)(seg * CHECKPOINT_LINES);
                uint32_t base = d->part_snap[(part * nseg + seg) * stride + t];
                uint32_t c = 0;
                while (c < ncur && cur_t[c] != t)
                    c++;
                if (c < ncur && cur_pos[c] > start) {
                    start = cur_pos[c]; /* nearer: ids before it are counted */
                    base = cur_n[c];
                } else if (c == ncur) {
                    if (ncur < NCURSORS)
                        ncur++;
                    else
                        c = next_slot++ % NCURSORS;
                    cur_t[c] = t;
                }
                within = base + (width == 1   ? count_equal(p, 1, start, i, t)
                                 : width == 2 ? count_equal(p, 2, start, i, t)
                                              : count_equal(p, 4, start, i, t));
                cur_pos[c] = i + 1;
                cur_n[c] = within + 1;
            }
            tid[i] = t;
            rank[i] = before + within;
        }
    }
    return LOGTK_OK;
}

/* The bits of packed IP parts: index bit 3 - k selects part k (see LTK_TEST_IP_PACKED). */
#define IP_PART(k) ((uint64_t)0xfff << (36 - 12 * (k)))
#define IP_PARTS(f)                                                                                      \
    (((f) & 8 ? IP_PART(0) : 0) | ((f) & 4 ? IP_PART(1) : 0) | ((f) & 2 ? IP_PART(2) : 0) | ((f) & 1 ? IP_PART(3) : 0))
static const uint64_t ip_part_masks[16] = {IP_PARTS(0),  IP_PARTS(1),  IP_PARTS(2),  IP_PARTS(3),
                                           IP_PARTS(4),  IP_PARTS(5),  IP_PARTS(6),  IP_PARTS(7),
                                           IP_PARTS(8),  IP_PARTS(9),  IP_PARTS(10), IP_PARTS(11),
                                           IP_PARTS(12), IP_PARTS(13), IP_PARTS(14), IP_PARTS(15)};

/* Nonzero when v passes test t (see ltk_num_test). */
static inline int number_test_passes(const ltk_num_test *t, uint64_t v)
{
    if (t->kind == LTK_TEST_EXACT)
        return v == t->value;
    if (t->kind == LTK_TEST_SUFFIX)
        return v % pow10_table[t->len] == t->value;
    if (t->kind == LTK_TEST_IP_MASK) /* a packed non-canonical quad passes: LTK_TEST_IP_PACKED tests it */
        return (v >> 32) != 0 || (v & t->value >> 32) == (t->value & 0xffffffffu);
    if (t->kind == LTK_TEST_IP_PACKED) {
        uint64_t m = ip_part_masks[t->value >> 48];
        return (v >> 32) == 0 || (v & m) == (t->value & m);
    }
    /* PREFIX: v's own digits (no zero padding: the prefix starts with 1-9) start with value's */
    unsigned nd = 1;
    while (nd < 20 && v >= pow10_table[nd])
        nd++;
    return nd >= t->len && v / pow10_table[nd - t->len] == t->value;
}

/*
 * Tests of one plain (not delta) column whose units are mostly dead already
 * (an earlier column of the same alignment failed them: "10.251.43.115"
 * leaves few units alive after 251): only the values of the live units are
 * read, the others skipped eight bytes at a time.  Returns 0 with *pp past
 * the column, 1 when the column is not sparse enough (nothing read), or -1
 * with *bad set on a truncated column.
 */
static int sparse_column_tests(const uint8_t **pp, const uint8_t *end, uint32_t n, const ltk_num_test *tests,
                               size_t ntests, int *bad)
{
    uint8_t bits = 0;
    const uint8_t *alive = tests[0].alive;
    for (size_t q = 0; q < ntests; q++) {
        if (tests[q].alive != alive)
            return 1;
        bits |= tests[q].bit;
    }
    uint32_t live = 0;
    for (uint32_t r = 0; r < n; r++)
        live += (alive[r] & bits) != 0;
    if ((uint64_t)live * 8 >= n)
        return 1;
    const uint8_t *p = *pp;
    uint32_t at = 0; /* rank of the value at p */
    for (uint32_t r = 0; r < n && live > 0; r++) {
        if (!(alive[r] & bits))
            continue;
        uint64_t v;
        if (skip_varints(&p, end, r - at) != 0 || get_varint(&p, end, &v) != 0) {
            *bad = 1;
            return -1;
        }
        at = r + 1;
        live--;
        for (size_t q = 0; q < ntests; q++)
            if (!number_test_passes(&tests[q], v))
                tests[q].alive[r] &= (uint8_t)~tests[q].bit;
    }
    if (skip_varints(&p, end, n - at) != 0) {
        *bad = 1;
        return -1;
    }
    *pp = p;
    return 0;
}

/*
 * How strongly a column's tests are expected to thin out its units,
 * higher: more.  Mainly how many of its first SAMPLE_VALUES values fail
 * every test (a sample of the block's own data: in HDFS logs nearly every
 * address is 10.251.x.x or 10.250.x.x, so the exact 251 of "10.251.43.115"
 * passes most units while the 43 does not); on a tie a test of more digits
 * passes fewer values, and an exact value fewer than a prefix or suffix of
 * as many digits.  The weakest test of the column counts there.  -1 when
 * the sample runs past the chunk (the full read reports it).
 */
#define SAMPLE_VALUES 64
static int column_selectivity(const uint8_t *p, const uint8_t *end, uint32_t n, int delta,
                              const ltk_num_test *tests, size_t ntests)
{
    int digits = 64;
    for (size_t q = 0; q < ntests; q++) {
        int s = 2 * tests[q].len + (tests[q].kind == LTK_TEST_EXACT);
        if (s < digits)
            digits = s;
    }
    uint32_t m = n < SAMPLE_VALUES ? n : SAMPLE_VALUES, fail = 0;
    uint64_t prev = 0;
    if (delta == 2 && (size_t)(end - p) / 4 < n)
        return -1;
    for (uint32_t r = 0; r < m; r++) {
        uint64_t v;
        if (delta == 2)
            v = plane_value(p, n, r);
        else if (get_varint(&p, end, &v) != 0)
            return -1;
        else if (delta) {
            prev += (v >> 1) ^ (uint64_t)(-(int64_t)(v & 1));
            v = prev;
        }
        int pass = 0;
        for (size_t q = 0; q < ntests && !pass; q++)
            pass = number_test_passes(&tests[q], v);
        fail += !pass;
    }
    /* failures scaled to the sample size first, the digits second */
    return (int)((uint64_t)fail * 1024 / (m ? m : 1)) * 64 + digits;
}

/* A tested column of one template: where its values start and its tests. */
typedef struct tested_column {
    const uint8_t *start;
    size_t t0, t1; /* its tests[t0..t1) */
    uint8_t delta; /* 0 raw varints, 1 delta varints, 2 octet planes */
    int score; /* column_selectivity */
} tested_column;
#define MAX_TESTED_COLUMNS 32 /* more per template: the rest run in column order */

/* Byte strings that the varint of every value passing a column's tests starts with. */
typedef struct varint_prefixes {
    uint8_t bytes[2][10];
    uint8_t len[2];
    unsigned n;
} varint_prefixes;

/* The first k bytes of the varint of any value v >= 2^(7k) whose low 7k bits are those of low. */
static void continued_prefix(uint64_t low, unsigned k, uint8_t *out)
{
    for (unsigned i = 0; i < k; i++)
        out[i] = (uint8_t)(((low >> (7 * i)) & 0x7f) | 0x80);
}

/*
 * When the tests of one column all clear the same alive bit, the byte
 * strings (one or two) that the varint of every value passing all of them
 * must start with: an exact value's whole varint; for an address test, the
 * bytes its fixed low octets determine ("251.43.115" of "10.251.43.115",
 * whose first octet may be 10, 110 or 210, fixes the low 24 bits: three
 * bytes), and for its packed companion the bytes the parts it fixes from
 * the last one determine (none when it rules out every packed value).
 * Returns 0 when there is no such prefix of at least one byte.
 */
static int column_prefixes(const ltk_num_test *tests, size_t ntests, varint_prefixes *vp)
{
    const ltk_num_test *exact = NULL, *mask = NULL, *packed = NULL;
    vp->n = 0;
    for (size_t q = 0; q < ntests; q++) {
        const ltk_num_test *t = &tests[q];
        if (t->alive != tests[0].alive || t->bit != tests[0].bit)
            return 0;
        if (t->kind == LTK_TEST_EXACT)
            exact = t;
        else if (t->kind == LTK_TEST_IP_MASK)
            mask = t;
        else if (t->kind == LTK_TEST_IP_PACKED)
            packed = t;
    }
    if (exact) {
        uint64_t v = exact->value;
        unsigned k = 0;
        for (;; v >>= 7) {
            vp->bytes[0][k++] = (uint8_t)(v >= 0x80 ? (v & 0x7f) | 0x80 : v);
            if (v < 0x80)
                break;
        }
        vp->len[0] = (uint8_t)k;
        vp->n = 1;
        return 1;
    }
    if (!mask || !packed)
        return 0; /* an address test alone passes every packed value */
    /* addresses: the low bits the mask fixes, as far as the value surely goes on */
    uint64_t m = mask->value >> 32, bits = mask->value & 0xffffffffu;
    unsigned fixed = (unsigned)__builtin_ctzll(~m), k = fixed / 7;
    while (k > 0 && bits < ((uint64_t)1 << (7 * k)))
        k--;
    if (k == 0)
        return 0;
    continued_prefix(bits, k, vp->bytes[0]);
    vp->len[0] = (uint8_t)k;
    vp->n = 1;
    /* packed quads: parts fixed from the last one up (a value >= 2^48 goes on for 7 bytes) */
    unsigned flags = (unsigned)(packed->value >> 48), low = 0;
    for (unsigned part = 0; part < 4; part++)
        if (flags & (8u >> part) && ((packed->value >> (36 - 12 * part)) & 0xfff) == 0xfff)
            return 1; /* no packed value passes */
    for (unsigned part = 3; part < 4 && (flags & (8u >> part)); part--)
        low += 12;
    if (low < 7)
        return 0;
    continued_prefix(packed->value, low / 7, vp->bytes[1]);
    vp->len[1] = (uint8_t)(low / 7);
    vp->n = 2;
    return 1;
}

/* Varint ends (bytes without the continuation bit) in p[0..len). */
static size_t count_varint_ends(const uint8_t *p, size_t len)
{
    size_t ends = 0, i = 0;
#if defined(__SSE2__)
    for (; i + 16 <= len; i += 16)
        ends += varint_ends16(p + i);
#endif
    for (; i < len; i++)
        ends += (p[i] & 0x80) == 0;
    return ends;
}

/*
 * Tests of a plain varint column whose passing values all start with one of
 * vp's byte strings (see column_prefixes): instead of decoding every value,
 * the column's bytes are searched for them (memchr for the first byte, then
 * a compare); a hit counts only where a varint starts (at the column's
 * start or after an end byte), its value is decoded and tested, and its
 * rank is the number of ends before it.  The encoder writes every varint in
 * its shortest form, so a value has one spelling.  Units whose value does
 * not pass lose the tests' bit.  Returns 0, 1 when too many values pass for
 * this way (nothing changed: the caller tests value by value), or -1 on a
 * truncated column.
 */
#define PREFIX_SURVIVORS 256
static int prefix_column_tests(const uint8_t **pp, const uint8_t *end, uint32_t n, const varint_prefixes *vp,
                               const ltk_num_test *tests, size_t ntests)
{
    const uint8_t *start = *pp, *col_end = start;
    if (skip_varints(&col_end, end, n) != 0)
        return -1;
    uint8_t *alive = tests[0].alive, bit = tests[0].bit;
    uint32_t survivors[PREFIX_SURVIVORS];
    unsigned nsurv = 0;
    for (unsigned i = 0; i < vp->n; i++) {
        const uint8_t *pat = vp->bytes[i];
        size_t plen = vp->len[i], rank = 0;
        const uint8_t *p = start, *counted = start;
        while ((size_t)(col_end - p) >= plen) {
            const uint8_t *hit = memchr(p, pat[0], (size_t)(col_end - p) - plen + 1);
            if (!hit)
                break;
            p = hit + 1;
            if ((hit > start && (hit[-1] & 0x80)) || memcmp(hit, pat, plen) != 0)
                continue;
            rank += count_varint_ends(counted, (size_t)(hit - counted));
            counted = hit;
            const uint8_t *q = hit;
            uint64_t v;
            if (rank >= n || get_varint(&q, col_end, &v) != 0)
                return -1;
            if (!(alive[rank] & bit))
                continue;
            int pass = 1;
            for (size_t t = 0; t < ntests && pass; t++)
                pass = number_test_passes(&tests[t], v);
            if (!pass)
                continue;
            if (nsurv == PREFIX_SURVIVORS)
                return 1;
            survivors[nsurv++] = (uint32_t)rank;
        }
    }
    /* every unit loses the bit but the survivors (ranks ascending within each string's pass) */
    for (unsigned i = 1; i < nsurv; i++)
        for (unsigned j = i; j > 0 && survivors[j] < survivors[j - 1]; j--) {
            uint32_t tmp = survivors[j];
            survivors[j] = survivors[j - 1];
            survivors[j - 1] = tmp;
        }
    uint32_t next = 0;
    for (unsigned i = 0; i < nsurv; i++) {
        for (; next < survivors[i]; next++)
            alive[next] &= (uint8_t)~bit;
        next = survivors[i] + 1;
    }
    for (; next < n; next++)
        alive[next] &= (uint8_t)~bit;
    *pp = col_end;
    return 0;
}

/*
 * Runs tests[0..ntests) of one column of n values at *pp (moved past it):
 * sparsely when few units are still alive and the column is plain, else
 * value by value, testing only units the test's alignment still allows.
 * 0, or -1 on a truncated column.
 */
static int column_tests(const uint8_t **pp, const uint8_t *end, uint32_t n, int delta, const ltk_num_test *tests,
                        size_t ntests)
{
    int bad = 0;
    if (delta == 2) {
        /* octet planes: every value at a fixed place, only live units read */
        const uint8_t *p = *pp;
        if ((size_t)(end - p) / 4 < n)
            return -1;
        for (uint32_t r = 0; r < n; r++) {
            uint64_t v = 0;
            int got = 0;
            for (size_t q = 0; q < ntests; q++)
                if (tests[q].alive[r] & tests[q].bit) {
                    if (!got) {
                        v = plane_value(p, n, r);
                        got = 1;
                    }
                    if (!number_test_passes(&tests[q], v))
                        tests[q].alive[r] &= (uint8_t)~tests[q].bit;
                }
        }
        *pp = p + 4 * (size_t)n;
        return 0;
    }
    if (!delta && sparse_column_tests(pp, end, n, tests, ntests, &bad) == 0)
        return 0; /* few units still alive: only their values were read */
    if (bad)
        return -1;
    varint_prefixes vp;
    if (!delta && column_prefixes(tests, ntests, &vp)) {
        int rc = prefix_column_tests(pp, end, n, &vp, tests, ntests);
        if (rc <= 0)
            return rc;
    }
    /* values past the last unit an alignment still allows need no test (none alive: only skipping) */
    uint32_t upto = 0;
    for (uint32_t r = n; r > 0 && upto == 0; r--)
        for (size_t q = 0; q < ntests; q++)
            if (tests[q].alive[r - 1] & tests[q].bit) {
                upto = r;
                break;
            }
    const uint8_t *np = *pp;
    uint64_t prev = 0;
    for (uint32_t r = 0; r < upto; r++) {
        uint64_t v;
        if (get_varint(&np, end, &v) != 0)
            return -1;
        if (delta) {
            prev += (v >> 1) ^ (uint64_t)(-(int64_t)(v & 1));
            v = prev;
        }
        for (size_t q = 0; q < ntests; q++)
            if ((tests[q].alive[r] & tests[q].bit) && !number_test_passes(&tests[q], v))
                tests[q].alive[r] &= (uint8_t)~tests[q].bit;
    }
    if (skip_varints(&np, end, n - upto) != 0)
        return -1;
    *pp = np;
    return 0;
}

/*
 * Nonzero when a column of fixed width w (every value written with exactly
 * w digits: pad mode 1) cannot hold what test t asks for: a whole number of
 * t->len digits needs w == len, a prefix or suffix of len digits w >= len.
 * (Decimal and hex widths both count digits, as the tests' lengths do.)
 */
static int width_rules_out(const ltk_num_test *t, uint64_t w)
{
    if (t->kind == LTK_TEST_EXACT)
        return w != t->len;
    if (t->kind == LTK_TEST_SUFFIX || t->kind == LTK_TEST_PREFIX)
        return w < t->len;
    return 0;
}

/*
 * Before any chunk is decompressed: marks in d->test_live the tests that
 * still have a unit to look at.  A test that its column's coding alone
 * rules out (width_rules_out) fails every unit of its alignment, without
 * reading a value: a time's two-digit minutes never hold "251" of
 * "10.251.43.115", so the chunk of a log's timestamp columns is not
 * decompressed for that query.  Tests are walked as
 * ltk_decode_number_tests walks them (by template, then slot; a slot the
 * template lacks is dropped).  0, or -1 on a bad column coding.
 */
static int number_tests_live(ltk_decoder *d, const ltk_num_test *tests, size_t ntests, uint32_t last_t)
{
    const uint8_t *mp = (const uint8_t *)d->streams[LTK_S_NUMMETA].data;
    const uint8_t *me = mp + d->streams[LTK_S_NUMMETA].len;
    uint8_t *live = d->test_live;
    size_t q = 0;
    for (uint32_t t = 0; t <= last_t && q < ntests; t++) {
        const tmpl_info *ti = &d->tmpls[t];
        size_t first = q; /* the template's tests */
        /* alignments (alive array and bit) ruled out in this template */
        enum { MAX_KILLED = 16 };
        uint8_t *killed_alive[MAX_KILLED];
        uint8_t killed_bit[MAX_KILLED];
        unsigned nkilled = 0;
        for (uint32_t k = 0; k < ti->nnum; k++) {
            column_coding cc;
            if (read_column_coding(&mp, me, &cc) != 0)
                return -1;
            for (; q < ntests && (tests[q].tmpl < t || (tests[q].tmpl == t && tests[q].slot < k)); q++)
                live[q] = 0;
            for (; q < ntests && tests[q].tmpl == t && tests[q].slot == k; q++) {
                live[q] = 1;
                if (cc.pad_mode == 1 && width_rules_out(&tests[q], cc.arg >> 1) && nkilled < MAX_KILLED) {
                    unsigned j = 0;
                    while (j < nkilled && (killed_alive[j] != tests[q].alive || killed_bit[j] != tests[q].bit))
                        j++;
                    if (j == nkilled) {
                        killed_alive[nkilled] = tests[q].alive;
                        killed_bit[nkilled++] = tests[q].bit;
                        for (uint32_t r = 0; r < ti->count; r++)
                            tests[q].alive[r] &= (uint8_t)~tests[q].bit;
                    }
                }
            }
        }
        for (; q < ntests && tests[q].tmpl == t; q++)
            live[q] = 0; /* slots the template does not have */
        /* a test whose units all failed already needs no values */
        for (size_t i = first; i < q; i++) {
            if (!live[i] || tests[i].tmpl != t)
                continue;
            for (unsigned j = 0; j < nkilled && live[i]; j++)
                live[i] = killed_alive[j] != tests[i].alive || killed_bit[j] != tests[i].bit;
            if (live[i]) {
                uint32_t r = 0;
                while (r < ti->count && !(tests[i].alive[r] & tests[i].bit))
                    r++;
                live[i] = r < ti->count;
            }
        }
    }
    for (; q < ntests; q++)
        live[q] = 0;
    return 0;
}

/*
 * Walks the column codings and the numbers chunks the way parse_columns
 * does, but only as far as the last tested template, decompressing only the
 * chunks that hold tested columns and skipping every untested column by
 * count; a tested column is summed (delta) or read value by value and each
 * value checked on the spot.  Search runs this before expanding anything,
 * so a parameter value (an IP, a block id) costs one pass over its
 * column instead of rebuilding every line of its template.
 */
int ltk_decode_number_tests(ltk_decoder *d, const ltk_num_test *tests, size_t ntests, ltk_errbuf *err)
{
    if (ntests == 0 || d->nchunks == 0)
        return LOGTK_OK; /* no numbers stored: nothing to test (parse_columns judges the block) */
    uint32_t last_t = tests[ntests - 1].tmpl;
    if (last_t >= d->ntemplates)
        return ltk_error_set(err, LOGTK_ERR_INVALID, "number test of a template out of range");
    if (ltk_array_reserve((void **)&d->test_live, &d->test_live_cap, ntests, 1) != 0)
        return ltk_error_set(err, LOGTK_ERR_NOMEM, "out of memory");
    if (number_tests_live(d, tests, ntests, last_t) != 0)
        return BAD("bad or missing column coding");
    const uint8_t *live = d->test_live;
    size_t live_next = 0; /* the first live test at or after ti_next */
    const uint8_t *mp = (const uint8_t *)d->streams[LTK_S_NUMMETA].data;
    const uint8_t *me = mp + d->streams[LTK_S_NUMMETA].len;
    const uint8_t *nbase = (const uint8_t *)d->streams[LTK_S_NUMS].data;
    const uint8_t *np = NULL, *ne = NULL;
    uint32_t chunk = 0;
    int chunk_open = 0; /* np..ne is the current chunk, decompressed */
    size_t ti_next = 0; /* next test */
    for (uint32_t t = 0; t <= last_t; t++) {
        const tmpl_info *ti = &d->tmpls[t];
        while (chunk + 1 < d->nchunks && d->chunks[chunk + 1].first_template <= t) {
            chunk++;
            chunk_open = 0;
        }
        /* does this chunk hold a template with a live test from t on? */
        if (live_next < ti_next)
            live_next = ti_next;
        while (live_next < ntests && !live[live_next])
            live_next++;
        if (!chunk_open && live_next < ntests && tests[live_next].tmpl >= t &&
            (chunk + 1 >= d->nchunks || tests[live_next].tmpl < d->chunks[chunk + 1].first_template)) {
            ltk_chunk *ch = &d->chunks[chunk];
            int rc = ltk_decode_chunk_prefix(d, chunk, ch->raw_len, err);
            if (rc != LOGTK_OK)
                return rc;
            np = nbase + ch->raw_off;
            ne = np + ch->raw_len;
            chunk_open = 1;
        }
        uint32_t n = ti->count;
        tested_column cols[MAX_TESTED_COLUMNS];
        unsigned ncols = 0;
        for (uint32_t k = 0; k < ti->nnum; k++) {
            column_coding cc;
            if (read_column_coding(&mp, me, &cc) != 0)
                return BAD("template %u: bad or missing column coding", t);
            int delta = cc.planes ? 2 : cc.delta; /* value coding: 0 raw, 1 delta, 2 octet planes */
            if (!chunk_open)
                continue;
            size_t t0 = ti_next;
            int any_live = 0;
            while (ti_next < ntests && tests[ti_next].tmpl == t && tests[ti_next].slot == k)
                any_live |= live[ti_next++];
            if (!any_live)
                t0 = ti_next; /* every unit failed already: no values needed */
            if (t0 != ti_next && ncols < MAX_TESTED_COLUMNS) {
                /* remembered, run below in order of selectivity; skipped over for now */
                tested_column *c = &cols[ncols++];
                c->start = np;
                c->t0 = t0;
                c->t1 = ti_next;
                c->delta = (uint8_t)delta;
                c->score = column_selectivity(np, ne, n, delta, tests + t0, ti_next - t0);
                t0 = ti_next;
            }
            if (t0 == ti_next) {
                if (skip_number_column(&np, ne, 1, &cc, n) != NULL)
                    return BAD("template %u: truncated numeric column", t);
                continue;
            }
            if (column_tests(&np, ne, n, delta, tests + t0, ti_next - t0) != 0 ||
                (cc.pad_mode == 2 && (size_t)(ne - np) < n))
                return BAD("template %u: truncated numeric column", t);
            if (cc.pad_mode == 2)
                np += n; /* its zero padding */
        }
        /* most selective column first, so that the others are read only at its survivors */
        for (unsigned i = 1; i < ncols; i++)
            for (unsigned j = i; j > 0 && cols[j].score > cols[j - 1].score; j--) {
                tested_column tmp = cols[j];
                cols[j] = cols[j - 1];
                cols[j - 1] = tmp;
            }
        for (unsigned i = 0; i < ncols; i++) {
            const uint8_t *p = cols[i].start;
            if (column_tests(&p, ne, n, cols[i].delta, tests + cols[i].t0, cols[i].t1 - cols[i].t0) != 0)
                return BAD("template %u: truncated numeric column", t);
        }
        /* tests of slots the template does not have (or out of order) are dropped */
        while (ti_next < ntests && tests[ti_next].tmpl == t)
            ti_next++;
    }
    return LOGTK_OK;
}

uint32_t ltk_decoder_template_lines(const ltk_decoder *d, uint32_t t)
{
    return d->tmpls[t].count;
}

const uint32_t *ltk_decoder_unit_ranks(const ltk_decoder *d)
{
    return d->line_rank;
}
