/*
 * fuzz_windows.c - feeds arbitrary lines to the session, time and count
 * windowers and arbitrary text to the timestamp reader.  Nothing may crash,
 * leak or loop; every event given must come back in some window exactly as
 * often as the window kinds promise (checked for count windows with step =
 * size: each line once).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "logtk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const formats[] = {"%s", "%Y-%m-%d %H:%M:%S.%f", "%y%m%d %H%M%S",
                                          "%b %d %H:%M:%S"};
    double t;
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        logtk_parse_time(formats[i], (const char *)data, size, &t);
    if (size < 2)
        return 0;
    static const char *const kinds[] = {"session", "time", "count"};
    const char *kind = kinds[data[0] % 3];
    logtk_windows *w;
    if (logtk_windows_new(&w, kind) != LOGTK_OK)
        return 0;
    logtk_windows_set_option(w, "size", (data[1] & 1) ? "3" : "2");
    logtk_windows_set_option(w, "step", (data[1] & 2) ? "1" : ((data[1] & 4) ? "5" : "2"));
    logtk_windows_set_option(w, "idle", (data[1] & 8) ? "2" : "0");
    logtk_windows_set_option(w, "id_regex", "id\\d");
    logtk_windows_set_option(w, "time_format", "%s");
    logtk_windows_set_option(w, "time_fields", "T");
    const char *cols[] = {"T"};
    logtk_windows_set_columns(w, cols, 1);
    const char *p = (const char *)data + 2, *end = (const char *)data + size;
    uint64_t line = 0, events_out = 0;
    int count_once = strcmp(kind, "count") == 0 && !(data[1] & 7);
    logtk_window win;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        logtk_slice field = {p, len < 6 ? len : 6};
        logtk_windows_add(w, p, len, &field, 1, ++line, (uint32_t)(len % 7), (int)(len % 3) - 1);
        while (logtk_windows_next(w, &win) == LOGTK_OK)
            events_out += win.nevents;
        p += len + 1;
    }
    logtk_windows_finish(w);
    while (logtk_windows_next(w, &win) == LOGTK_OK)
        events_out += win.nevents;
    if (count_once && events_out != line)
        abort();
    logtk_windows_free(w);
    return 0;
}
