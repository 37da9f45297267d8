/*
 * test_whole_messages.c - blocks whose messages share too little for
 * templates (see ltk_encode_block): each message kept as one string.
 *
 * A log of package events (every line names another package, as dpkg.log
 * does) must be written as whole messages after its header parts, and come
 * out no larger than zstd of its text at the same level; a log whose lines
 * repeat their text with other numbers must keep its templates.  Every block
 * must come back byte for byte, and search (logtk_grep) must select the same
 * lines as a plain per-line search, blanks in the pattern included, since a
 * whole message is a string variable that may hold any text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "block_decode.h"
#include "block_layout.h"
#include "block_roundtrip.h"
#include "logtk.h"
#include "test_harness.h"

/* The next value of a small linear congruential generator (the same lines on every run). */
static unsigned next_random(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return (*state >> 16) & 0x7fff;
}

/*
 * About n lines as dpkg writes them ("2026-12-02 10:MM:SS status unpacked
 * NAME:amd64 VERSION"): packages of random names in batches of 8, each
 * unpacked (3 lines), then each configured (3 lines), with its version.
 */
static char *package_lines(unsigned n, size_t *len)
{
    static const char *unpack[] = {"install %s:amd64 <none> %s", "status half-installed %s:amd64 %s",
                                   "status unpacked %s:amd64 %s"};
    static const char *configure[] = {"configure %s:amd64 %s <none>", "status half-configured %s:amd64 %s",
                                      "status installed %s:amd64 %s"};
    size_t cap = (size_t)n * 96 + 1, pos = 0;
    char *s = malloc(cap);
    *len = 0;
    if (!s)
        return NULL;
    unsigned state = 7, line = 0;
    while (line < n) {
        char name[8][16], version[8][24];
        for (unsigned p = 0; p < 8; p++) {
            unsigned k = 4 + next_random(&state) % 8;
            memcpy(name[p], "lib", 3);
            for (unsigned j = 0; j < k; j++)
                name[p][3 + j] = (char)('a' + next_random(&state) % 26);
            name[p][3 + k] = '\0';
            unsigned major = next_random(&state) % 20, minor = next_random(&state) % 100;
            snprintf(version[p], sizeof version[p], "%u.%u-%u", major, minor, next_random(&state) % 9);
        }
        for (unsigned phase = 0; phase < 2; phase++)
            for (unsigned p = 0; p < 8; p++)
                for (unsigned a = 0; a < 3 && line < n; a++, line++) {
                    pos += (size_t)snprintf(s + pos, cap - pos, "2026-12-02 10:%02u:%02u ", (line / 60) % 60,
                                            line % 60);
                    pos += (size_t)snprintf(s + pos, cap - pos, phase ? configure[a] : unpack[a], name[p],
                                            version[p]);
                    s[pos++] = '\n';
                }
    }
    *len = pos;
    return s;
}

/* n lines of one message type with other numbers ("session 123 opened for user 45"). */
static char *session_lines(unsigned n, size_t *len)
{
    size_t cap = (size_t)n * 64 + 1, pos = 0;
    char *s = malloc(cap);
    *len = 0;
    if (!s)
        return NULL;
    for (unsigned i = 0; i < n; i++)
        pos += (size_t)snprintf(s + pos, cap - pos, "2026-12-02 10:%02u:%02u session %u opened for user %u\n",
                                (i / 60) % 60, i % 60, 1000 + i * 7, i % 13);
    *len = pos;
    return s;
}

/*
 * n lines of a storage cluster's log in its own order: blocks of random
 * 63-bit ids, 64 of them in flight at a time, each going through allocation,
 * then three transfers, acknowledgements, receipts and block map updates
 * (one per replica), the next line coming from a block drawn at random, and
 * every line printing its block's id (as a contiguous HDFS log does).
 */
typedef struct test_block {
    long long id;
    unsigned step; /* lines written, 0 to 12 */
    unsigned size, replica[3];
} test_block;

static void new_test_block(test_block *b, unsigned *state)
{
    unsigned long long v = 0;
    for (int k = 0; k < 5; k++)
        v = v << 15 | next_random(state);
    b->id = (long long)(v & 0x3fffffffffffffffULL) * (next_random(state) % 2 ? -1 : 1);
    b->step = 0;
    b->size = 1000000 + next_random(state) * 2000u;
    for (unsigned r = 0; r < 3; r++)
        b->replica[r] = next_random(state) % 64;
}

