/*
 * block_encode.h - text -> block payload (block_encode.c; internal).
 */
#ifndef LTK_BLOCK_ENCODE_H
#define LTK_BLOCK_ENCODE_H

#include <stdint.h>

#include "block_layout.h"
#include "strbuf.h"

typedef struct ltk_encoder ltk_encoder;

/** Creates an encoder (reusable across blocks, one thread at a time); NULL on no memory. */
ltk_encoder *ltk_encoder_new(int level);
void ltk_encoder_free(ltk_encoder *e);

/**
 * Gives the encoder a log format (Loghub notation; NULL: none): each block's
 * header parts are then the tokens the format puts before <Content> (see
 * header_fields.c).  Returns LOGTK_OK, LOGTK_ERR_SYNTAX (bad format) or
 * LOGTK_ERR_NOMEM.
 */
int ltk_encoder_set_format(ltk_encoder *e, const char *spec);

/**
 * Encodes raw text (whole lines; only the last may lack "\n") into a payload,
 * appended to out.  *nlines receives the line count.  Returns LOGTK_OK or
 * LOGTK_ERR_NOMEM.
 */
int ltk_encode_block(ltk_encoder *e, const char *text, size_t len, ltk_strbuf *out,
                      uint32_t *nlines);

#endif
