/*
 * test_sink_blocks.c - a file sink writes its rows in blocks from a thread
 * of its own (sink.c, sink_writer.c): many blocks arrive complete and in
 * order, and a block the file system refuses makes the sink fail and leaves
 * the old file in place.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "logtk.h"
#include "test_harness.h"

static char tmpdir[256];

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0, k;
    do {
        if (n + 65536 > cap) {
            cap = (n + 65536) * 2;
            buf = realloc(buf, cap);
        }
        k = fread(buf + n, 1, cap - n, f);
        n += k;
    } while (k > 0);
    fclose(f);
    *len = n;
    return buf;
}

/* Row i: a content long enough that 20,000 rows make several blocks. */
static void make_row(logtk_row *row, logtk_record *rec, char *content, size_t i)
{
    memset(rec, 0, sizeof *rec);
    int n = snprintf(content, 256, "row %zu of a file sink's blocks, padded to a couple of hundred "
                                   "bytes so that the rows fill blocks: %0120zu", i, i * 7919);
    rec->content.ptr = content;
    rec->content.len = (size_t)n;
    row->line_id = i + 1;
    row->record = rec;
    row->template_id = 1 + (uint32_t)(i % 7);
    row->template_text.ptr = "row <*> of a file sink's blocks";
    row->template_text.len = strlen(row->template_text.ptr);
    row->nparams = 0;
    row->params = NULL;
}

TEST(rows_of_many_blocks_reach_the_file_whole_and_in_order)
{
    char path[300];
    snprintf(path, sizeof path, "%s/rows.tsv", tmpdir);
    logtk_sink *file = NULL, *memory = NULL;
    CHECK_STATUS(logtk_sink_new(&file, "tsv", path, NULL), LOGTK_OK);
    CHECK_STATUS(logtk_sink_new_memory(&memory, "tsv", NULL), LOGTK_OK);
    char content[256];
    for (size_t i = 0; i < 20000; i++) {
        logtk_row row;
        logtk_record rec;
        make_row(&row, &rec, content, i);
        CHECK_STATUS(logtk_sink_write(file, &row), LOGTK_OK);
        CHECK_STATUS(logtk_sink_write(memory, &row), LOGTK_OK);
    }
    CHECK(access(path, F_OK) != 0); /* nothing in place before close */
    CHECK_STATUS(logtk_sink_close(file), LOGTK_OK);
    logtk_slice want;
    CHECK_STATUS(logtk_sink_memory_take(memory, &want), LOGTK_OK);
    CHECK(want.len > 4 * 262144); /* several blocks */
    size_t len = 0;
    char *got = slurp(path, &len);
    CHECK(got != NULL && len == want.len && memcmp(got, want.ptr, len) == 0);
    free(got);
    logtk_sink_free(file);
    logtk_sink_free(memory);
    unlink(path);
}

TEST(a_block_the_file_system_refuses_fails_the_sink_and_keeps_the_old_file)
{
    char path[300];
    snprintf(path, sizeof path, "%s/kept.tsv", tmpdir);
    FILE *old = fopen(path, "w");
    CHECK(old != NULL);
    fputs("the good old rows\n", old);
    fclose(old);
    /* files may not grow past 1 MiB: write(2) fails with EFBIG */
    struct rlimit was, small = {1 << 20, 1 << 20};
    CHECK(getrlimit(RLIMIT_FSIZE, &was) == 0);
    small.rlim_max = was.rlim_max;
    if (small.rlim_max != RLIM_INFINITY && small.rlim_max < small.rlim_cur)
        small.rlim_cur = small.rlim_max;
    signal(SIGXFSZ, SIG_IGN);
    CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0);
    logtk_sink *s = NULL;
    CHECK_STATUS(logtk_sink_new(&s, "tsv", path, NULL), LOGTK_OK);
    char content[256];
    int failed_at_write = 0;
    for (size_t i = 0; i < 20000 && !failed_at_write; i++) {
        logtk_row row;
        logtk_record rec;
        make_row(&row, &rec, content, i);
        failed_at_write = logtk_sink_write(s, &row) == LOGTK_ERR_IO;
    }
    int rc = logtk_sink_close(s);
    CHECK(setrlimit(RLIMIT_FSIZE, &was) == 0);
    signal(SIGXFSZ, SIG_DFL);
    /* the failed block shows at a later write, long before the 20,000th row */
    CHECK(failed_at_write);
    CHECK(rc != LOGTK_OK);
    CHECK(strstr(logtk_sink_errmsg(s), "kept.tsv") != NULL);
    logtk_sink_free(s);
    size_t len = 0;
    char *kept = slurp(path, &len);
    CHECK(kept != NULL);
    if (kept)
        CHECK_BYTES(kept, len, "the good old rows\n");
    free(kept);
    unlink(path);
}

TEST_SETUP()
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_sink_blocks.XXXXXX");
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    return 0;
}

TEST_TEARDOWN()
{
    rmdir(tmpdir);
}
