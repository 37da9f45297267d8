/*
 * line_split.h - one line -> template and variables (line_split.c; internal).
 */
#ifndef LTK_LINE_SPLIT_H
#define LTK_LINE_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "block_layout.h"
#include "strbuf.h"

/* One variable of a line. */
typedef struct ltk_var {
    uint8_t kind;     /* an LTK_M_* variable marker */
    uint8_t pad;      /* numbers: leading zeros beyond the value's own digits (SNUM: << 1 | sign) */
    uint32_t str_off; /* strings: offset in the line */
    uint32_t str_len;
    uint64_t value;   /* numbers: value (SNUM: its magnitude; IP: the 32-bit address) */
} ltk_var;

/**
 * Splits one line (no terminator) into a template, appended to tmpl, and
 * variables, appended to vars (grown as needed; *nvars updated, *cap its
 * capacity).  Returns 0 or -1 (out of memory).
 */
int ltk_split_line(const char *line, size_t len, ltk_strbuf *tmpl, ltk_var **vars,
                    size_t *nvars, size_t *cap);

/** Nonzero when byte c can occur in a variable of the given kind (for search pruning). */
int ltk_var_may_contain(int kind, unsigned char c);

#endif
