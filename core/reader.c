/*
 * reader.c - lines with their exact bytes from files, stdin, compressed files
 * and container members (.tar, .zip: "archive" in logtk means a .ltk file).
 *
 * The reader is the hot path of every command (a 1M lines/s parser spends a
 * real share of its time here), so plain input takes a fast path: read() in
 * 256 KiB blocks into one reused buffer and memchr() for '\n'.  A line is a
 * slice of that buffer; nothing is copied or allocated per line.  When a line
 * straddles the end of the buffer, the unfinished tail is moved to the front
 * and the buffer is refilled behind it; the scan resumes where it stopped so
 * no byte is searched twice.  The buffer grows only for lines longer than a
 * block, and never past max_line plus one block, so an endless line is
 * reported as LOGTK_ERR_LINE_TOO_LONG instead of eating memory.  A caller's
 * memory buffer with plain text is not even copied: lines point into it.
 *
 * Compression is detected by content, not by name: the first block is read
 * and its magic bytes checked (gzip, bzip2, xz, zstd, zip, ustar).  A gzip,
 * bzip2, xz or zstd stream is decoded here, with zlib, libbz2, liblzma and
 * libzstd driven incrementally straight into the line window, and not by
 * libarchive's filters.  Why: a damaged or truncated stream must yield every
 * complete line before the damage, and libarchive's filters cannot give that:
 * each filter read decodes into a private output block (64 KiB for gzip) and
 * on hitting the damage returns ARCHIVE_FATAL, throwing away the part of the
 * block it had already decoded; worse, at open time the format bidders ask
 * for look-ahead, so a short truncated file fails before delivering a byte.
 * The codecs themselves decode up to the damage (zlib and liblzma to the
 * byte, libbz2 and libzstd to their block: a half block cannot be decoded by
 * anyone), so decoding ourselves loses only what is really lost.
 * Concatenated streams (pigz, pbzip2, zstd frames, xz streams) are decoded
 * one after the other as one text, as gzip -d does.
 *
 * When the decoded data is itself a container or compressed again (.tar.gz,
 * .gz.gz), the decoder feeds libarchive through a read callback, so tar
 * members behind a damaged gzip stream also come out up to the damage.
 * Uncompressed tar and zip go to libarchive directly: seekable files by
 * descriptor (zip needs seeking to read its central directory), pipes through
 * callbacks that first return the block already read for detection.  A
 * stream compressed twice comes out of libarchive's "raw" format and is named
 * after the file; tar and zip containers yield their regular-file members in
 * order, each named "ARCHIVE:MEMBER" and numbered from line 1.  Member data is
 * taken block by block (archive_read_data_block), because archive_read_data()
 * drops the bytes it already copied when a later block fails.
 *
 * Exact bytes: a CR directly before LF is reported as part of a 2-byte
 * terminator; every other byte (NUL, lone CR, invalid UTF-8) stays in the
 * line.  A final line without newline has eol_len 0.  When the compressed
 * stream is damaged, the complete lines before the damage are delivered first
 * and the error comes after them, naming the file and the last line read; an
 * unfinished line at the damage point is not delivered as if it were complete.
 */
#include "config.h"

#define ZLIB_CONST /* next_in is const: the input may be the caller's read-only memory */

#include <archive.h>
#include <archive_entry.h>
#include <bzlib.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "byteword.h"
#include "errmsg.h"
#include "logtk.h"
#include "strbuf.h"

enum { READ_BLOCK = 256 * 1024, DETECT_BYTES = 512, BINARY_SAMPLE = 64 * 1024 };

enum source_kind {
    SOURCE_NONE,
    SOURCE_FD,          /* plain bytes from a descriptor: read() fast path */
    SOURCE_MEMORY,      /* plain bytes in the caller's buffer: zero-copy */
    SOURCE_DECODER,     /* one compressed stream (or a concatenation) decoded here */
    SOURCE_LIBARCHIVE      /* anything libarchive decodes */
};

enum codec { CODEC_NONE, CODEC_GZIP, CODEC_BZIP2, CODEC_XZ, CODEC_ZSTD };

/* Incremental decoding of a gzip, bzip2, xz or zstd stream.  The compressed
 * input is a caller's memory buffer or the reader's raw block refilled from
 * the descriptor; the output goes wherever the caller points. */
typedef struct stream_decoder {
    enum codec codec;
    int ready;                  /* the codec's state is initialised for the current stream */
    int between;                /* a gzip/bzip2 stream ended: another may follow */
    int done;                   /* the compressed data ended cleanly */
    int failed;                 /* error code, sticky; reported after the output before it */
    int zstd_in_frame;          /* the last zstd call ended inside a frame */
    const unsigned char *in;    /* compressed bytes not consumed yet */
    size_t in_len;
    int in_eof;                 /* nothing more comes after in[0 .. in_len) */
    char why[256];              /* what went wrong, for the message */
    z_stream z;
    bz_stream bz;
    lzma_stream lz;
    ZSTD_DStream *zs;           /* kept across sources: it is the one large allocation */
} stream_decoder;

struct logtk_reader {
    ltk_errbuf err;
    size_t max_line;
    enum source_kind kind;

    /* the underlying source */
    int fd;
    int own_fd;
    const char *mem;      /* SOURCE_MEMORY, or the memory handed to libarchive */
    size_t mem_len;
    struct archive *ar;
    int ar_multi;         /* tar/zip: members are named ARCHIVE:MEMBER */
    int ar_in_member;     /* a member header has been read and its data not exhausted */
    int ar_retries;       /* consecutive warnings without data, so a stuck stream ends */
    const char *ar_block; /* the rest of libarchive's current data block */
    size_t ar_block_len;
    la_int64_t ar_block_offset; /* member offset of ar_block[0] */
    la_int64_t ar_offset; /* member offset of the next byte we deliver */
    char *raw;            /* pipe callbacks and the decoder: compressed block read from fd */
    size_t raw_prefetch;  /* bytes of the detection block still to hand out */
    size_t raw_prefetch_off;
    uint64_t plain_bytes; /* bytes read() from the descriptor */
    uint64_t source_size;
    stream_decoder dec;
    char *decoded;        /* decoder feeding libarchive: the block handed to it */
    size_t decoded_prefetch, decoded_prefetch_off;

