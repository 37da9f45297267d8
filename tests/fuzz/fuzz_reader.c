/*
 * fuzz_reader.c - the line reader on arbitrary bytes (plain, compressed or
 * archived: the input decides).  Checks the reader's promises on every line:
 * the terminator is "\n" or "\r\n" (or nothing, last line only), no line is
 * longer than the maximum, numbers count up within a member, and for plain text
 * the lines rebuild the input byte for byte.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "logtk.h"

static int may_be_compressed(const uint8_t *d, size_t n)
{
    /* first bytes of the magic numbers the reader knows, and tar's ustar at 257 */
    return (n > 0 && (d[0] == 0x1f || d[0] == 'B' || d[0] == 0xfd || d[0] == 0x28 || d[0] == 'P')) ||
           n >= 262;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    logtk_reader *r;
    if (logtk_reader_new(&r) != LOGTK_OK)
        return 0;
    size_t max_line = size > 0 ? 1 + data[0] % 64 : 8;
    logtk_reader_set_max_line(r, max_line);
    size_t off = 0;
    int plain = !may_be_compressed(data, size);
    if (logtk_reader_open_memory(r, data, size, "fuzz") == LOGTK_OK) {
        logtk_line l;
        uint64_t expect = 1, lines = 0;
        int rc;
        while ((rc = logtk_reader_next(r, &l)) == LOGTK_OK) {
            /* compressed input may expand to millions of lines at linear cost
             * (see fuzz_csv.c); stop it early to keep the fuzzer exploring */
            if (!plain && ++lines > 100000)
                break;
            if (l.number == 1) /* a new archive member starts over */
                expect = 1;
            if (l.len > max_line || l.eol_len > 2 || l.number != expect++)
                abort();
            if (l.eol_len == 2 && memcmp(l.data + l.len, "\r\n", 2) != 0)
                abort();
            if (l.eol_len == 1 && l.data[l.len] != '\n')
                abort();
            if (plain) {
                if (off + l.len + l.eol_len > size ||
                    memcmp(data + off, l.data, l.len + l.eol_len) != 0)
                    abort();
                off += l.len + l.eol_len;
            }
        }
        if (plain && rc == LOGTK_DONE && off != size)
            abort();
        if (rc < 0 && logtk_reader_errmsg(r)[0] == '\0')
            abort();
        (void)logtk_reader_is_binary(r);
        (void)logtk_reader_bytes_read(r);
    }
    logtk_reader_free(r);
    return 0;
}
