/*
 * archive_reader.c - reads archives block by block, streaming or by index.
 *
 * The reader walks the file front to back through its own buffer (so it
 * works on pipes and keeps memory to one block): file header, then block
 * headers and payloads until the "LTKI" footer.  Damage is contained:
 *  - payload checksum wrong or payload undecodable: the header still gives
 *    the line range; report it and skip payload_len bytes;
 *  - header damaged or garbage between blocks: scan forward for the next
 *    "LTKB" whose header checksum holds (or a valid footer); the lost lines
 *    are those between the last good block and the next one;
 *  - file cut short: report the lines from the last good block on (the
 *    footer index, when readable, says how many).
 * Random access (logtk cat --lines) reads the footer from the end of a
 * seekable file and jumps to the block holding the wanted line.
 * A regular file is mapped into memory when the system allows, and then
 * read like a memory source: payloads are used where they lie, with no copy
 * through the read buffer (search touches a small part of most payloads, so
 * the copy would cost as much as the search).  Pipes and anything that
 * cannot be mapped go through the buffer.  The map is reference-counted:
 * the read-ahead of block_pool.c (parallel decompress and grep) holds it
 * while its workers use payloads in it, so a reader reopened or freed
 * meanwhile does not unmap them, and no second map of the file is needed.
 * Every open and every reposition (seek, index load) gets a new serial
 * number, by which a read-ahead knows its blocks are stale.
 *
 * A mapped file that another process truncates while it is read raises
 * SIGBUS on the first page past its new end, which would kill the program
 * where reading through the buffer merely meets the end of the file.  So
 * every live map is listed in a small table that a SIGBUS handler (set
 * once, chaining to the one it replaced for faults elsewhere) looks up: a
 * fault inside a map gets anonymous zero pages mapped over the rest of the
 * map, the map records where it was cut, and the reader then treats the
 * map as ending there, exactly as a truncated file read through a pipe
 * (the lost lines are named; a payload a worker was reading fails its
 * checksums).  A file whose map finds no free slot in the table is read
 * through the buffer.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif
#if defined(_POSIX_MAPPED_FILES) && _POSIX_MAPPED_FILES > 0
#define LTK_USE_MMAP 1
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#endif

#include "archive_container.h"
#include "block_decode.h"
#include "block_layout.h"
#include "archive_index.h"
#include "archive_reader_impl.h"

#define FOOTER_MAX ((size_t)1 << 28)

int logtk_archive_reader_new(logtk_archive_reader **out)
{
    logtk_archive_reader *r = calloc(1, sizeof *r);
    *out = r;
    if (!r)
        return LOGTK_ERR_NOMEM;
    r->dec = ltk_decoder_new();
    if (!r->dec) {
        free(r);
        *out = NULL;
        return LOGTK_ERR_NOMEM;
    }
    return LOGTK_OK;
}

struct ltk_file_map {
    const uint8_t *base;
    size_t len;
    int refs;
    int slot; /* its entry in map_table, -1: none */
};

#ifdef LTK_USE_MMAP
/*
 * Live maps, for the SIGBUS handler.  An entry is claimed by setting its
 * base (compare-and-swap from 0) after len, and released by clearing base;
 * the handler only reads them, so it needs no lock.
 */
#define MAP_TABLE_SIZE 64
static struct map_entry {
    uintptr_t base; /* 0: free */
    size_t len;
    size_t cut;     /* offset of the first page that faulted, len when none */
} map_table[MAP_TABLE_SIZE];
static struct sigaction previous_sigbus;
static pthread_once_t sigbus_once = PTHREAD_ONCE_INIT;
static int sigbus_ready;
static uintptr_t page_size; /* read once: sysconf is not for signal handlers */

