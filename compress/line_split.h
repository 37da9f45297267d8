/*
 * line_split.h - one line -> template and variables (line_split.c; internal).
 */
#ifndef LOGTK_LINE_SPLIT_H
#define LOGTK_LINE_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "block_layout.h"
#include "strbuf.h"

/* One variable of a line. */
typedef struct ltka_var {
    uint8_t kind;     /* an LTKA_M_* variable marker */
    uint8_t pad;      /* numbers: leading zeros beyond the value's own digits (SNUM: << 1 | sign) */
    uint32_t str_off; /* strings: offset in the line */
    uint32_t str_len;
    uint64_t value;   /* numbers: value (SNUM: its magnitude; IP: the 32-bit address) */
} ltka_var;

/**
 * Splits one line (no terminator) into a template, appended to tmpl, and
 * variables, appended to vars (grown as needed; *nvars updated, *cap its
 * capacity).  Returns 0 or -1 (out of memory).
 */
int ltka_split_line(const char *line, size_t len, logtk_strbuf *tmpl, ltka_var **vars,
                    size_t *nvars, size_t *cap);

/** Nonzero when byte c can occur in a variable of the given kind (for search pruning). */
int ltka_var_may_contain(int kind, unsigned char c);

#endif
