/*
 * archive_writer_impl.h - the archive writer's test hook (internal).
 */
#ifndef LTK_ARCHIVE_WRITER_IMPL_H
#define LTK_ARCHIVE_WRITER_IMPL_H

#include <stdint.h>

#include "logtk.h"

/**
 * For tests: the encoder of block `block` (0-based, counted from open)
 * fails with status rc instead of encoding, as if it ran out of memory in
 * a worker thread; rc LOGTK_OK turns the hook off.  Lets tests check that a
 * worker's failure surfaces with the block's line range and that the output
 * is not committed.
 */
void ltk_writer_fail_block(logtk_archive_writer *w, uint64_t block, int rc);

#endif