static void on_sigbus(int sig, siginfo_t *info, void *context)
{
    uintptr_t addr = (uintptr_t)info->si_addr;
    for (int i = 0; i < MAP_TABLE_SIZE; i++) {
        struct map_entry *e = &map_table[i];
        uintptr_t base = __atomic_load_n(&e->base, __ATOMIC_ACQUIRE);
        if (base == 0 || addr < base || addr - base >= e->len)
            continue;
        uintptr_t from = addr & ~(page_size - 1);
        /* zero pages from the fault to the end of the map: reading goes on and sees the cut */
        if (mmap((void *)from, base + e->len - from, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
                 0) == MAP_FAILED)
            break;
        size_t cut = (size_t)(from - base), old = __atomic_load_n(&e->cut, __ATOMIC_RELAXED);
        while (cut < old && !__atomic_compare_exchange_n(&e->cut, &old, cut, 0, __ATOMIC_RELEASE,
                                                         __ATOMIC_RELAXED))
            ;
        return;
    }
    /* not ours: what the program had before */
    if (previous_sigbus.sa_flags & SA_SIGINFO) {
        previous_sigbus.sa_sigaction(sig, info, context);
    } else if (previous_sigbus.sa_handler != SIG_IGN && previous_sigbus.sa_handler != SIG_DFL) {
        previous_sigbus.sa_handler(sig);
    } else {
        signal(SIGBUS, SIG_DFL);
        raise(SIGBUS);
    }
}

static void install_sigbus(void)
{
    long page = sysconf(_SC_PAGESIZE);
    page_size = page > 0 ? (uintptr_t)page : 4096;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigbus_ready = sigaction(SIGBUS, &sa, &previous_sigbus) == 0;
}

/* Lists a map for the handler; its slot, or -1 (then the file is not mapped). */
static int map_table_add(const uint8_t *base, size_t len)
{
    pthread_once(&sigbus_once, install_sigbus);
    if (!sigbus_ready)
        return -1;
    for (int i = 0; i < MAP_TABLE_SIZE; i++) {
        struct map_entry *e = &map_table[i];
        uintptr_t expected = 0;
        if (__atomic_load_n(&e->base, __ATOMIC_RELAXED) != 0)
            continue;
        e->len = len;
        e->cut = len;
        if (__atomic_compare_exchange_n(&e->base, &expected, (uintptr_t)base, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED))
            return i;
    }
    return -1;
}
#endif

/* Bytes of the map that are the file's: all of it, unless the file was cut while mapped. */
static size_t map_valid_len(const ltk_file_map *m)
{
#ifdef LTK_USE_MMAP
    if (m && m->slot >= 0)
        return __atomic_load_n(&map_table[m->slot].cut, __ATOMIC_ACQUIRE);
#endif
    return m ? m->len : 0;
}

ltk_file_map *ltk_reader_map_ref(logtk_archive_reader *r)
{
    if (r->map)
        __atomic_add_fetch(&r->map->refs, 1, __ATOMIC_RELAXED);
    return r->map;
}

void ltk_file_map_unref(ltk_file_map *m)
{
    if (!m || __atomic_sub_fetch(&m->refs, 1, __ATOMIC_ACQ_REL) > 0)
        return;
#ifdef LTK_USE_MMAP
    if (m->slot >= 0)
        __atomic_store_n(&map_table[m->slot].base, 0, __ATOMIC_RELEASE);
    munmap((void *)m->base, m->len);
#endif
    free(m);
}

int ltk_file_map_holds(const ltk_file_map *m, const uint8_t *p, size_t len)
{
    return m && p >= m->base && (size_t)(p - m->base) <= m->len && len <= m->len - (size_t)(p - m->base);
}

static void close_source(logtk_archive_reader *r)
{
    ltk_file_map_unref(r->map);
    r->map = NULL;
    if (r->fp && r->own_fp)
        fclose(r->fp);
    r->fp = NULL;
    r->mem = NULL;
    r->mem_len = 0;
    r->buf_pos = r->buf_len = 0;
    r->eof = 0;
    r->at_end = 0;
    r->trailing = 0;
    r->retry = 0;
    r->doubtful_from = 0;
    r->scan_from = 0;
    r->index_state = 0;
    ltk_index_clear(&r->index);
    memset(&r->sizes, 0, sizeof r->sizes);
}

