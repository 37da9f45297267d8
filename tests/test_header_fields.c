/*
 * test_header_fields.c - header parts placed by a log format (compress --format / --dataset).
 *
 * ltk_format_header_parts() must count the whole tokens in front of
 * <Content> on most matching lines, ignore a minority of lines that do not
 * match or lack an optional field, and give up (-1) when most lines do not
 * match.  A block encoded with a format must have that many header parts (at
 * the default level the format lowers the encoder's own guess, never raises
 * it) and must come back byte for byte, matching lines or not; the writer
 * must reject a bad format with a message and accept NULL (no format).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block_decode.h"
#include "block_encode.h"
#include "block_layout.h"
#include "header_fields.h"
#include "block_roundtrip.h"
#include "logtk.h"
#include "test_harness.h"

#define HDFS_FORMAT "<Date> <Time> <Pid> <Level> <Component>: <Content>"

static logtk_format *compile(const char *spec)
{
    logtk_format *f = NULL;
    if (logtk_format_new(&f) != LOGTK_OK || logtk_format_compile(f, spec) != LOGTK_OK) {
        logtk_format_free(f);
        return NULL;
    }
    return f;
}

/* n HDFS-like lines (with a different block id and time each), then `bad` lines that do not match. */
static char *hdfs_text(int n, int bad, size_t *len)
{
    size_t cap = (size_t)(n + bad) * 160 + 1, pos = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    for (int i = 0; i < n; i++)
        pos += (size_t)snprintf(s + pos, cap - pos,
                                "081109 2035%02d %d INFO dfs.DataNode$PacketResponder: PacketResponder %d "
                                "for block blk_%d terminating\n",
                                i % 60, 140 + i % 7, i % 3, 1000003 * i);
    for (int i = 0; i < bad; i++)
        pos += (size_t)snprintf(s + pos, cap - pos, "garbage line %d without the header\n", i);
    *len = pos;
    return s;
}

TEST(test_counting)
{
    logtk_format *f = compile(HDFS_FORMAT);
    CHECK(f != NULL);
    if (!f)
        return;
    size_t len;
    char *text = hdfs_text(40, 10, &len);
    CHECK(text != NULL);
    /* "081109 203500 140 INFO dfs.DataNode$PacketResponder:" are the 5 tokens before Content */
    CHECK(ltk_format_header_parts(f, text, len, LTK_MAX_HEADER_PARTS) == 5);
    CHECK(ltk_format_header_parts(f, text, len, 3) == 3); /* capped */
    free(text);
    text = hdfs_text(10, 40, &len);
    CHECK(ltk_format_header_parts(f, text, len, LTK_MAX_HEADER_PARTS) == -1); /* most do not match */
    free(text);
    CHECK(ltk_format_header_parts(f, "", 0, LTK_MAX_HEADER_PARTS) == -1);
    /* CRLF line ends and no final newline */
    const char *crlf = "081109 203518 143 INFO dfs.X: a b\r\n081109 203519 143 WARN dfs.Y: c";
    CHECK(ltk_format_header_parts(f, crlf, strlen(crlf), LTK_MAX_HEADER_PARTS) == 5);
    logtk_format_free(f);

    /* an optional field: the count most lines give wins */
    f = compile("<Month> <Day> <Time> <Component>(\\[<PID>\\])?: <Content>");
    CHECK(f != NULL);
    if (!f)
        return;
    const char *opt = "Jun 14 15:16:01 sshd[1]: a\n"
                      "Jun 14 15:16:02 sshd[2]: b c\n"
                      "Jun 14 15:16:03 cron: d\n";
    CHECK(ltk_format_header_parts(f, opt, strlen(opt), LTK_MAX_HEADER_PARTS) == 4);
    /* a token that runs into Content is not a header token */
    logtk_format_free(f);
    f = compile("<Level>:<Content>");
    const char *glued = "INFO:started x\nWARN:stopped y\n";
    CHECK(f != NULL && ltk_format_header_parts(f, glued, strlen(glued), LTK_MAX_HEADER_PARTS) == 0);
    logtk_format_free(f);
}

/* Encodes text as one block with the given format; the decoder's parts per line, -1 on a failed round trip. */
static int encode_parts(const char *spec, int level, const char *text, size_t len)
{
    ltk_decoder *d = block_roundtrip(text, len, level, spec, NULL);
    int parts = d ? (int)ltk_decoder_part_count(d) : -1;
    ltk_decoder_free(d);
    return parts;
}

TEST(test_encoding)
{
    size_t len;
    char *text = hdfs_text(300, 20, &len);
    CHECK(text != NULL);
    if (!text)
        return;
    int without = encode_parts(NULL, 3, text, len);
    int with = encode_parts(HDFS_FORMAT, 3, text, len);
    /* the encoder's own guess runs into the message ("PacketResponder <N>"); the format stops at 5 */
    CHECK(without > 6);
    CHECK(with == 6); /* 5 header parts + the rest */
    /* a format that no line matches changes nothing */
    CHECK(encode_parts("<A> == <B> == <Content>", 3, text, len) == without);
    /* the thorough levels choose by size among 0..max(guess, format) header parts: still exact */
    CHECK(encode_parts(HDFS_FORMAT, 19, text, len) >= 1);
    free(text);

    ltk_encoder *e = ltk_encoder_new(3);
    CHECK(e != NULL && ltk_encoder_set_format(e, "<Date> <Content") == LOGTK_ERR_SYNTAX);
    CHECK(e != NULL && ltk_encoder_set_format(e, NULL) == LOGTK_OK);
    ltk_encoder_free(e);
}

TEST(test_writer_option)
{
    logtk_archive_writer *w = NULL;
    CHECK(logtk_archive_writer_new(&w) == LOGTK_OK);
    CHECK(logtk_archive_writer_set_option(w, "format", "<Date> <Content") == LOGTK_ERR_SYNTAX);
    CHECK(strstr(logtk_archive_writer_errmsg(w), "format") != NULL);
    CHECK(logtk_archive_writer_set_option(w, "format", HDFS_FORMAT) == LOGTK_OK);
    CHECK(logtk_archive_writer_set_option(w, "format", NULL) == LOGTK_OK);
    logtk_archive_writer_free(w);
}
