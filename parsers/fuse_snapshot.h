/*
 * fuse_snapshot.h - the fuse parser's state saved and loaded
 * (fuse_snapshot.c; internal; the parser table is in parser_fuse.c).
 */
#ifndef LTK_FUSE_SNAPSHOT_H
#define LTK_FUSE_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "parser_impl.h"
#include "strbuf.h"

/** Appends the state to out (ltk_parser_algo.save). */
int ltk_fuse_save(logtk_parser *p, void *state, ltk_strbuf *out);
/** Replaces the state by a saved one (ltk_parser_algo.load). */
int ltk_fuse_load(logtk_parser *p, void *state, const uint8_t *data, size_t len);

#endif