static char *block_lines(unsigned n, size_t *len)
{
    static const char *steps[] = {
        "INFO dfs.FSNamesystem: BLOCK* NameSystem.allocateBlock: /user/job_%u/part-%u. blk_%lld",
        "INFO dfs.DataNode$DataXceiver: Receiving block blk_%lld src: /10.250.%u.%u:%u dest: /10.250.%u.%u:50010",
        "INFO dfs.DataNode$PacketResponder: PacketResponder %u for block blk_%lld terminating",
        "INFO dfs.DataNode$PacketResponder: Received block blk_%lld of size %u from /10.250.%u.%u",
        "INFO dfs.FSNamesystem: BLOCK* NameSystem.addStoredBlock: blockMap updated: 10.250.%u.%u:50010 is "
        "added to blk_%lld size %u"};
    size_t cap = (size_t)n * 160 + 1, pos = 0;
    char *s = malloc(cap);
    *len = 0;
    if (!s)
        return NULL;
    unsigned state = 11;
    unsigned node[64][2]; /* the cluster's nodes, 10.250.X.Y */
    for (unsigned k = 0; k < 64; k++) {
        node[k][0] = next_random(&state) % 250;
        node[k][1] = next_random(&state) % 250;
    }
    test_block flight[64];
    for (unsigned k = 0; k < 64; k++)
        new_test_block(&flight[k], &state);
    for (unsigned line = 0; line < n; line++) {
        test_block *b = &flight[next_random(&state) % 64];
        unsigned r = (b->step + 2) % 3;
        const unsigned *at = node[b->replica[r]];
        pos += (size_t)snprintf(s + pos, cap - pos, "081109 %06u %u ", 203500 + line / 40, 143 + line / 3000);
        switch ((b->step + 2) / 3) {
        case 0:
            pos += (size_t)snprintf(s + pos, cap - pos, steps[0], 200811000u + line / 300, line % 8, b->id);
            break;
        case 1:
            pos += (size_t)snprintf(s + pos, cap - pos, steps[1], b->id, at[0], at[1], 30000u + next_random(&state),
                                    at[0], at[1]);
            break;
        case 2:
            pos += (size_t)snprintf(s + pos, cap - pos, steps[2], r, b->id);
            break;
        case 3:
            pos += (size_t)snprintf(s + pos, cap - pos, steps[3], b->id, b->size, at[0], at[1]);
            break;
        default:
            pos += (size_t)snprintf(s + pos, cap - pos, steps[4], at[0], at[1], b->id, b->size);
        }
        s[pos++] = '\n';
        if (++b->step == 13)
            new_test_block(b, &state);
    }
    *len = pos;
    return s;
}

/* Bytes of the payload whose stream sizes are `sizes` (the streams, as stored). */
static size_t stored_bytes(const ltk_stream_sizes *sizes)
{
    size_t n = 0;
    for (int i = 0; i < LTK_NSTREAMS; i++)
        n += (size_t)sizes->stored[i];
    return n;
}

/*
 * Checks that text[0..len) is kept as whole messages at levels 3 and 19,
 * with min_parts to max_parts parts (header fields and the message), in no
 * more bytes than zstd of the text at the same level.
 */
static void check_messages_beat_zstd(const char *text, size_t len, size_t min_parts, size_t max_parts)
{
    const int levels[] = {3, 19};
    for (size_t k = 0; text && k < sizeof levels / sizeof levels[0]; k++) {
        ltk_stream_sizes sizes;
        ltk_decoder *d = block_roundtrip(text, len, levels[k], NULL, &sizes);
        CHECK(d != NULL);
        if (!d)
            continue;
        CHECK(ltk_decoder_whole_messages(d));
        size_t parts = ltk_decoder_part_count(d);
        if (parts < min_parts || parts > max_parts)
            printf("level %d: %zu parts\n", levels[k], parts);
        CHECK(parts >= min_parts && parts <= max_parts);
        size_t bound = ZSTD_compressBound(len);
        void *z = malloc(bound);
        size_t zlen = z ? ZSTD_compress(z, bound, text, len, levels[k]) : 0;
        CHECK(z != NULL && !ZSTD_isError(zlen));
        if (stored_bytes(&sizes) > zlen)
            printf("level %d: payload %zu bytes, zstd %zu\n", levels[k], stored_bytes(&sizes), zlen);
        CHECK(stored_bytes(&sizes) <= zlen);
        free(z);
        ltk_decoder_free(d);
    }
}

/*
 * The template dictionary of this log holds about two thirds of its text,
 * so whole messages are tried, and they are smaller than the columns (and
 * than zstd of the text) at both levels; the timestamps stay header parts.
 */
TEST(test_package_log_kept_as_messages)
{
    size_t len;
    char *text = package_lines(3000, &len);
    CHECK(text != NULL);
    check_messages_beat_zstd(text, len, 2, LTK_MAX_HEADER_PARTS + 1);
    free(text);
}

/*
 * How text[0..len) is kept as one block at `level`: 1 whole messages, 0
 * templates and columns, -1 when it does not come back exactly; *ntemplates
 * receives the block's template count.
 */
static int block_layout(const char *text, size_t len, int level, uint32_t *ntemplates)
{
    ltk_decoder *d = block_roundtrip(text, len, level, NULL, NULL);
    if (!d)
        return -1;
    int whole = ltk_decoder_whole_messages(d);
    *ntemplates = ltk_decoder_template_count(d);
    ltk_decoder_free(d);
    return whole;
}

TEST(test_repeating_log_keeps_templates)
{
    size_t len;
    uint32_t nt = 0;
    char *text = session_lines(3000, &len);
    CHECK(block_layout(text, len, 3, &nt) == 0);
    CHECK(nt > 0 && nt < 10);
    free(text);
}

