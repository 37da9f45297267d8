/*
 * test_harness.h - minimal unit-test support.
 *
 * CHECK(cond) records a failure with file and line and goes on; each test
 * program ends with TEST_SUMMARY(), which prints "N passed, N failed" and
 * returns the exit status automake expects (0 pass, 1 fail, 77 skip).  A
 * file whose tests are written with TEST(name) gets its main() from the
 * registry generated from it (see test_run() below).
 */
#ifndef LTK_TEST_HARNESS_H
#define LTK_TEST_HARNESS_H

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

/*
 * The test registry.  A test file writes each test as
 *
 *     TEST(test_name) { ... }
 *
 * and has no main(): tests/gen_test_registry.sh reads the file and writes
 * NAME_registry.c, which includes it and lists its tests in the order they
 * are written, so that a test cannot be written and never run.  The main()
 * it generates runs them all, or the ones named on its command line
 * (--list prints the names), then prints the summary.  TEST_SETUP() { ... }
 * (returns 0 when ready) runs before the tests and TEST_TEARDOWN() { ... }
 * after them, when a file needs a temporary folder or shared fixture.
 */
#define TEST(name) static void name(void)
#define TEST_SETUP() static int test_setup(void)
#define TEST_TEARDOWN() static void test_teardown(void)

typedef struct test_entry {
    const char *name;
    void (*run)(void);
} test_entry;

static inline int test_run(const test_entry *tests, size_t n, int argc, char **argv,
                           int (*setup)(void), void (*teardown)(void))
{
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < n; i++)
            puts(tests[i].name);
        return 0;
    }
    /* every name asked for must exist: a typo must not pass as "0 failed" */
    for (int a = 1; a < argc; a++) {
        size_t i = 0;
        while (i < n && strcmp(tests[i].name, argv[a]) != 0)
            i++;
        if (i == n) {
            fprintf(stderr, "%s: no test %s (--list names them)\n", argv[0], argv[a]);
            return 99;
        }
    }
    if (setup && setup() != 0)
        return 99;
    for (size_t i = 0; i < n; i++) {
        int run = argc < 2;
        for (int a = 1; a < argc && !run; a++)
            run = strcmp(tests[i].name, argv[a]) == 0;
        if (run)
            tests[i].run();
    }
    if (teardown)
        teardown();
    return TEST_SUMMARY();
}

/* Path of a test data file: $LOGTK_SRCDIR/tests/data/NAME (srcdir "." by default). */
static inline const char *test_data_path(const char *name)
{
    static char buf[4096];
    const char *src = getenv("LOGTK_SRCDIR");
    snprintf(buf, sizeof buf, "%s/tests/data/%s", src ? src : ".", name);
    return buf;
}

/* A write callback that counts the newlines it is given in *(size_t *)user (lines written). */
static inline int test_count_newlines(void *user, const void *data, size_t len)
{
    size_t *n = user;
    const char *s = data;
    for (size_t i = 0; i < len; i++)
        *n += s[i] == '\n';
    return 0;
}

#endif
