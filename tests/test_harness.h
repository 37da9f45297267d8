/*
 * test_harness.h - minimal unit-test support.
 *
 * CHECK(cond) records a failure with file and line and goes on; each test
 * program ends with TEST_SUMMARY(), which prints "N passed, N failed" and
 * returns the exit status automake expects (0 pass, 1 fail, 77 skip).
 */
#ifndef LOGTK_TEST_HARNESS_H
#define LOGTK_TEST_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_passed_count, test_failed_count;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (cond) {                                                                  \
            test_passed_count++;                                                     \
        } else {                                                                     \
            test_failed_count++;                                                     \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                            \
    } while (0)

/* Compares a (ptr, len) byte range with a C string. */
#define CHECK_BYTES(ptr, len, str)                                                        \
    do {                                                                                  \
        const char *check_s_ = (str);                                                     \
        size_t check_n_ = strlen(check_s_);                                               \
        if ((size_t)(len) == check_n_ && memcmp((ptr), check_s_, check_n_) == 0) {        \
            test_passed_count++;                                                          \
        } else {                                                                          \
            test_failed_count++;                                                          \
            fprintf(stderr, "%s:%d: expected \"%s\", got \"%.*s\"\n", __FILE__, __LINE__, \
                    check_s_, (int)(len), (const char *)(ptr));                           \
        }                                                                                 \
    } while (0)

#define CHECK_STATUS(expr, want)                                                     \
    do {                                                                             \
        int check_rc_ = (expr);                                                      \
        if (check_rc_ == (want)) {                                                   \
            test_passed_count++;                                                     \
        } else {                                                                     \
            test_failed_count++;                                                     \
            fprintf(stderr, "%s:%d: %s returned %d, expected %d\n", __FILE__, __LINE__, \
                    #expr, check_rc_, (want));                                       \
        }                                                                            \
    } while (0)

#define TEST_SUMMARY()                                                             \
    (printf("%d passed, %d failed\n", test_passed_count, test_failed_count),       \
     test_failed_count ? 1 : (test_passed_count ? 0 : 77))

/* Path of a test data file: $LOGTK_SRCDIR/tests/data/NAME (srcdir "." by default). */
static inline const char *test_data_path(const char *name)
{
    static char buf[4096];
    const char *src = getenv("LOGTK_SRCDIR");
    snprintf(buf, sizeof buf, "%s/tests/data/%s", src ? src : ".", name);
    return buf;
}

#endif
