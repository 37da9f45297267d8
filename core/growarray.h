/*
 * growarray.h - growing a malloc'd array by doubling (internal).
 *
 * Parsers and detectors keep scratch arrays that are reused for every line;
 * this is the one place that grows them, so the doubling rule and the
 * overflow check are written once.
 */
#ifndef LTK_GROWARRAY_H
#define LTK_GROWARRAY_H

#include <stdint.h>
#include <stdlib.h>

/**
 * Makes *arr hold at least `need` elements of `elem` bytes, doubling *cap
 * (from 16) until it fits.  Returns 0, or -1 when out of memory or when the
 * size would overflow (the array is then unchanged).
 */
static inline int ltk_array_reserve(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 16;
    while (n < need) {
        if (n > SIZE_MAX / 2)
            return -1;
        n *= 2;
    }
    if (elem && n > SIZE_MAX / elem)
        return -1;
    void *q = realloc(*arr, n * elem);
    if (q == NULL)
        return -1;
    *arr = q;
    *cap = n;
    return 0;
}

#endif
