/*
 * output.c - the public face of core/outfile.c (logtk_output_*), so that
 * programs using only logtk.h (the logtk CLI, log shippers) write their own
 * files with the same guarantee as the library's sinks: a temporary file next
 * to the target, renamed into place only when everything was written; devices
 * and FIFOs written directly; symlinks followed.
 */
#include "config.h"

#include <stdlib.h>

#include "errmsg.h"
#include "logtk.h"
#include "outfile.h"

struct logtk_output {
    ltk_outfile file;
    ltk_errbuf err;
};

int logtk_output_open(logtk_output **out, const char *path)
{
    logtk_output *o = calloc(1, sizeof *o);
    *out = o;
    if (o == NULL)
        return LOGTK_ERR_NOMEM;
    o->file = (ltk_outfile)LTK_OUTFILE_INIT;
    return ltk_outfile_open(&o->file, path, &o->err);
}

FILE *logtk_output_stream(logtk_output *o)
{
    return o ? o->file.fp : NULL;
}

int logtk_output_commit(logtk_output *o)
{
    if (o == NULL)
        return LOGTK_ERR_INVALID;
    if (o->file.fp == NULL && !o->file.prepared)
        return o->err.code < 0 ? o->err.code
                               : ltk_error_set(&o->err, LOGTK_ERR_INVALID, "output not open");
    return ltk_outfile_commit(&o->file, &o->err);
}

int logtk_output_prepare(logtk_output *o)
{
    if (o == NULL)
        return LOGTK_ERR_INVALID;
    if (o->file.fp == NULL && !o->file.prepared)
        return o->err.code < 0 ? o->err.code
                               : ltk_error_set(&o->err, LOGTK_ERR_INVALID, "output not open");
    return ltk_outfile_prepare(&o->file, &o->err);
}

const char *logtk_output_errmsg(const logtk_output *o)
{
    return o ? ltk_error_text(&o->err) : "out of memory";
}

void logtk_output_free(logtk_output *o)
{
    if (o == NULL)
        return;
    ltk_outfile_abort(&o->file);
    free(o);
}
