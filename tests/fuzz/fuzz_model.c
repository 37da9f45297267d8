/*
 * fuzz_model.c - feeds arbitrary bytes to the detector model loader.  A
 * damaged or foreign model must be refused with LOGTK_ERR_STATE, never crash
 * or over-allocate.  Half of the inputs get a valid header and checksum
 * wrapped around them, so the fuzzer also reaches the payload parsers
 * behind the CRC (version 1's envelope, and the saved frame of version 4
 * when bit 1 of the first byte is set); whatever loads must then score a
 * session safely.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "logtk.h"
#include "saved_frame.h"
#include "strbuf.h"

static uint32_t crc32_ieee(const unsigned char *p, size_t n)
{
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return crc ^ 0xFFFFFFFFu;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    logtk_detector *d;
    if (logtk_detector_new(&d, NULL) != LOGTK_OK)
        return 0;
    int rc = logtk_detector_load(d, data, size);
    if (size > 0 && (data[0] & 1)) {
        /* wrap the rest as a payload with a correct envelope */
        size_t plen = size - 1;
        unsigned char *buf = malloc(plen + 20);
        if (buf) {
            memcpy(buf, "LOGTKDET", 8);
            uint32_t v = 1;
            for (int i = 0; i < 4; i++) {
                buf[8 + i] = (unsigned char)(v >> (8 * i));
                buf[12 + i] = (unsigned char)(plen >> (8 * i));
            }
            memcpy(buf + 16, data + 1, plen);
            uint32_t crc = crc32_ieee(buf, plen + 16);
            for (int i = 0; i < 4; i++)
                buf[16 + plen + i] = (unsigned char)(crc >> (8 * i));
            rc = logtk_detector_load(d, buf, plen + 20);
            free(buf);
        }
    }
    if (rc != LOGTK_OK && size > 0 && (data[0] & 2)) {
        /* the same payload in the saved frame of version 4 (core/saved_frame.h) */
        size_t plen = size - 1;
        ltk_strbuf b = LTK_STRBUF_INIT;
        if (ltk_frame_begin(&b, "LOGTKDET", 4) == 0 &&
            ltk_strbuf_append(&b, data + 1, plen) == 0 && ltk_frame_end(&b, 0) == 0)
            rc = logtk_detector_load(d, b.data, b.len);
        ltk_strbuf_free(&b);
    }
    if (rc == LOGTK_OK) {
        logtk_sessions *s;
        if (logtk_sessions_new(&s) == LOGTK_OK) {
            logtk_sessions_append(s, "a", 1, "E1", 2);
            logtk_sessions_append(s, "a", 1, "E2", 2);
            double score;
            uint8_t verdict;
            logtk_detector_score(d, s, NULL, 0, &score, &verdict);
            void *out;
            size_t len;
            if (logtk_detector_save(d, &out, &len) == LOGTK_OK)
                logtk_free(out);
            logtk_sessions_free(s);
        }
    }
    logtk_detector_free(d);
    return 0;
}
