/*
 * detect_model_probe.c - whether a file is a saved model, from its first
 * bytes, so a program that takes "a model or a log" (detect watch) asks the
 * library that owns the model format instead of knowing its magic.
 */
#include <stdio.h>
#include <string.h>

#include "logtk.h"

int logtk_detector_probe_file(const char *path)
{
    if (path == NULL)
        return 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    char magic[8];
    int yes = fread(magic, 1, sizeof magic, f) == sizeof magic &&
              memcmp(magic, LOGTK_MODEL_MAGIC, sizeof magic) == 0;
    fclose(f);
    return yes;
}