    /* the line window: bytes [start, end) of win are not yet returned */
    char *buf;
    size_t cap;
    const char *win;      /* buf, or mem for SOURCE_MEMORY */
    size_t start, end;
    size_t scan;          /* win[start .. scan) holds no '\n' */
    int eof;              /* the current stream (or member) has no more bytes */
    int pending;          /* an error code to report once the buffered lines are out */
    const char *pending_what;  /* "damaged compressed data", "read error" */
    char pending_why[256];     /* the library's or system's reason */
    int finished;         /* LOGTK_DONE has been returned */

    int binary;
    int binary_judged;
    uint64_t line_number;
    ltk_strbuf name;    /* the path, "-" or the memory name */
    ltk_strbuf source;  /* what lines report as their source */
};

int logtk_reader_new(logtk_reader **out)
{
    logtk_reader *r = calloc(1, sizeof *r);
    *out = r;
    if (!r)
        return LOGTK_ERR_NOMEM;
    r->max_line = LOGTK_DEFAULT_MAX_LINE;
    r->fd = -1;
    return LOGTK_OK;
}

int logtk_reader_set_max_line(logtk_reader *r, size_t max_line)
{
    if (max_line == 0 || max_line > ((size_t)1 << 40))
        return ltk_error_set(&r->err, LOGTK_ERR_INVALID, "maximum line length %zu out of range",
                               max_line);
    r->max_line = max_line;
    return LOGTK_OK;
}

/* Releases the codec state of the current stream (the zstd context stays for reuse). */
static void decoder_end(stream_decoder *d)
{
    if (d->ready) {
        if (d->codec == CODEC_GZIP)
            inflateEnd(&d->z);
        else if (d->codec == CODEC_BZIP2)
            BZ2_bzDecompressEnd(&d->bz);
        else if (d->codec == CODEC_XZ)
            lzma_end(&d->lz);
    }
    ZSTD_DStream *keep = d->zs;
    memset(d, 0, sizeof *d);
    lzma_stream fresh = LZMA_STREAM_INIT;
    d->lz = fresh;
    d->zs = keep;
}

int logtk_reader_close(logtk_reader *r)
{
    if (r->ar) {
        archive_read_free(r->ar);
        r->ar = NULL;
    }
    decoder_end(&r->dec);
    r->decoded_prefetch = r->decoded_prefetch_off = 0;
    if (r->own_fd && r->fd >= 0)
        close(r->fd);
    r->fd = -1;
    r->own_fd = 0;
    r->kind = SOURCE_NONE;
    r->mem = NULL;
    r->mem_len = 0;
    r->ar_multi = r->ar_in_member = r->ar_retries = 0;
    r->ar_block = NULL;
    r->ar_block_len = 0;
    r->ar_block_offset = r->ar_offset = 0;
    r->raw_prefetch = r->raw_prefetch_off = 0;
    r->plain_bytes = r->source_size = 0;
    r->win = r->buf;
    r->start = r->end = r->scan = 0;
    r->eof = r->pending = r->finished = 0;
    r->binary = r->binary_judged = 0;
    r->line_number = 0;
    ltk_strbuf_clear(&r->source);
    return LOGTK_OK;
}

void logtk_reader_free(logtk_reader *r)
{
    if (!r)
        return;
    logtk_reader_close(r);
    ZSTD_freeDStream(r->dec.zs);
    free(r->buf);
    free(r->raw);
    free(r->decoded);
    ltk_strbuf_free(&r->name);
    ltk_strbuf_free(&r->source);
    free(r);
}

const char *logtk_reader_errmsg(const logtk_reader *r)
{
    return ltk_error_text(&r->err);
}

int logtk_reader_is_binary(const logtk_reader *r)
{
    return r->binary;
}

uint64_t logtk_reader_bytes_read(const logtk_reader *r)
{
    if (r->dec.codec != CODEC_NONE) /* compressed bytes consumed, even under libarchive */
        return r->mem ? (uint64_t)(r->mem_len - r->dec.in_len) : r->plain_bytes;
    if (r->ar) {
        la_int64_t n = archive_filter_bytes(r->ar, -1);
        return n > 0 ? (uint64_t)n : 0;
    }
    if (r->kind == SOURCE_MEMORY)
        return r->start;
    return r->plain_bytes;
}

uint64_t logtk_reader_source_size(const logtk_reader *r)
{
    return r->source_size;
}

/* Text or binary, judged once on the first decoded block (at most 64 KiB): any NUL byte, or
 * more than 10% control bytes other than tab, LF, VT, FF, CR and ESC. */
static void judge_binary(logtk_reader *r, const char *p, size_t n)
{
    if (r->binary_judged || n == 0)
        return;
    r->binary_judged = 1;
    if (n > BINARY_SAMPLE)
        n = BINARY_SAMPLE;
    size_t control = 0, i = 0;
    /* eight bytes a step (every input is judged, and the sample is 64 KB:
       byte by byte it was a tenth of parsing a 2,000-line log) */
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        uint64_t below32 = ltk_bytes_below(w, 32), del = ltk_bytes_equal(w, 127);
        if ((below32 | del) == 0)
            continue; /* printable text: most words */
        if (ltk_bytes_equal(w, 0)) {
            r->binary = 1;
            return;
        }
        uint64_t text = (ltk_bytes_below(w, 14) & ~ltk_bytes_below(w, 9)) | ltk_bytes_equal(w, 27);
        uint64_t ctl = (below32 & ~text) | del;
        control += (size_t)(((ctl >> 7) * LTK_BYTES_ONES) >> 56); /* the flags counted */
    }
    for (; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == 0) {
            r->binary = 1;
            return;
        }
        if ((c < 32 && !(c >= 9 && c <= 13) && c != 27) || c == 127)
            control++;
    }
    r->binary = control * 10 > n;
}

