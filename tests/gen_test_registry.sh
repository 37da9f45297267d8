#!/bin/sh
# gen_test_registry.sh SOURCE - writes on stdout the registry of the test file
# SOURCE (tests/test_NAME.c): a C file that includes SOURCE, lists every
# TEST(name) it defines, in the order written, and runs them from main()
# (see test_run() in tests/test_harness.h).  make runs it for each test file
# written with TEST(), so that no list of tests is kept by hand; it fails,
# naming the line, on a main() or a "static void test_NAME(void)" in SOURCE
# (a test that would never run).
set -e
src=$1
base=${src##*/}
awk -v base="$base" '
    /^TEST\([A-Za-z_][A-Za-z0-9_]*\)/ {
        name = $0
        sub(/^TEST\(/, "", name)
        sub(/\).*/, "", name)
        if (name in seen) {
            printf "%s:%d: test %s defined twice\n", FILENAME, FNR, name > "/dev/stderr"
            failed = 1
            exit 1
        }
        seen[name] = 1
        tests[n++] = name
    }
    # a test written the old way would compile and never run
    /^static void test_[A-Za-z0-9_]*\(void\)/ {
        printf "%s:%d: write this test as TEST(name) so that the registry runs it\n", FILENAME, FNR > "/dev/stderr"
        failed = 1
        exit 1
    }
    /^TEST_SETUP\(\)/ { setup = 1 }
    /^TEST_TEARDOWN\(\)/ { teardown = 1 }
    /^int main\(/ {
        printf "%s:%d: a file written with TEST() gets its main() from the registry\n", FILENAME, FNR > "/dev/stderr"
        failed = 1
        exit 1
    }
    END {
        if (failed)
            exit 1
        if (n == 0) {
            printf "%s: no TEST(name) found\n", FILENAME > "/dev/stderr"
            exit 1
        }
        printf "/* Generated from %s by tests/gen_test_registry.sh: do not edit. */\n", base
        printf "#include \"%s\"\n\n", base
        printf "static const test_entry registered_tests[] = {\n"
        for (i = 0; i < n; i++)
            printf "    {\"%s\", %s},\n", tests[i], tests[i]
        printf "};\n\n"
        printf "int main(int argc, char **argv)\n{\n"
        printf "    return test_run(registered_tests, sizeof registered_tests / sizeof registered_tests[0], argc, argv,\n"
        printf "                    %s, %s);\n}\n", setup ? "test_setup" : "NULL", teardown ? "test_teardown" : "NULL"
    }
' "$src"
