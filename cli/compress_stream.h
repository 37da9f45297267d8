/*
 * compress_stream.h - the input loop of `logtk compress` (compress_stream.c).
 */
#ifndef LTK_COMPRESS_STREAM_H
#define LTK_COMPRESS_STREAM_H

#include "logtk.h"

typedef struct compress_stream_opts {
    const char *out;       /* -o: path, or NULL / "-" for stdout */
    int append;            /* --append: open_append, each block committed to the file */
    double flush_interval; /* --flush-interval: seconds a block may wait; 0: until full */
    int confirm;           /* --confirm: omprog confirmations on stdout */
    int quiet;
} compress_stream_opts;

/**
 * Opens w as o says, feeds it paths (npaths 0: stdin) and closes it.
 * Returns EXIT_OK (also after SIGTERM/SIGINT) or EXIT_DATA after printing
 * the error; the caller frees w.
 */
int compress_stream_run(logtk_archive_writer *w, const compress_stream_opts *o, char **paths,
                        int npaths);

#endif