static int ensure_buffer(logtk_reader *r, size_t want)
{
    if (r->cap >= want)
        return LOGTK_OK;
    size_t cap = r->cap ? r->cap : 2 * READ_BLOCK;
    while (cap < want)
        cap *= 2;
    char *b = realloc(r->buf, cap);
    if (!b)
        return ltk_error_set(&r->err, LOGTK_ERR_NOMEM, "%s: out of memory", r->name.data);
    r->buf = b;
    r->cap = cap;
    if (r->kind != SOURCE_MEMORY)
        r->win = b;
    return LOGTK_OK;
}

static int set_name(logtk_reader *r, const char *name)
{
    ltk_strbuf_clear(&r->name);
    ltk_strbuf_clear(&r->source);
    if (ltk_strbuf_puts(&r->name, name) != 0 || ltk_strbuf_puts(&r->source, name) != 0)
        return ltk_error_set(&r->err, LOGTK_ERR_NOMEM, "out of memory");
    return LOGTK_OK;
}

/* bzip2's "BZh" is plain ASCII, so a text log may start with it: require the
 * block size digit and the magic of the first block (or of the end of an
 * empty stream) as well, ten bytes no text begins with.  An input shorter
 * than that (a truncated download) needs only its bytes to agree. */
static int is_bzip2_start(const unsigned char *p, size_t n)
{
    if (n < 4 || p[0] != 'B' || p[1] != 'Z' || p[2] != 'h' || p[3] < '1' || p[3] > '9')
        return 0;
    size_t k = n - 4 < 6 ? n - 4 : 6;
    return memcmp(p + 4, "\x31\x41\x59\x26\x53\x59", k) == 0 ||
           memcmp(p + 4, "\x17\x72\x45\x38\x50\x90", k) == 0;
}

/* Magic numbers of the compressed and container formats we hand to libarchive. */
static int looks_compressed_or_container(const unsigned char *p, size_t n)
{
    if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
        return 1; /* gzip */
    if (is_bzip2_start(p, n))
        return 1; /* bzip2 */
    if (n >= 6 && memcmp(p, "\xfd" "7zXZ\0", 6) == 0)
        return 1; /* xz */
    if (n >= 4 && memcmp(p, "\x28\xb5\x2f\xfd", 4) == 0)
        return 1; /* zstd */
    if (n >= 4 && p[0] == 'P' && p[1] == 'K' &&
        ((p[2] == 3 && p[3] == 4) || (p[2] == 5 && p[3] == 6)))
        return 1; /* zip, or an empty zip */
    if (n >= 262 && memcmp(p + 257, "ustar", 5) == 0)
        return 1; /* POSIX or GNU tar */
    return 0;
}

/*
 * Whether more bytes could still change the format decision on p[0 .. n):
 * its first bytes may begin a magic number, or it holds no line break yet (a
 * tar header's first 257 bytes are a name and numeric fields, never a text
 * line).  The detection read stops as soon as this is false, so a pipe that
 * has delivered one short line (tail -F | logtk parse --stream) gives that
 * line now instead of waiting for DETECT_BYTES.
 */
static int detection_needs_more(const unsigned char *p, size_t n)
{
    static const struct {
        const char *bytes;
        size_t len;
    } magics[] = {{"\x1f\x8b", 2},         {"BZh", 3},          {"\xfd" "7zXZ\0", 6},
                  {"\x28\xb5\x2f\xfd", 4}, {"PK\x03\x04", 4}, {"PK\x05\x06", 4}};
    if (n == 0)
        return 1;
    for (size_t i = 0; i < sizeof magics / sizeof magics[0]; i++) {
        size_t k = n < magics[i].len ? n : magics[i].len;
        if (memcmp(p, magics[i].bytes, k) == 0)
            return 1;
    }
    return memchr(p, '\n', n) == NULL;
}

/* The codec whose magic number starts p, or CODEC_NONE. */
static enum codec codec_of(const unsigned char *p, size_t n)
{
    if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
        return CODEC_GZIP;
    if (is_bzip2_start(p, n))
        return CODEC_BZIP2;
    if (n >= 6 && memcmp(p, "\xfd" "7zXZ\0", 6) == 0)
        return CODEC_XZ;
    if (n >= 4 && memcmp(p, "\x28\xb5\x2f\xfd", 4) == 0)
        return CODEC_ZSTD;
    return CODEC_NONE;
}

static const char *codec_name(enum codec c)
{
    switch (c) {
    case CODEC_GZIP: return "gzip";
    case CODEC_BZIP2: return "bzip2";
    case CODEC_XZ: return "xz";
    case CODEC_ZSTD: return "zstd";
    default: return "compressed";
    }
}

/* Records why decoding stopped; returns code. */
static int decoder_fail(stream_decoder *d, int code, const char *fmt, const char *detail)
{
    snprintf(d->why, sizeof d->why, fmt, codec_name(d->codec), detail ? detail : "");
    return code;
}

/* Tops up the compressed bytes from the descriptor, keeping the unconsumed ones. */
static int decoder_refill(logtk_reader *r)
{
    stream_decoder *d = &r->dec;
    if (d->in_len > 0 && d->in != (const unsigned char *)r->raw)
        memmove(r->raw, d->in, d->in_len);
    d->in = (const unsigned char *)r->raw;
    for (;;) {
        ssize_t n = read(r->fd, r->raw + d->in_len, READ_BLOCK - d->in_len);
        if (n > 0) {
            d->in_len += (size_t)n;
            r->plain_bytes += (uint64_t)n;
            return LOGTK_OK;
        }
        if (n == 0) {
            d->in_eof = 1;
            return LOGTK_OK;
        }
        if (errno != EINTR)
            return decoder_fail(d, LOGTK_ERR_IO, "read error in the %s input: %s", strerror(errno));
    }
}