/* Makes at least n bytes available at r->buf + r->buf_pos; returns how many are. */
size_t ltk_reader_fill(logtk_archive_reader *r, size_t n)
{
    if (r->mem) {
        size_t end = r->mem_len;
        if (r->map) {
            /* the file was cut while mapped: it ends at the cut, as read through a pipe */
            size_t valid = map_valid_len(r->map);
            if (valid < end)
                end = valid;
        }
        return end > r->buf_pos ? end - r->buf_pos : 0;
    }
    size_t avail = r->buf_len - r->buf_pos;
    if (avail >= n || r->eof)
        return avail;
    if (r->buf_pos > 0) {
        memmove(r->buf, r->buf + r->buf_pos, avail);
        r->base += r->buf_pos;
        r->buf_len = avail;
        r->buf_pos = 0;
    }
    if (n > r->buf_cap) {
        size_t cap = r->buf_cap ? r->buf_cap : 1 << 16;
        while (cap < n)
            cap *= 2;
        uint8_t *nb = realloc(r->buf, cap);
        if (!nb)
            return avail;
        r->buf = nb;
        r->buf_cap = cap;
    }
    while (r->buf_len < n && !r->eof) {
        size_t got = fread(r->buf + r->buf_len, 1, r->buf_cap - r->buf_len, r->fp);
        if (got == 0) {
            if (ferror(r->fp))
                r->io_error = errno ? errno : EIO;
            r->eof = 1;
        }
        r->buf_len += got;
    }
    return r->buf_len - r->buf_pos;
}

const uint8_t *ltk_reader_ptr(const logtk_archive_reader *r)
{
    return r->mem ? r->mem + r->buf_pos : r->buf + r->buf_pos;
}

static int check_file_header(logtk_archive_reader *r)
{
    if (ltk_reader_fill(r, LTK_FILE_HEADER_LEN) < LTK_FILE_HEADER_LEN ||
        memcmp(ltk_reader_ptr(r), LTK_FILE_MAGIC, 4) != 0)
        return ltk_error_set(&r->err, LOGTK_ERR_ARCHIVE, "%s: not a logtk archive", r->name);
    int version = ltk_reader_ptr(r)[4];
    if (version < LTK_VERSION_MIN || version > LTK_VERSION_MAX)
        return ltk_error_set(&r->err, LOGTK_ERR_ARCHIVE,
                               "%s: archive format version %u, this logtk reads versions %u to %u",
                               r->name, (unsigned)version, LTK_VERSION_MIN, LTK_VERSION_MAX);
    r->version = version;
    r->open_archive = version >= LTK_VERSION_OPEN && (ltk_reader_ptr(r)[5] & LTK_FLAG_OPEN);
    r->header_len = ltk_block_header_len(version);
    r->buf_pos += LTK_FILE_HEADER_LEN;
    return LOGTK_OK;
}

/* A number no other open of any reader in this process got. */
static uint64_t next_serial(void)
{
    static uint64_t counter;
    return __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
}

/* Maps a regular, non-empty file as the memory source; on any failure the file is read through the buffer. */
static void map_file(logtk_archive_reader *r)
{
#ifdef LTK_USE_MMAP
    struct stat st;
    if (fstat(fileno(r->fp), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
        (uint64_t)st.st_size > (uint64_t)SIZE_MAX)
        return;
    ltk_file_map *fm = malloc(sizeof *fm);
    if (!fm)
        return;
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fileno(r->fp), 0);
    if (m == MAP_FAILED) {
        free(fm);
        return;
    }
    fm->base = m;
    fm->len = (size_t)st.st_size;
    fm->refs = 1;
    fm->slot = map_table_add(fm->base, fm->len);
    if (fm->slot < 0) { /* no SIGBUS cover: a file cut meanwhile would kill the program */
        munmap(m, fm->len);
        free(fm);
        return;
    }
    r->map = fm;
    r->mem = m;
    r->mem_len = (size_t)st.st_size;
#else
    (void)r;
#endif
}

static void set_name(logtk_archive_reader *r, const char *name)
{
    snprintf(r->name, sizeof r->name, "%s", name);
}

int logtk_archive_reader_open_path(logtk_archive_reader *r, const char *path)
{
    close_source(r);
    ltk_error_clear(&r->err);
    if (!path || strcmp(path, "-") == 0) {
        r->fp = stdin;
        r->own_fp = 0;
        set_name(r, "-");
    } else {
        r->fp = fopen(path, "rb");
        if (!r->fp)
            return ltk_error_set(&r->err, LOGTK_ERR_IO, "%s: %s", path, strerror(errno));
        r->own_fp = 1;
        set_name(r, path);
        map_file(r);
    }
    r->base = 0;
    r->next_line = 0;
    r->block_no = 0;
    r->serial = next_serial();
    return check_file_header(r);
}

