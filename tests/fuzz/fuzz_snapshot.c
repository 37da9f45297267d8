/*
 * fuzz_snapshot.c - random bytes into logtk_parser_load().
 *
 * Each input is loaded three times: as is (exercises the framing and
 * checksum checks), with the magic and checksum of a version 1-3 snapshot
 * patched to be valid, and as the body of a version 4 frame, so the
 * fuzzer reaches the parsing of params, masks, templates and Drain's tree
 * blob.  A snapshot that loads must leave a parser that can feed, extract
 * and save again.  The parser is of the algorithm the snapshot names
 * (logtk_parser_snapshot_algorithm), so every algorithm's blob loader is
 * reached, and the patched snapshot is also merged with itself
 * (logtk_parser_merge), which must succeed or fail cleanly like a load.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hashtab.h"
#include "logtk.h"
#include "saved_frame.h"
#include "strbuf.h"

static void exercise(logtk_parser *p)
{
    static const char *lines[] = {"Received block blk_1 of size 3", "a b", "", "x y z w v u",
                                  "Received block blk_2 of size 4"};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        logtk_event ev;
        logtk_parser_feed(p, lines[i], strlen(lines[i]), &ev);
    }
    for (uint32_t id = 1; id <= logtk_parser_template_count(p) && id < 50; id++) {
        logtk_slice t;
        logtk_event ev;
        logtk_parser_template(p, id, &t, NULL);
        logtk_parser_extract(p, id, lines[0], strlen(lines[0]), &ev);
    }
    void *buf;
    size_t len;
    if (logtk_parser_save(p, &buf, &len) == LOGTK_OK)
        logtk_free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    logtk_parser *p;
    if (logtk_parser_new(&p, "drain") != LOGTK_OK)
        return 0;
    if (logtk_parser_load(p, data, size) == LOGTK_OK)
        exercise(p);
    logtk_parser_free(p);

    /* the same bytes behind a valid magic and checksum */
    size_t len = size + 16;
    uint8_t *fixed = malloc(len);
    if (fixed == NULL)
        return 0;
    memcpy(fixed, "LTKPSNAP", 8);
    memcpy(fixed + 8, data, size);
    uint64_t sum = ltk_hash_bytes(fixed, len - 8);
    for (int i = 0; i < 8; i++)
        fixed[len - 8 + i] = (uint8_t)(sum >> (8 * i));
    const char *algorithm = NULL;
    if (logtk_parser_snapshot_algorithm(fixed, len, &algorithm) != LOGTK_OK)
        algorithm = "drain";
    if (logtk_parser_new(&p, algorithm) == LOGTK_OK) {
        if (logtk_parser_load(p, fixed, len) == LOGTK_OK)
            exercise(p);
        logtk_parser_free(p);
    }
    const void *both[2] = {fixed, fixed};
    const size_t lens[2] = {len, len};
    logtk_parser *merged = NULL;
    if (logtk_parser_merge(&merged, 2, both, lens, NULL) == LOGTK_OK)
        exercise(merged);
    logtk_parser_free(merged);
    free(fixed);

    /* the same bytes as the body of a version 4 snapshot (the saved frame) */
    ltk_strbuf b = LTK_STRBUF_INIT;
    if (ltk_frame_begin(&b, "LTKPSNAP", 4) == 0 && ltk_strbuf_append(&b, data, size) == 0 &&
        ltk_frame_end(&b, 0) == 0) {
        if (logtk_parser_snapshot_algorithm(b.data, b.len, &algorithm) != LOGTK_OK)
            algorithm = "drain";
        if (logtk_parser_new(&p, algorithm) == LOGTK_OK) {
            if (logtk_parser_load(p, b.data, b.len) == LOGTK_OK)
                exercise(p);
            logtk_parser_free(p);
        }
    }
    ltk_strbuf_free(&b);
    return 0;
}