/*
 * Runs the codec once on the buffered input into out[0 .. room).  Returns 0 to
 * go on, 1 when a gzip/bzip2 stream ended (another may follow), 2 when the
 * whole input ended (xz decodes concatenated streams itself), or a negative
 * code with d->why set.
 */
static int codec_step(stream_decoder *d, unsigned char *out, size_t room, size_t *made)
{
    size_t in_n = d->in_len < UINT_MAX ? d->in_len : UINT_MAX;
    size_t out_n = room < UINT_MAX ? room : UINT_MAX;
    size_t consumed = 0;
    int result = 0;
    *made = 0;
    switch (d->codec) {
    case CODEC_GZIP: {
        if (!d->ready) {
            memset(&d->z, 0, sizeof d->z);
            if (inflateInit2(&d->z, 15 + 16) != Z_OK) /* 16: gzip header and trailer */
                return decoder_fail(d, LOGTK_ERR_NOMEM, "%s decoder: out of memory%s", NULL);
            d->ready = 1;
        }
        d->z.next_in = d->in;
        d->z.avail_in = (uInt)in_n;
        d->z.next_out = out;
        d->z.avail_out = (uInt)out_n;
        int zr = inflate(&d->z, Z_NO_FLUSH);
        consumed = in_n - d->z.avail_in;
        *made = out_n - d->z.avail_out;
        if (zr == Z_STREAM_END) {
            inflateEnd(&d->z);
            d->ready = 0;
            result = 1;
        } else if (zr == Z_MEM_ERROR) {
            result = decoder_fail(d, LOGTK_ERR_NOMEM, "%s decoder: out of memory%s", NULL);
        } else if (zr != Z_OK && zr != Z_BUF_ERROR) {
            result = decoder_fail(d, LOGTK_ERR_ARCHIVE, "%s data error: %s",
                                  d->z.msg ? d->z.msg : "invalid data");
        }
        break;
    }
    case CODEC_BZIP2: {
        if (!d->ready) {
            memset(&d->bz, 0, sizeof d->bz);
            if (BZ2_bzDecompressInit(&d->bz, 0, 0) != BZ_OK)
                return decoder_fail(d, LOGTK_ERR_NOMEM, "%s decoder: out of memory%s", NULL);
            d->ready = 1;
        }
        d->bz.next_in = (char *)(uintptr_t)d->in; /* libbz2 does not write through it */
        d->bz.avail_in = (unsigned)in_n;
        d->bz.next_out = (char *)out;
        d->bz.avail_out = (unsigned)out_n;
        int br = BZ2_bzDecompress(&d->bz);
        consumed = in_n - d->bz.avail_in;
        *made = out_n - d->bz.avail_out;
        if (br == BZ_STREAM_END) {
            BZ2_bzDecompressEnd(&d->bz);
            d->ready = 0;
            result = 1;
        } else if (br == BZ_MEM_ERROR) {
            result = decoder_fail(d, LOGTK_ERR_NOMEM, "%s decoder: out of memory%s", NULL);
        } else if (br != BZ_OK) {
            result = decoder_fail(d, LOGTK_ERR_ARCHIVE, "%s data error%s",
                                  br == BZ_DATA_ERROR_MAGIC ? " (bad stream header)"
                                                            : " (checksum or block damaged)");
        }
        break;
    }
    case CODEC_XZ: {
        if (!d->ready) {
            lzma_stream fresh = LZMA_STREAM_INIT;
            d->lz = fresh;
            if (lzma_stream_decoder(&d->lz, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
                return decoder_fail(d, LOGTK_ERR_NOMEM, "%s decoder: out of memory%s", NULL);
            d->ready = 1;
        }
        d->lz.next_in = d->in;
        d->lz.avail_in = in_n;
        d->lz.next_out = out;
        d->lz.avail_out = out_n;
        /* LZMA_FINISH tells it that no further stream follows the buffered input */
        lzma_ret lr = lzma_code(&d->lz, d->in_eof ? LZMA_FINISH : LZMA_RUN);
        consumed = in_n - d->lz.avail_in;
        *made = out_n - d->lz.avail_out;
        if (lr == LZMA_STREAM_END)
            result = 2;
        else if (lr == LZMA_MEM_ERROR || lr == LZMA_MEMLIMIT_ERROR)
            result = decoder_fail(d, LOGTK_ERR_NOMEM, "%s decoder: out of memory%s", NULL);
        else if (lr == LZMA_BUF_ERROR && d->in_eof)
            result = decoder_fail(d, LOGTK_ERR_ARCHIVE,
                                  "truncated %s input: the compressed data ends early%s", NULL);
        else if (lr != LZMA_OK && lr != LZMA_BUF_ERROR)
            result = decoder_fail(d, LOGTK_ERR_ARCHIVE, "%s data error: %s",
                                  lr == LZMA_FORMAT_ERROR    ? "not xz data"
                                  : lr == LZMA_OPTIONS_ERROR ? "unsupported options"
                                                             : "corrupt data");
        break;
    }
    case CODEC_ZSTD: {
        if (!d->zs && !(d->zs = ZSTD_createDStream()))
            return decoder_fail(d, LOGTK_ERR_NOMEM, "%s decoder: out of memory%s", NULL);
        if (!d->ready) {
            ZSTD_DCtx_reset(d->zs, ZSTD_reset_session_only);
            d->ready = 1;
        }
        if (d->in_len == 0 && d->in_eof && !d->zstd_in_frame)
            return 2; /* the input ended right after a complete frame */
        ZSTD_inBuffer zin = {d->in, d->in_len, 0};
        ZSTD_outBuffer zout = {out, room, 0};
        size_t zr = ZSTD_decompressStream(d->zs, &zout, &zin);
        consumed = zin.pos;
        *made = zout.pos;
        if (ZSTD_isError(zr)) {
            result = ZSTD_getErrorCode(zr) == ZSTD_error_memory_allocation
                         ? decoder_fail(d, LOGTK_ERR_NOMEM, "%s decoder: out of memory%s", NULL)
                         : decoder_fail(d, LOGTK_ERR_ARCHIVE, "%s data error: %s",
                                        ZSTD_getErrorName(zr));
        } else {
            d->zstd_in_frame = zr != 0; /* 0: a frame ended and is fully flushed */
            if (!d->zstd_in_frame && consumed == d->in_len && d->in_eof)
                result = 2;
        }
        break;
    }
    default:
        return decoder_fail(d, LOGTK_ERR_INVALID, "%s: no decoder%s", NULL);
    }
    d->in += consumed;
    d->in_len -= consumed;
    return result;
}

/* After a gzip or bzip2 stream: another stream may follow (pigz, pbzip2,
 * cat a.gz b.gz); zero bytes (tape padding) are skipped; anything else is
 * reported rather than silently dropped. */
static int decoder_after_stream(logtk_reader *r)
{
    stream_decoder *d = &r->dec;
    static const unsigned char gzip_magic[] = {0x1f, 0x8b}, bzip2_magic[] = {'B', 'Z', 'h'};
    const unsigned char *magic = d->codec == CODEC_GZIP ? gzip_magic : bzip2_magic;
    size_t magic_len = d->codec == CODEC_GZIP ? sizeof gzip_magic : sizeof bzip2_magic;
    for (;;) {
        while (d->in_len > 0 && d->in[0] == 0) {
            d->in++;
            d->in_len--;
        }
        if (d->in_len < magic_len && !d->in_eof) {
            int rc = decoder_refill(r);
            if (rc < 0)
                return rc;
            continue;
        }
        if (d->in_len == 0) {
            d->done = 1;
            return LOGTK_OK;
        }
        if (d->in_len >= magic_len && memcmp(d->in, magic, magic_len) == 0) {
            d->between = 0;
            return LOGTK_OK;
        }
        return decoder_fail(d, LOGTK_ERR_ARCHIVE, "unexpected bytes after the end of the %s data%s",
                            NULL);
    }
}

/*
 * Decodes the next piece into out[0 .. room).  Returns LOGTK_OK with *made > 0,
 * LOGTK_OK with *made == 0 at the clean end of the data, or the error that
 * stopped decoding (d->why says what).  Output decoded before an error is
 * returned first; the error comes with the next call, and stays.
 */
static int decode_some(logtk_reader *r, unsigned char *out, size_t room, size_t *made)
{
    stream_decoder *d = &r->dec;
    int idle = 0; /* consecutive calls without progress */
    *made = 0;
    while (*made == 0 && !d->failed && !d->done) {
        int rc = LOGTK_OK;
        if (d->in_len == 0 && !d->in_eof)
            rc = decoder_refill(r);
        else if (d->between)
            rc = decoder_after_stream(r);
        else {
            size_t before = d->in_len;
            rc = codec_step(d, out, room, made);
            if (rc == 1)
                d->between = 1;
            else if (rc == 2)
                d->done = 1;
            if (rc >= 0 && *made == 0 && d->in_len == before && ++idle >= 3)
                rc = decoder_fail(d, LOGTK_ERR_ARCHIVE,
                                  d->in_eof ? "truncated %s input: the compressed data ends early%s"
                                            : "%s decoder makes no progress%s",
                                  NULL);
            else if (*made > 0 || d->in_len != before)
                idle = 0;
        }
        if (rc < 0)
            d->failed = rc;
    }
    if (*made > 0)
        return LOGTK_OK;
    return d->failed;
}

/* libarchive's read callback when the decoder's output is itself a container
 * or compressed again: the block decoded for detection first, then more. */
static la_ssize_t decoded_read_callback(struct archive *a, void *user, const void **out)
{
    logtk_reader *r = user;
    if (r->decoded_prefetch_off < r->decoded_prefetch) {
        *out = r->decoded + r->decoded_prefetch_off;
        size_t n = r->decoded_prefetch - r->decoded_prefetch_off;
        r->decoded_prefetch_off = r->decoded_prefetch;
        return (la_ssize_t)n;
    }
    size_t made;
    int rc = decode_some(r, (unsigned char *)r->decoded, READ_BLOCK, &made);
    if (rc < 0) {
        archive_set_error(a, rc == LOGTK_ERR_NOMEM ? ENOMEM : EIO, "%s", r->dec.why);
        return -1;
    }
    *out = r->decoded;
    return (la_ssize_t)made;
}

static la_ssize_t pipe_read_callback(struct archive *a, void *user, const void **out)
{
    logtk_reader *r = user;
    if (r->raw_prefetch_off < r->raw_prefetch) {
        *out = r->raw + r->raw_prefetch_off;
        size_t n = r->raw_prefetch - r->raw_prefetch_off;
        r->raw_prefetch_off = r->raw_prefetch;
        return (la_ssize_t)n;
    }
    for (;;) {
        ssize_t n = read(r->fd, r->raw, READ_BLOCK);
        if (n >= 0) {
            r->plain_bytes += (uint64_t)n;
            *out = r->raw;
            return n;
        }
        if (errno != EINTR) {
            archive_set_error(a, errno, "read error: %s", strerror(errno));
            return -1;
        }
    }
}

static int libarchive_failed(logtk_reader *r, const char *what)
{
    const char *msg = r->ar ? archive_error_string(r->ar) : NULL;
    if (r->line_number > 0)
        return ltk_error_set(&r->err, LOGTK_ERR_ARCHIVE, "%s: %s after line %llu: %s",
                               r->source.data, what, (unsigned long long)r->line_number,
                               msg ? msg : "unknown error");
    return ltk_error_set(&r->err, LOGTK_ERR_ARCHIVE, "%s: %s: %s", r->name.data, what,
                           msg ? msg : "unknown error");
}

/* Advances to the next regular-file member (or the single raw stream).
 * Returns LOGTK_OK, LOGTK_DONE (no more members) or LOGTK_ERR_ARCHIVE. */
static int next_member(logtk_reader *r)
{
    struct archive_entry *entry;
    for (;;) {
        int rc = archive_read_next_header(r->ar, &entry);
        if (rc == ARCHIVE_EOF)
            return LOGTK_DONE;
        if (rc < ARCHIVE_WARN)
            return libarchive_failed(r, r->ar_in_member ? "damaged archive" : "unreadable archive");
        int fmt = archive_format(r->ar);
        r->ar_multi = fmt != ARCHIVE_FORMAT_RAW;
        if (r->ar_multi && archive_entry_filetype(entry) != AE_IFREG)
            continue; /* directories, links, devices */
        r->ar_in_member = 1;
        r->ar_block = NULL;
        r->ar_block_len = 0;
        r->ar_block_offset = r->ar_offset = 0;
        r->line_number = 0;
        r->eof = 0;
        ltk_strbuf_clear(&r->source);
        if (r->ar_multi) {
            const char *member = archive_entry_pathname(entry);
            if (ltk_strbuf_printf(&r->source, "%s:%s", r->name.data, member ? member : "?") != 0)
                return ltk_error_set(&r->err, LOGTK_ERR_NOMEM, "out of memory");
        } else if (ltk_strbuf_puts(&r->source, r->name.data) != 0) {
            return ltk_error_set(&r->err, LOGTK_ERR_NOMEM, "out of memory");
        }
        return LOGTK_OK;
    }
}

enum libarchive_input { FROM_MEMORY, FROM_FD, FROM_PIPE, FROM_DECODER };

/* Starts libarchive on the open source.  The first member is entered so that
 * an unreadable container fails at open time, with the file named. */
static int start_libarchive(logtk_reader *r, enum libarchive_input from)
{
    r->ar = archive_read_new();
    if (!r->ar)
        return ltk_error_set(&r->err, LOGTK_ERR_NOMEM, "out of memory");
    archive_read_support_filter_all(r->ar);
    archive_read_support_format_tar(r->ar);
    archive_read_support_format_gnutar(r->ar);
    archive_read_support_format_zip(r->ar);
    archive_read_support_format_raw(r->ar);
    int rc;
    if (from == FROM_MEMORY)
        rc = archive_read_open_memory(r->ar, r->mem, r->mem_len);
    else if (from == FROM_FD)
        rc = archive_read_open_fd(r->ar, r->fd, READ_BLOCK);
    else if (from == FROM_PIPE)
        rc = archive_read_open(r->ar, r, NULL, pipe_read_callback, NULL);
    else
        rc = archive_read_open(r->ar, r, NULL, decoded_read_callback, NULL);
    r->kind = SOURCE_LIBARCHIVE;
    /* A compressed empty file decodes to nothing, which no format (not even
     * raw) recognises: that is an empty input, not a damaged one. */
    if (rc != ARCHIVE_OK && from != FROM_DECODER && archive_filter_count(r->ar) > 1 &&
        archive_filter_bytes(r->ar, 0) == 0) {
        r->eof = 1;
        return LOGTK_OK;
    }
    if (rc != ARCHIVE_OK)
        return libarchive_failed(r, "cannot open compressed data");
    rc = next_member(r);
    if (rc == LOGTK_DONE) { /* a container without regular files: no lines */
        r->eof = 1;
        r->finished = 0;
        return LOGTK_OK;
    }
    return rc;
}

/* Uncompressed tar or zip from the descriptor: seekable files by descriptor
 * from the start, pipes through the callback that hands out the detection
 * block first. */
static int start_raw_libarchive(logtk_reader *r, int seekable, size_t have)
{
    r->eof = 0;
    if (seekable) {
        if (lseek(r->fd, 0, SEEK_SET) != 0) {
            int e = errno;
            logtk_reader_close(r);
            return ltk_error_set(&r->err, LOGTK_ERR_IO, "%s: %s", r->name.data, strerror(e));
        }
        r->plain_bytes = 0;
    } else {
        if (!r->raw && !(r->raw = malloc(READ_BLOCK)))
            return ltk_error_set(&r->err, LOGTK_ERR_NOMEM, "out of memory");
        memcpy(r->raw, r->buf, have); /* the detection loop reads at most READ_BLOCK */
        r->raw_prefetch = have;
        r->raw_prefetch_off = 0;
    }
    return start_libarchive(r, seekable ? FROM_FD : FROM_PIPE);
}

/*
 * Starts decoding a compressed stream whose first compressed bytes are in
 * r->dec.in.  The first block is decoded at once into the line window: when
 * it is plain text the lines are read from the decoder directly; when it is
 * a container or compressed again, it goes to libarchive through
 * decoded_read_callback.  A decoding error here is not an open error: it is
 * reported by logtk_reader_next() after whatever was decoded before it.
 */
static int start_decoder(logtk_reader *r, enum codec codec)
{
    r->dec.codec = codec;
    r->kind = SOURCE_DECODER;
    r->eof = 0;
    int rc = ensure_buffer(r, 2 * READ_BLOCK);
    if (rc != LOGTK_OK)
        return rc;
    r->win = r->buf;
    size_t made;
    rc = decode_some(r, (unsigned char *)r->buf, READ_BLOCK, &made);
    if (rc == LOGTK_ERR_NOMEM)
        return ltk_error_set(&r->err, rc, "%s: %s", r->name.data, r->dec.why);
    if (made > 0 && looks_compressed_or_container((const unsigned char *)r->buf, made)) {
        if (!r->decoded && !(r->decoded = malloc(READ_BLOCK)))
            return ltk_error_set(&r->err, LOGTK_ERR_NOMEM, "out of memory");
        memcpy(r->decoded, r->buf, made);
        r->decoded_prefetch = made;
        r->decoded_prefetch_off = 0;
        return start_libarchive(r, FROM_DECODER);
    }
    judge_binary(r, r->buf, made);
    r->end = made;
    return LOGTK_OK;
}

int logtk_reader_open_path(logtk_reader *r, const char *path)
{
    logtk_reader_close(r);
    ltk_error_clear(&r->err);
    int is_stdin = path == NULL || strcmp(path, "-") == 0;
    int rc = set_name(r, is_stdin ? "-" : path);
    if (rc != LOGTK_OK)
        return rc;
    if (is_stdin) {
        r->fd = STDIN_FILENO;
    } else {
        r->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (r->fd < 0)
            return ltk_error_set(&r->err, LOGTK_ERR_IO, "%s: %s", path, strerror(errno));
        r->own_fd = 1;
    }
    struct stat st;
    int seekable = 0;
    if (fstat(r->fd, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            logtk_reader_close(r);
            return ltk_error_set(&r->err, LOGTK_ERR_IO, "%s: %s", path, strerror(EISDIR));
        }
        if (S_ISREG(st.st_mode)) {
            r->source_size = (uint64_t)st.st_size;
            seekable = lseek(r->fd, 0, SEEK_CUR) == 0;
        }
    }
#ifdef POSIX_FADV_SEQUENTIAL
    if (seekable)
        posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    r->kind = SOURCE_FD;
    if ((rc = ensure_buffer(r, 2 * READ_BLOCK)) != LOGTK_OK)
        return rc;
    r->win = r->buf;
    /* Read enough to recognise the format; a pipe may deliver it in pieces. */
    size_t have = 0;
    while (have < DETECT_BYTES && detection_needs_more((const unsigned char *)r->buf, have)) {
        ssize_t n = read(r->fd, r->buf + have, READ_BLOCK - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            logtk_reader_close(r);
            return ltk_error_set(&r->err, LOGTK_ERR_IO, "%s: %s", r->name.data, strerror(e));
        }
        if (n == 0) {
            r->eof = 1;
            break;
        }
        have += (size_t)n;
        r->plain_bytes += (uint64_t)n;
    }
    if (!looks_compressed_or_container((const unsigned char *)r->buf, have)) {
        r->end = have;
        judge_binary(r, r->buf, have);
        return LOGTK_OK;
    }
    enum codec codec = codec_of((const unsigned char *)r->buf, have);
    if (codec != CODEC_NONE) {
        /* the detection block is the decoder's first input; no seeking back */
        if (!r->raw && !(r->raw = malloc(READ_BLOCK)))
            return ltk_error_set(&r->err, LOGTK_ERR_NOMEM, "out of memory");
        memcpy(r->raw, r->buf, have);
        r->dec.in = (const unsigned char *)r->raw;
        r->dec.in_len = have;
        r->dec.in_eof = r->eof;
        rc = start_decoder(r, codec);
    } else {
        rc = start_raw_libarchive(r, seekable, have);
    }
    if (rc < 0) {
        ltk_errbuf keep = r->err;
        logtk_reader_close(r);
        r->err = keep;
    }
    return rc;
}

int logtk_reader_open_memory(logtk_reader *r, const void *buf, size_t len, const char *name)
{
    logtk_reader_close(r);
    ltk_error_clear(&r->err);
    int rc = set_name(r, name ? name : "<memory>");
    if (rc != LOGTK_OK)
        return rc;
    r->mem = buf;
    r->mem_len = len;
    r->source_size = len;
    r->kind = SOURCE_MEMORY;
    if (!looks_compressed_or_container(buf, len)) {
        r->win = buf;
        r->end = len;
        r->eof = 1;
        judge_binary(r, buf, len < READ_BLOCK ? len : READ_BLOCK);
        return LOGTK_OK;
    }
    enum codec codec = codec_of(buf, len);
    if (codec != CODEC_NONE) {
        r->dec.in = buf;
        r->dec.in_len = len;
        r->dec.in_eof = 1;
        rc = start_decoder(r, codec);
    } else if ((rc = ensure_buffer(r, 2 * READ_BLOCK)) == LOGTK_OK) {
        r->win = r->buf;
        rc = start_libarchive(r, FROM_MEMORY);
    }
    if (rc < 0) {
        ltk_errbuf keep = r->err;
        logtk_reader_close(r);
        r->err = keep;
    }
    return rc;
}

/* Records an error that ends the input: it is reported by report_pending()
 * once the complete lines before it are out, so that the message can name
 * the last line actually delivered.  Returns code. */
static int input_failed(logtk_reader *r, int code, const char *what, const char *why)
{
    r->pending_what = what;
    snprintf(r->pending_why, sizeof r->pending_why, "%s", why && why[0] ? why : "unknown error");
    return code;
}

static int report_pending(logtk_reader *r)
{
    if (r->line_number > 0)
        return ltk_error_set(&r->err, r->pending, "%s: %s after line %llu: %s", r->source.data,
                               r->pending_what, (unsigned long long)r->line_number,
                               r->pending_why);
    return ltk_error_set(&r->err, r->pending, "%s: %s before the first line: %s",
                           r->source.data, r->pending_what, r->pending_why);
}

/* Appends more bytes of the current stream behind win[end].  Sets r->eof at
 * the end of the stream (member).  Returns LOGTK_OK or an error. */
static int fill(logtk_reader *r)
{
    /* Keep the unfinished line, drop what was returned. */
    if (r->start > 0) {
        size_t keep = r->end - r->start;
        memmove(r->buf, r->buf + r->start, keep);
        r->scan -= r->start;
        r->end = keep;
        r->start = 0;
    }
    int rc = ensure_buffer(r, r->end + READ_BLOCK);
    if (rc != LOGTK_OK)
        return rc;
    size_t room = r->cap - r->end;
    if (r->kind == SOURCE_FD) {
        for (;;) {
            ssize_t n = read(r->fd, r->buf + r->end, room);
            if (n > 0) {
                judge_binary(r, r->buf + r->end, (size_t)n);
                r->end += (size_t)n;
                r->plain_bytes += (uint64_t)n;
                return LOGTK_OK;
            }
            if (n == 0) {
                r->eof = 1;
                return LOGTK_OK;
            }
            if (errno != EINTR)
                return input_failed(r, LOGTK_ERR_IO, "read error", strerror(errno));
        }
    }
    if (r->kind == SOURCE_DECODER) {
        size_t made;
        rc = decode_some(r, (unsigned char *)r->buf + r->end, room, &made);
        if (rc < 0)
            return input_failed(r, rc, rc == LOGTK_ERR_IO ? "read error" : "damaged compressed data",
                                r->dec.why);
        if (made == 0) {
            r->eof = 1;
            return LOGTK_OK;
        }
        judge_binary(r, r->buf + r->end, made);
        r->end += made;
        return LOGTK_OK;
    }
    /* libarchive */
    if (!r->ar_in_member) {
        r->eof = 1;
        return LOGTK_OK;
    }
    /* Block by block, not archive_read_data(): that one keeps reading blocks
     * until the caller's buffer is full and, when a later block fails,
     * returns only the error, losing the bytes it had already copied. */
    if (r->ar_block_len == 0) {
        const void *block;
        size_t size;
        la_int64_t offset;
        int status = archive_read_data_block(r->ar, &block, &size, &offset);
        if (status == ARCHIVE_EOF) {
            r->eof = 1;
            return LOGTK_OK;
        }
        if (status == ARCHIVE_WARN || status == ARCHIVE_RETRY) {
            if (size == 0 && ++r->ar_retries < 100)
                return LOGTK_OK; /* nothing delivered yet; the next call continues */
            if (size == 0)
                status = ARCHIVE_FATAL;
        }
        if (status < ARCHIVE_WARN) {
            const char *why = archive_error_string(r->ar);
            return input_failed(r, archive_errno(r->ar) == ENOMEM ? LOGTK_ERR_NOMEM
                                                                  : LOGTK_ERR_ARCHIVE,
                                "damaged compressed data", why);
        }
        r->ar_retries = 0;
        r->ar_block = block;
        r->ar_block_len = size;
        r->ar_block_offset = offset;
        if (size == 0)
            return LOGTK_OK;
    }
    size_t n;
    if (r->ar_block_offset > r->ar_offset) {
        /* a hole in a sparse member reads as zero bytes, as archive_read_data() gives it */
        uint64_t hole = (uint64_t)(r->ar_block_offset - r->ar_offset);
        n = hole < room ? (size_t)hole : room;
        memset(r->buf + r->end, 0, n);
    } else {
        n = r->ar_block_len < room ? r->ar_block_len : room;
        memcpy(r->buf + r->end, r->ar_block, n);
        r->ar_block += n;
        r->ar_block_len -= n;
        r->ar_block_offset += (la_int64_t)n;
    }
    r->ar_offset += (la_int64_t)n;
    judge_binary(r, r->buf + r->end, n);
    r->end += n;
    return LOGTK_OK;
}

int logtk_reader_next(logtk_reader *r, logtk_line *line)
{
    if (r->kind == SOURCE_NONE)
        return ltk_error_set(&r->err, LOGTK_ERR_INVALID, "reader has no open source");
    if (r->err.code < 0 && r->err.code != LOGTK_ERR_INVALID)
        return r->err.code; /* errors are sticky: the position is lost */
    for (;;) {
        const char *w = r->win;
        if (r->scan < r->end) {
            const char *nl = memchr(w + r->scan, '\n', r->end - r->scan);
            if (nl) {
                size_t stop = (size_t)(nl - w);
                size_t len = stop - r->start;
                size_t eol = 1;
                if (len > 0 && w[stop - 1] == '\r') {
                    len--;
                    eol = 2;
                }
                r->line_number++;
                if (len > r->max_line)
                    goto too_long;
                line->data = w + r->start;
                line->len = len;
                line->eol_len = eol;
                line->number = r->line_number;
                line->source = r->source.data;
                r->start = r->scan = stop + 1;
                return LOGTK_OK;
            }
            r->scan = r->end;
        }
        /* No newline in the window. */
        if (r->end - r->start > r->max_line + 1) {
            r->line_number++;
            goto too_long;
        }
        if (r->pending)
            return report_pending(r);
        if (r->eof) {
            if (r->start < r->end) { /* final line without newline */
                size_t len = r->end - r->start;
                r->line_number++;
                if (len > r->max_line)
                    goto too_long;
                line->data = w + r->start;
                line->len = len;
                line->eol_len = 0;
                line->number = r->line_number;
                line->source = r->source.data;
                r->start = r->scan = r->end;
                return LOGTK_OK;
            }
            if (r->kind != SOURCE_LIBARCHIVE || !r->ar_in_member) {
                r->finished = 1;
                return LOGTK_DONE;
            }
            r->ar_in_member = 0;
            if (!r->ar_multi) {
                r->finished = 1;
                return LOGTK_DONE;
            }
            int rc = next_member(r);
            if (rc == LOGTK_DONE) {
                r->finished = 1;
                return LOGTK_DONE;
            }
            if (rc < 0)
                return rc;
            r->start = r->end = r->scan = 0;
            continue;
        }
        int rc = fill(r);
        if (rc < 0) {
            if (rc == LOGTK_ERR_NOMEM)
                return ltk_error_set(&r->err, rc, "%s: out of memory after line %llu",
                                       r->source.data, (unsigned long long)r->line_number);
            /* Deliver what is complete before reporting the damage; an
             * unfinished last line is not complete, so it is dropped. */
            r->pending = rc;
            r->eof = 1;
            const char *last = r->end > r->start
                                   ? memrchr(r->win + r->start, '\n', r->end - r->start)
                                   : NULL;
            r->end = last ? (size_t)(last - r->win) + 1 : r->start;
            r->scan = r->start;
        }
    }

too_long:
    return ltk_error_set(&r->err, LOGTK_ERR_LINE_TOO_LONG, "%s:%llu: line longer than %zu bytes",
                           r->source.data, (unsigned long long)r->line_number, r->max_line);
}