int logtk_archive_reader_open_memory(logtk_archive_reader *r, const void *buf, size_t len,
                                     const char *name)
{
    close_source(r);
    ltk_error_clear(&r->err);
    r->mem = buf ? buf : (const uint8_t *)"";
    r->mem_len = buf ? len : 0;
    r->base = 0;
    r->next_line = 0;
    r->block_no = 0;
    r->serial = next_serial();
    set_name(r, name ? name : "(memory)");
    return check_file_header(r);
}

/*
 * Tries to read a footer at the current position ("LTKI"): it ends at the
 * first "LTKE" whose length and hash hold.  Bytes after it (appended to the
 * archive) are counted in *trailing, so that the index and every block
 * still count and the extra bytes are reported, not taken for damage.
 */
static int try_footer(logtk_archive_reader *r, size_t *len_out, size_t *trailing)
{
    size_t avail = ltk_reader_fill(r, FOOTER_MAX);
    if (avail < 4 + LTK_FOOTER_TRAILER_LEN || avail >= FOOTER_MAX)
        return -1;
    const uint8_t *p = ltk_reader_ptr(r);
    const uint8_t *from = p + 4 + 8, *end = p + avail;
    for (;;) {
        const uint8_t *e = memmem(from, (size_t)(end - from), LTK_END_MAGIC, 4);
        if (!e)
            return -1;
        const uint8_t *t = e - 8;
        size_t body = (size_t)(t - p);
        if (ltk_le_get_u32(t + 4) == body && ltk_le_get_u32(t) == ltk_checksum32(p, body)) {
            ltk_index ix = {0};
            int ok = ltk_index_parse(&ix, p, body);
            if (ok == 0 && r->index_state != 1) {
                ltk_index_free(&r->index);
                r->index = ix;
                r->index_state = 1;
            } else {
                ltk_index_free(&ix);
            }
            *len_out = (size_t)(e + 4 - p);
            *trailing = avail - *len_out;
            return ok;
        }
        from = e + 1;
    }
}

static uint64_t index_total_lines(const logtk_archive_reader *r)
{
    if (r->index_state != 1 || r->index.count == 0)
        return 0;
    const ltk_index_entry *e = &r->index.entries[r->index.count - 1];
    return e->first_line + e->nlines;
}

/* Fills b for a damaged region of lines [first, end) (0-based); end 0 = unknown. */
static int damaged(logtk_archive_reader *r, logtk_archive_block *b, uint64_t first, uint64_t end,
                   const char *why)
{
    memset(b, 0, sizeof *b);
    b->index = r->block_no;
    b->first_line = first + 1;
    b->damaged = 1;
    if (end > first) {
        b->nlines = end - first;
        ltk_error_set(&r->err, LOGTK_ERR_ARCHIVE, "%s: block %llu (lines %llu-%llu) damaged: %s",
                        r->name, (unsigned long long)r->block_no + 1, (unsigned long long)first + 1,
                        (unsigned long long)end, why);
    } else {
        ltk_error_set(&r->err, LOGTK_ERR_ARCHIVE, "%s: lines from %llu on lost: %s", r->name,
                        (unsigned long long)first + 1, why);
    }
    return LOGTK_ERR_ARCHIVE;
}

/*
 * Fills b for the loss of every line from `first` (0-based) to the end of
 * the archive: the range is named whole, up to the last line when the index
 * says how many there are.
 */
static int lost_to_end(logtk_archive_reader *r, logtk_archive_block *b, uint64_t first, const char *why)
{
    uint64_t total = index_total_lines(r);
    memset(b, 0, sizeof *b);
    b->index = r->block_no;
    b->first_line = first + 1;
    b->damaged = 1;
    if (total > first) {
        b->nlines = total - first;
        ltk_error_set(&r->err, LOGTK_ERR_ARCHIVE, "%s: lines %llu-%llu lost: %s", r->name,
                        (unsigned long long)first + 1, (unsigned long long)total, why);
    } else {
        ltk_error_set(&r->err, LOGTK_ERR_ARCHIVE, "%s: lines from %llu on lost: %s", r->name,
                        (unsigned long long)first + 1, why);
    }
    return LOGTK_ERR_ARCHIVE;
}

