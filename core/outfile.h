/*
 * outfile.h - atomic output files (internal).
 *
 * A half-written output must never replace a good file.  ltk_outfile_open()
 * therefore writes to a hidden temporary file created with mkstemp() in the
 * same directory as the target (".NAME.XXXXXX", so the final rename() stays on
 * one file system and is atomic); ltk_outfile_commit() flushes, syncs,
 * closes and renames it into place, and ltk_outfile_abort() closes and
 * removes it.  The final file gets mode 0666 & ~umask, as if created by
 * fopen(path, "w").  A NULL path or "-" means standard output: commit then
 * only flushes (and reports a failed flush), abort does nothing.  An existing
 * target that is not a regular file (/dev/null, a FIFO) cannot be replaced
 * and is written directly; a symlink is followed so the link survives.
 *
 * Typical use:
 *     ltk_outfile out = LTK_OUTFILE_INIT;
 *     if ((rc = ltk_outfile_open(&out, path, &h->err)) != LOGTK_OK) return rc;
 *     fprintf(out.fp, ...);                    or ltk_outfile_write(&out, ...)
 *     rc = ok ? ltk_outfile_commit(&out, &h->err) : (ltk_outfile_abort(&out), rc);
 *
 * Errors are LOGTK_ERR_IO with a message naming the target path and the system
 * error (e.g. "out.csv: No space left on device"), recorded in the errbuf the
 * caller passes (which may be NULL).  One outfile per thread.
 */
#ifndef LTK_OUTFILE_H
#define LTK_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

#include "errmsg.h"

typedef struct ltk_outfile {
    FILE *fp;       /* where to write: the temporary file, or stdout; NULL when not open */
    char *path;     /* the target path (malloc'd), NULL for stdout */
    char *tmp_path; /* the temporary file's path (malloc'd), NULL for stdout or a device */
    int prepared;   /* ltk_outfile_prepare() succeeded: commit only renames */
    char *buffer;   /* fp's stdio buffer (malloc'd) for a temporary file, freed after fclose */
} ltk_outfile;

#define LTK_OUTFILE_INIT {NULL, NULL, NULL, 0, NULL}

/**
 * Opens an output: NULL or "-" is stdout, anything else a temporary file next
 * to `path`.  `o` must be unused (LTK_OUTFILE_INIT, or committed/aborted).
 * Returns LOGTK_OK, LOGTK_ERR_IO (directory missing or not writable: message
 * names path) or LOGTK_ERR_NOMEM.
 */
int ltk_outfile_open(ltk_outfile *o, const char *path, ltk_errbuf *err);

/** Nonzero when the output is standard output. */
int ltk_outfile_is_stdout(const ltk_outfile *o);

/**
 * Writes n bytes (buffered through o->fp).  Returns LOGTK_OK or LOGTK_ERR_IO
 * naming the target path.  Writing through o->fp directly is equally fine:
 * commit checks the stream's error flag.
 */
int ltk_outfile_write(ltk_outfile *o, const void *buf, size_t n, ltk_errbuf *err);

/**
 * Flushes, syncs and closes the temporary file and renames it over the target.
 * For stdout, flushes only.  On any failure (write error seen earlier, disk
 * full, rename failed) the temporary file is removed, the target is left as it
 * was, and LOGTK_ERR_IO is returned naming the target.  Either way `o` is
 * closed afterwards and may be opened again.
 */
int ltk_outfile_commit(ltk_outfile *o, ltk_errbuf *err);

/**
 * The first half of commit: flushes, syncs and closes the temporary file (for
 * stdout or a device: flushes) and checks every step, but renames nothing, so
 * a caller writing several outputs can commit them only when all of them were
 * written.  After it succeeds, commit only renames and abort still removes
 * the temporary file.  On failure the output is aborted (temporary file
 * removed) and LOGTK_ERR_IO names the target.
 */
int ltk_outfile_prepare(ltk_outfile *o, ltk_errbuf *err);

/**
 * Closes and removes the temporary file, leaving the target untouched.
 * Harmless on an unopened, committed or already aborted outfile.
 */
void ltk_outfile_abort(ltk_outfile *o);

#endif