/*
 * A contiguous log whose block ids recur across message types: its numbers
 * chunks repeat one another's ids, so whole messages are tried, after the
 * date, time and pid only (the header guessed at level 3 runs on to the
 * block id), and they win at both levels, no larger than zstd of the text.
 */
TEST(test_contiguous_log_of_shared_ids)
{
    size_t len;
    char *text = block_lines(12000, &len);
    CHECK(text != NULL);
    /* date, time and pid (and at level 19 maybe the level word), then the message */
    check_messages_beat_zstd(text, len, 2, 5);
    free(text);
}

TEST(test_short_block_of_messages)
{
    /* fewer than 16 lines: the string column carries no coding (lengths) */
    size_t len;
    uint32_t nt = 0;
    char *text = package_lines(9, &len);
    CHECK(block_layout(text, len, 19, &nt) == 1);
    free(text);
    /* package lines, then blank runs, empty lines, CRLF, a message of blanks
       only, a line of fewer tokens than the header, no newline at the end */
    const char odd[] = "2026-12-02 10:00:00   two  blanks\r\n\n2026-12-02 10:00:01\n"
                       "2026-12-02 10:00:02    \n\tx y z\n2026-12-02\n2026-12-02 10:00:03 last";
    text = package_lines(40, &len);
    char *both = text ? malloc(len + sizeof odd) : NULL;
    CHECK(both != NULL);
    if (both) {
        memcpy(both, text, len);
        memcpy(both + len, odd, sizeof odd);
        CHECK(block_layout(both, len + sizeof odd - 1, 3, &nt) == 1);
    }
    free(both);
    free(text);
}

/* Lines of text[0..len) that hold `pattern` (ignoring case when fold), or that do not (invert). */
static size_t plain_count(const char *text, size_t len, const char *pattern, int fold, int invert)
{
    size_t want = 0, plen = strlen(pattern);
    for (const char *line = text; line < text + len;) {
        const char *nl = memchr(line, '\n', (size_t)(text + len - line));
        size_t n = (size_t)(nl - line);
        int hit = 0;
        for (size_t i = 0; !hit && i + plen <= n; i++)
            hit = fold ? strncasecmp(line + i, pattern, plen) == 0 : memcmp(line + i, pattern, plen) == 0;
        want += hit != invert;
        line = nl + 1;
    }
    return want;
}

TEST(test_search)
{
    size_t len;
    char *text = package_lines(5000, &len);
    char path[] = "/tmp/test_whole_messages_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && text != NULL);
    if (fd < 0 || !text) {
        free(text);
        return;
    }
    close(fd);
    /* this log's block is whole messages (the path searched here) */
    ltk_decoder *d = block_roundtrip(text, len, 3, NULL, NULL);
    CHECK(d != NULL && ltk_decoder_whole_messages(d));
    ltk_decoder_free(d);
    logtk_archive_writer *w = NULL;
    CHECK(logtk_archive_writer_new(&w) == LOGTK_OK);
    CHECK(logtk_archive_writer_set_option(w, "level", "3") == LOGTK_OK);
    CHECK(logtk_archive_writer_open_path(w, path) == LOGTK_OK);
    CHECK(logtk_archive_writer_write(w, text, len) == LOGTK_OK);
    CHECK(logtk_archive_writer_close(w) == LOGTK_OK);
    logtk_archive_writer_free(w);
    const char *patterns[] = {"status installed lib", "10:01:3", "configure libq", "AMD64 1",
                              ":amd64 7.", "<none> 1", "no such text"};
    const int flags[] = {0, LOGTK_GREP_ICASE, LOGTK_GREP_INVERT};
    for (size_t q = 0; q < sizeof patterns / sizeof patterns[0]; q++)
        for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++) {
            int fold = (flags[f] & LOGTK_GREP_ICASE) != 0, invert = (flags[f] & LOGTK_GREP_INVERT) != 0;
            size_t want = plain_count(text, len, patterns[q], fold, invert), got = 0;
            logtk_grep *g = NULL;
            logtk_archive_reader *r = NULL;
            uint64_t count = 0;
            CHECK(logtk_grep_new(&g, patterns[q], LOGTK_GREP_FIXED | flags[f]) == LOGTK_OK);
            CHECK(logtk_archive_reader_new(&r) == LOGTK_OK &&
                  logtk_archive_reader_open_path(r, path) == LOGTK_OK);
            logtk_archive_block b;
            int rc;
            while ((rc = logtk_grep_next_block(g, r, &b, test_count_newlines, &got, &count)) == LOGTK_OK)
                ;
            CHECK(rc == LOGTK_DONE);
            if (got != want || count != want)
                printf("'%s' flags %d: %zu lines, %llu counted, %zu hold it\n", patterns[q], flags[f], got,
                       (unsigned long long)count, want);
            CHECK(got == want && count == want);
            /* the patterns select some lines but not all ("AMD64" only ignoring case), but for the last */
            CHECK((want > 0 && want < 5000) || invert || (q == 3 && !fold) ||
                  q + 1 == sizeof patterns / sizeof patterns[0]);
            logtk_archive_reader_free(r);
            logtk_grep_free(g);
        }
    unlink(path);
    free(text);
}