/* Fills b for bytes passed over that held no line of the archive (damaged = 1, nlines = 0). */
static int skipped(logtk_archive_reader *r, logtk_archive_block *b, uint64_t nbytes, const char *why)
{
    memset(b, 0, sizeof *b);
    b->index = r->block_no;
    b->first_line = r->next_line + 1;
    b->damaged = 1;
    b->stored_bytes = nbytes ? nbytes : 1; /* tells it from a loss to the end */
    ltk_error_set(&r->err, LOGTK_ERR_ARCHIVE, "%s: %llu bytes after line %llu passed over: %s (no lines lost)",
                    r->name, (unsigned long long)nbytes, (unsigned long long)r->next_line, why);
    return LOGTK_ERR_ARCHIVE;
}

/* The file offset of the reader's position. */
static uint64_t position(const logtk_archive_reader *r)
{
    return r->mem ? (uint64_t)r->buf_pos : r->base + r->buf_pos;
}

/*
 * Scans forward for the next valid block header or footer; the bytes skipped
 * and the lines they held are reported as one damaged region.
 */
static int resync(logtk_archive_reader *r, logtk_archive_block *b, const char *why)
{
    uint64_t first = r->next_line, start = position(r);
    r->buf_pos++;
    for (;;) {
        size_t avail = ltk_reader_fill(r, r->header_len);
        if (avail < 4) {
            r->at_end = 1;
            return lost_to_end(r, b, first, why);
        }
        const uint8_t *p = ltk_reader_ptr(r);
        ltk_block_header h;
        if (avail >= r->header_len && memcmp(p, LTK_BLOCK_MAGIC, 4) == 0 &&
            ltk_block_header_read(p, r->version, &h) == 0 && h.first_line >= first) {
            r->next_line = h.first_line;
            if (h.first_line == first) /* a stray or repeated block: nothing lost */
                return skipped(r, b, position(r) - start, why);
            int rc = damaged(r, b, first, h.first_line, why);
            r->block_no++;
            return rc;
        }
        size_t flen, trailing;
        if (memcmp(p, LTK_INDEX_MAGIC, 4) == 0 && try_footer(r, &flen, &trailing) == 0) {
            r->buf_pos += flen;
            r->trailing = trailing;
            r->at_end = 1;
            if (index_total_lines(r) == first)
                return skipped(r, b, position(r) - flen - start, why);
            return damaged(r, b, first, index_total_lines(r), why);
        }
        r->buf_pos++;
    }
}

