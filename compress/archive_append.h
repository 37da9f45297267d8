/*
 * archive_append.h - finding where an archive's blocks end, to append to it
 * (internal; see archive_append.c).
 */
#ifndef LTK_ARCHIVE_APPEND_H
#define LTK_ARCHIVE_APPEND_H

#include <stdint.h>

#include "archive_index.h"
#include "errmsg.h"

/* What ltk_append_scan() found. */
typedef struct ltk_append_state {
    int empty;         /* the file is empty: write a file header first */
    uint64_t end;      /* offset just after the last whole block: the next block goes here */
    uint64_t cut;      /* bytes after `end` to cut (a footer, or a torn tail) */
    uint64_t lines;    /* lines in the whole blocks */
    ltk_index index;  /* the whole blocks (the caller frees it) */
} ltk_append_state;

/**
 * Looks at the archive open on fd (read only; nothing is changed) and says
 * where appending starts.  Returns LOGTK_OK; LOGTK_ERR_ARCHIVE when the file
 * is not an archive, is of another version, or is damaged elsewhere than in a
 * torn end of an open archive (the message, naming `name`, says which and
 * that the file was left as it is); LOGTK_ERR_IO; LOGTK_ERR_NOMEM.
 */
int ltk_append_scan(int fd, const char *name, ltk_append_state *st, ltk_errbuf *err);

#endif
