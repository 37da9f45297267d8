/*
 * sink_writer.h - a thread that writes a file sink's full blocks (internal).
 *
 * The row formatting and the write(2) that copies a block into the page
 * cache are independent work: with a second core the copy (about a fifth of
 * `logtk parse -o out.tsv`'s time) overlaps the parsing of the next block.
 * One block is in flight at a time; handing over the next waits for it, so
 * memory stays at two blocks and rows reach the file in order.
 */
#ifndef LTK_SINK_WRITER_H
#define LTK_SINK_WRITER_H

#include <stdio.h>

#include "strbuf.h"

typedef struct ltk_sink_writer ltk_sink_writer;

/**
 * Starts a thread that writes handed-over blocks to fp's descriptor (after
 * flushing fp); the caller must not touch fp until ltk_sink_writer_stop().  The thread takes
 * no signals.  Returns NULL when no thread could be started (write in the
 * caller then).
 */
ltk_sink_writer *ltk_sink_writer_start(FILE *fp);

/**
 * Waits until the block in flight is written, then hands over *block's bytes
 * and gives *block an empty buffer (the one written last, so that no block
 * is allocated after the first two).  Returns 0, or the errno of a failed
 * write (then *block is left as it was and nothing more is written).
 */
int ltk_sink_writer_put(ltk_sink_writer *w, ltk_strbuf *block);

/**
 * Waits until the block in flight is written, ends the thread and frees w.
 * Returns 0, or the errno of the first failed write.  NULL is harmless.
 */
int ltk_sink_writer_stop(ltk_sink_writer *w);

#endif