int ltk_reader_next_raw(logtk_archive_reader *r, logtk_archive_block *b, ltk_raw_block *raw)
{
    if (r->retry) {
        r->retry = 0;
    r->doubtful_from = 0;
        *b = r->retry_b;
        *raw = r->retry_raw;
        return LOGTK_OK;
    }
    if (r->at_end) {
        if (r->trailing) {
            uint64_t n = r->trailing;
            r->trailing = 0;
            return skipped(r, b, n, "data after the index (appended?)");
        }
        return LOGTK_DONE;
    }
    size_t avail = ltk_reader_fill(r, r->header_len);
    if (r->io_error)
        return ltk_error_set(&r->err, LOGTK_ERR_IO, "%s: %s", r->name, strerror(r->io_error));
    if (avail == 0) {
        r->at_end = 1;
        if (r->open_archive) /* still being appended to: its blocks so far are all of it */
            return LOGTK_DONE;
        return lost_to_end(r, b, r->next_line, "archive ends without its index (truncated?)");
    }
    const uint8_t *p = ltk_reader_ptr(r);
    if (avail >= 4 && memcmp(p, LTK_INDEX_MAGIC, 4) == 0) {
        size_t flen, trailing;
        if (try_footer(r, &flen, &trailing) == 0) {
            r->buf_pos += flen;
            r->trailing = trailing;
            r->at_end = 1;
            uint64_t total = index_total_lines(r);
            if (total > r->next_line)
                return damaged(r, b, r->next_line, total, "blocks missing before the index");
            return ltk_reader_next_raw(r, b, raw);
        }
        return resync(r, b, "damaged index");
    }
    ltk_block_header h;
    if (avail < r->header_len || ltk_block_header_read(p, r->version, &h) != 0)
        return resync(r, b, avail < r->header_len ? "truncated block header" : "bad block header");
    uint64_t doubtful_from = r->doubtful_from;
    r->doubtful_from = 0;
    if (h.first_line < r->next_line && doubtful_from && h.first_line + 1 >= doubtful_from) {
        /*
         * The block before claimed more lines than it had: its counts failed
         * their check (content_hash covers them), so this block's word is
         * taken for where the lines go on.
         */
        r->next_line = h.first_line;
    }
    if (h.first_line != r->next_line) {
        /* a region was lost before this block (or the header lies) */
        if (h.first_line > r->next_line) {
            uint64_t first = r->next_line;
            r->next_line = h.first_line;
            return damaged(r, b, first, h.first_line, "blocks missing");
        }
        return resync(r, b, "block out of order");
    }
    uint64_t limit = (uint64_t)h.raw_bytes * 3 + (uint64_t)h.nlines * 32 + 4096;
    if (h.payload_len > limit)
        return resync(r, b, "implausible block size");
    /* the line hashes (version 4) follow the payload */
    size_t hashes_len = h.has_content_hash ? ltk_line_hashes_len(h.nlines) : 0;
    size_t body = (size_t)h.payload_len + hashes_len;
    if (r->scan_from > 0 && h.first_line + h.nlines <= r->scan_from) {
        /* before the wanted line (cat without an index): pass over it unchecked when it is all there */
        if (ltk_reader_fill(r, r->header_len + body) >= r->header_len + body) {
            r->buf_pos += r->header_len + body;
            r->next_line = h.first_line + h.nlines;
            r->block_no++;
            return ltk_reader_next_raw(r, b, raw);
        }
    }
    r->buf_pos += r->header_len;
    avail = ltk_reader_fill(r, body);
    memset(b, 0, sizeof *b);
    b->index = r->block_no;
    b->first_line = h.first_line + 1;
    b->nlines = h.nlines;
    b->raw_bytes = h.raw_bytes;
    b->stored_bytes = (uint64_t)body + r->header_len;
    if (avail < body) {
        char why[96];
        snprintf(why, sizeof why, "archive cut short inside block %llu (truncated?)",
                 (unsigned long long)r->block_no + 1);
        r->buf_pos += avail;
        r->at_end = 1;
        return lost_to_end(r, b, h.first_line, why);
    }
    raw->payload = ltk_reader_ptr(r);
    raw->len = h.payload_len;
    raw->nlines = h.nlines;
    raw->raw_bytes = h.raw_bytes;
    raw->line_hashes = h.has_content_hash ? raw->payload + h.payload_len : NULL;
    r->buf_pos += body;
    r->next_line = h.first_line + h.nlines;
    r->block_no++;
    int counts_fail = raw->line_hashes &&
                      ltk_content_hash(raw->line_hashes, hashes_len, h.nlines, h.raw_bytes) != h.content_hash;
    const char *why = ltk_checksum32(raw->payload, raw->len) != h.payload_hash ? "checksum mismatch"
                      : counts_fail ? "line checksums damaged"
                                    : NULL;
    if (why) {
        if (counts_fail) /* the line hashes or the counts they were made for changed */
            r->doubtful_from = h.first_line + 1;
        r->block_no--;
        int rc = damaged(r, b, h.first_line, h.first_line + h.nlines, why);
        r->block_no++;
        return rc;
    }
    return LOGTK_OK;
}

int logtk_archive_reader_next(logtk_archive_reader *r, logtk_archive_block *b)
{
    ltk_raw_block raw;
    int rc = ltk_reader_next_raw(r, b, &raw);
    if (rc != LOGTK_OK)
        return rc;
    ltk_errbuf derr = {0};
    rc = ltk_decode_block(r->dec, raw.payload, raw.len, raw.nlines, raw.raw_bytes, &r->text,
                           &r->sizes, &derr);
    if (rc == LOGTK_ERR_NOMEM) {
        /* not damage: the block is kept (its payload stays where it is), the next call tries it again */
        r->retry_b = *b;
        r->retry_raw = raw;
        r->retry = 1;
        return ltk_error_set(&r->err, LOGTK_ERR_NOMEM,
                               "%s: out of memory decoding block %llu (lines %llu-%llu)", r->name,
                               (unsigned long long)b->index + 1, (unsigned long long)b->first_line,
                               (unsigned long long)(b->first_line + raw.nlines - 1));
    }
    if (rc == LOGTK_OK)
        rc = ltk_check_content(raw.line_hashes, r->text.data, r->text.len, raw.nlines, &derr);
    if (rc != LOGTK_OK) {
        uint64_t first = b->first_line - 1;
        r->block_no--;
        rc = damaged(r, b, first, first + raw.nlines, ltk_error_text(&derr));
        r->block_no++;
        return rc;
    }
    b->templates = ltk_decoder_template_count(r->dec);
    b->text.ptr = r->text.data ? r->text.data : "";
    b->text.len = r->text.len;
    return LOGTK_OK;
}

