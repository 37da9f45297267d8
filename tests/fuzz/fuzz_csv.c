/*
 * fuzz_csv.c - the CSV reader on arbitrary bytes.  Every record's slices must
 * lie in memory the reader owns (AddressSanitizer checks the reads), record
 * line numbers never go backwards (except in an archive or compressed input,
 * where every member counts from line 1), and every error carries a message.
 */
#include <stdint.h>
#include <stdlib.h>

#include "logtk.h"

/* A few hundred compressed bytes can expand to millions of empty records (a
 * zstd frame of newlines: 546 bytes gave 6.2 million lines and 220 ms a run,
 * which took the campaign from thousands of runs a second to 46).  The cost is
 * linear in the output, not a defect; stopping a compressed input after this
 * many records keeps the fuzzer exploring. */
#define FUZZ_MAX_DECOMPRESSED_RECORDS 100000

/* first bytes of the magic numbers the reader knows, and tar's ustar at 257 */
static int may_be_compressed(const uint8_t *d, size_t n)
{
    return (n > 0 && (d[0] == 0x1f || d[0] == 'B' || d[0] == 0xfd || d[0] == 0x28 || d[0] == 'P')) ||
           n >= 262;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int members = may_be_compressed(data, size);
    logtk_csv *c;
    if (logtk_csv_new(&c) != LOGTK_OK)
        return 0;
    if (logtk_csv_open_memory(c, data, size, "fuzz.csv") == LOGTK_OK) {
        const logtk_slice *fields;
        size_t n;
        int rc;
        uint64_t last = 0, records = 0;
        unsigned sum = 0;
        while ((rc = logtk_csv_next(c, &fields, &n)) == LOGTK_OK) {
            if (members && ++records > FUZZ_MAX_DECOMPRESSED_RECORDS)
                break;
            if (n == 0 || logtk_csv_line(c) == 0 || (!members && logtk_csv_line(c) <= last))
                abort();
            last = logtk_csv_line(c);
            for (size_t i = 0; i < n; i++)
                for (size_t k = 0; k < fields[i].len; k++)
                    sum += (unsigned char)fields[i].ptr[k];
        }
        if (rc < 0 && logtk_csv_errmsg(c)[0] == '\0')
            abort();
        (void)sum;
    }
    logtk_csv_free(c);
    return 0;
}
