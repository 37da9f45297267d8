/*
 * archive_unpacker.h - the unpacker's test hook (archive_unpacker.c; internal); its API is
 * ltk_archive_unpack* in logtk.h.
 */
#ifndef LTK_ARCHIVE_UNPACKER_H
#define LTK_ARCHIVE_UNPACKER_H


/* Tests: this many decodes on the unpacker's worker threads fail as out of
 * memory (the caller's own decodes, the fallback, are not counted). */
extern int ltk_test_worker_nomem;

#endif