/* Goes back to the first block (after the file header) of a seekable source. */
static int rewind_to_first_block(logtk_archive_reader *r)
{
    if (!r->mem && fseeko(r->fp, LTK_FILE_HEADER_LEN, SEEK_SET) != 0)
        return ltk_error_set(&r->err, LOGTK_ERR_IO, "%s: seek failed", r->name);
    r->base = LTK_FILE_HEADER_LEN;
    r->buf_pos = r->mem ? LTK_FILE_HEADER_LEN : 0;
    r->buf_len = 0;
    r->eof = 0;
    r->at_end = 0;
    r->trailing = 0;
    r->retry = 0;
    r->doubtful_from = 0;
    r->next_line = 0;
    r->block_no = 0;
    r->scan_from = 0;
    r->serial = next_serial(); /* a read-ahead of the old position is stale */
    return LOGTK_OK;
}

/* Loads the footer index from the end of a seekable source. */
static int load_index(logtk_archive_reader *r)
{
    if (r->index_state == 1)
        return LOGTK_OK;
    const uint8_t *all = NULL;
    uint64_t size;
    uint8_t *tmp = NULL;
    if (r->mem) {
        size = r->mem_len;
        all = r->mem;
    } else {
        if (fseeko(r->fp, 0, SEEK_END) != 0)
            return ltk_error_set(&r->err, LOGTK_ERR_UNSUPPORTED, "%s: not seekable", r->name);
        off_t end = ftello(r->fp);
        size = end < 0 ? 0 : (uint64_t)end;
    }
    uint8_t trailer[LTK_FOOTER_TRAILER_LEN];
    if (size < LTK_FILE_HEADER_LEN + LTK_FOOTER_TRAILER_LEN)
        return ltk_error_set(&r->err, LOGTK_ERR_ARCHIVE, "%s: no index", r->name);
    if (all) {
        memcpy(trailer, all + size - LTK_FOOTER_TRAILER_LEN, LTK_FOOTER_TRAILER_LEN);
    } else if (fseeko(r->fp, (off_t)(size - LTK_FOOTER_TRAILER_LEN), SEEK_SET) != 0 ||
               fread(trailer, 1, sizeof trailer, r->fp) != sizeof trailer) {
        return ltk_error_set(&r->err, LOGTK_ERR_IO, "%s: cannot read the index", r->name);
    }
    uint32_t body = ltk_le_get_u32(trailer + 4);
    if (memcmp(trailer + 8, LTK_END_MAGIC, 4) != 0 ||
        body > size - LTK_FILE_HEADER_LEN - LTK_FOOTER_TRAILER_LEN || body > FOOTER_MAX)
        return ltk_error_set(&r->err, LOGTK_ERR_ARCHIVE, "%s: index missing or damaged", r->name);
    uint64_t start = size - LTK_FOOTER_TRAILER_LEN - body;
    const uint8_t *p;
    if (all) {
        p = all + start;
    } else {
        tmp = malloc(body ? body : 1);
        if (!tmp)
            return ltk_error_set(&r->err, LOGTK_ERR_NOMEM, "out of memory");
        if (fseeko(r->fp, (off_t)start, SEEK_SET) != 0 || fread(tmp, 1, body, r->fp) != body) {
            free(tmp);
            return ltk_error_set(&r->err, LOGTK_ERR_IO, "%s: cannot read the index", r->name);
        }
        p = tmp;
    }
    int ok = ltk_le_get_u32(trailer) == ltk_checksum32(p, body) && ltk_index_parse(&r->index, p, body) == 0;
    free(tmp);
    if (!ok) {
        ltk_index_clear(&r->index);
        return ltk_error_set(&r->err, LOGTK_ERR_ARCHIVE, "%s: index damaged", r->name);
    }
    r->index_state = 1;
    /* the position is unknown now: go back to the first block */
    return rewind_to_first_block(r);
}

static int seek_by_index(logtk_archive_reader *r, uint64_t line);

/* Nonzero when a block header for 0-based line `first` lies at the reader's position. */
static int block_here(logtk_archive_reader *r, uint64_t first)
{
    ltk_block_header h;
    return ltk_reader_fill(r, r->header_len) >= r->header_len &&
           ltk_block_header_read(ltk_reader_ptr(r), r->version, &h) == 0 && h.first_line == first;
}

int logtk_archive_reader_seek_line(logtk_archive_reader *r, uint64_t line)
{
    if (line == 0)
        line = 1;
    int fresh = r->next_line == 0 && r->block_no == 0 && !r->at_end && !r->retry;
    int rc = load_index(r);
    if (rc == LOGTK_OK) {
        rc = seek_by_index(r, line);
        /* blocks moved (one deleted, two swapped): the index no longer says where they are */
        if (rc == LOGTK_OK && !block_here(r, r->next_line))
            rc = ltk_error_set(&r->err, LOGTK_ERR_ARCHIVE, "%s: the index does not match the blocks", r->name);
        if (rc != LOGTK_ERR_ARCHIVE)
            return rc;
    }
    if (rc == LOGTK_ERR_ARCHIVE || rc == LOGTK_ERR_UNSUPPORTED) {
        /*
         * No usable index (damaged, missing, or data appended after it), or
         * a pipe: read from the first block, passing over the blocks before
         * the line unchecked.  Every block the index listed is still found
         * by its header, as decompress finds it.
         */
        if (r->mem || (r->fp && fseeko(r->fp, 0, SEEK_CUR) == 0))
            rc = rewind_to_first_block(r);
        else if (fresh)
            rc = LOGTK_OK;
        if (rc == LOGTK_OK) {
            ltk_error_clear(&r->err);
            r->scan_from = line - 1;
        }
        return rc;
    }
    return rc;
}

/* Positions the reader at the block the index gives for 1-based `line`. */
static int seek_by_index(logtk_archive_reader *r, uint64_t line)
{
    long i = ltk_index_find_line(&r->index, line - 1);
    if (i < 0)
        return LOGTK_DONE;
    const ltk_index_entry *e = &r->index.entries[i];
    if (r->mem) {
        if (e->offset >= r->mem_len)
            return ltk_error_set(&r->err, LOGTK_ERR_ARCHIVE, "%s: index points past the end", r->name);
        r->buf_pos = (size_t)e->offset;
    } else {
        if (fseeko(r->fp, (off_t)e->offset, SEEK_SET) != 0)
            return ltk_error_set(&r->err, LOGTK_ERR_IO, "%s: seek failed", r->name);
        r->base = e->offset;
        r->buf_pos = r->buf_len = 0;
        r->eof = 0;
    }
    r->at_end = 0;
    r->trailing = 0;
    r->retry = 0;
    r->doubtful_from = 0;
    r->scan_from = 0;
    r->next_line = e->first_line;
    r->block_no = (uint64_t)i;
    r->serial = next_serial();
    return LOGTK_OK;
}

int logtk_archive_reader_totals(logtk_archive_reader *r, uint64_t *lines, uint64_t *blocks,
                                uint64_t *raw_bytes)
{
    int rc = load_index(r);
    if (rc != LOGTK_OK)
        return rc;
    uint64_t rb = 0;
    for (size_t i = 0; i < r->index.count; i++)
        rb += r->index.entries[i].raw_bytes;
    if (lines)
        *lines = index_total_lines(r);
    if (blocks)
        *blocks = r->index.count;
    if (raw_bytes)
        *raw_bytes = rb;
    return LOGTK_OK;
}

int logtk_archive_reader_stream_stats(const logtk_archive_reader *r, int i, const char **name,
                                      uint64_t *raw, uint64_t *stored)
{
    if (i < 0 || i >= LTK_NSTREAMS)
        return LOGTK_DONE;
    *name = ltk_stream_name(i);
    *raw = r->sizes.raw[i];
    *stored = r->sizes.stored[i];
    return LOGTK_OK;
}

const char *logtk_archive_reader_errmsg(const logtk_archive_reader *r)
{
    return r ? ltk_error_text(&r->err) : "out of memory";
}

void logtk_archive_reader_free(logtk_archive_reader *r)
{
    if (!r)
        return;
    close_source(r);
    ltk_index_free(&r->index);
    ltk_decoder_free(r->dec);
    ltk_strbuf_free(&r->text);
    free(r->buf);
    free(r);
}
