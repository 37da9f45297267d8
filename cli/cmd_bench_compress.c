/*
 * cmd_bench_compress.c - `logtk bench compress`: ratio and speed on Loghub
 * (or on the user's own logs, --input).
 *
 * For each of the 16 Loghub-2k logs (DIR/<D>/original/<D>_2k.log, the raw
 * files with their CRLF line ends) and for all 16 concatenated, the file is
 * compressed into memory and decompressed again through the public archive
 * API, the round trip is compared byte for byte, and `xz -9e` and
 * `zstd -19` are run on the same file in the same run for reference (a
 * column is left out when its tool is not installed).  The files are small
 * (about 300 KB), so each timing repeats the work until it has run for at
 * least --min-time seconds and reports bytes of text per second; speeds on
 * files this small are indicative only (use a multi-million-line file for
 * speed claims).  Ratio = original bytes / compressed bytes; the `ratio`
 * column includes the archive's header, block headers and index.
 *
 * Exit status: 0 all round trips exact, 1 a round trip failed or a file is
 * unreadable, 2 usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define SUB "bench compress"

static const char *const datasets[16] = {"HDFS",      "Hadoop",      "Spark",   "Zookeeper",
                                         "BGL",       "HPC",         "Thunderbird", "Windows",
                                         "Linux",     "Android",     "HealthApp", "Apache",
                                         "Proxifier", "OpenSSH",     "OpenStack", "Mac"};

typedef struct buf {
    char *data;
    size_t len, cap;
} buf;

static int buf_write(void *user, const void *data, size_t len)
{
    buf *b = user;
    if (b->len + len > b->cap) {
        size_t cap = b->cap ? b->cap : 1 << 16;
        while (cap < b->len + len)
            cap *= 2;
        char *p = realloc(b->data, cap);
        if (!p)
            return -1;
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
    return 0;
}

static int read_all(const char *path, buf *b)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    char tmp[65536];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
        if (buf_write(b, tmp, n) != 0) {
            fclose(f);
            return -1;
        }
    int err = ferror(f);
    fclose(f);
    return err ? -1 : 0;
}

static int tool_present(const char *tool)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", tool);
    return system(cmd) == 0;
}

/*
 * Bytes of `TOOL ARGS < path`, or 0 on failure.  The path reaches the shell
 * through the environment, so no name (quotes, blanks, '$') can change the
 * command.
 */
static uint64_t tool_bytes(const char *tool_args, const char *path)
{
    char cmd[512];
    if (setenv("LOGTK_BENCH_FILE", path, 1) != 0)
        return 0;
    snprintf(cmd, sizeof cmd, "%s < \"$LOGTK_BENCH_FILE\" | wc -c", tool_args);
    FILE *p = popen(cmd, "r");
    if (!p)
        return 0;
    unsigned long long n = 0;
    if (fscanf(p, "%llu", &n) != 1)
        n = 0;
    pclose(p);
    return n;
}

static int compress_once(const buf *in, const char *level, const char *threads, const char *format,
                         buf *out)
{
    logtk_archive_writer *w = NULL;
    out->len = 0;
    int rc = logtk_archive_writer_new(&w);
    if (rc == LOGTK_OK)
        rc = logtk_archive_writer_set_option(w, "level", level);
    if (rc == LOGTK_OK)
        rc = logtk_archive_writer_set_option(w, "threads", threads);
    if (rc == LOGTK_OK && format)
        rc = logtk_archive_writer_set_option(w, "format", format);
    if (rc == LOGTK_OK)
        rc = logtk_archive_writer_open_callback(w, buf_write, out);
    if (rc == LOGTK_OK)
        rc = logtk_archive_writer_write(w, in->data, in->len);
    if (rc == LOGTK_OK)
        rc = logtk_archive_writer_close(w);
    if (rc != LOGTK_OK)
        cli_error(SUB, "%s", logtk_archive_writer_errmsg(w));
    logtk_archive_writer_free(w);
    return rc;
}

static int decompress_once(const buf *arc, buf *out)
{
    logtk_archive_reader *r = NULL;
    out->len = 0;
    int rc = logtk_archive_reader_new(&r);
    if (rc == LOGTK_OK)
        rc = logtk_archive_reader_open_memory(r, arc->data, arc->len, "archive");
    logtk_archive_block b;
    while (rc == LOGTK_OK) {
        rc = logtk_archive_reader_next(r, &b);
        if (rc == LOGTK_OK && buf_write(out, b.text.ptr, b.text.len) != 0)
            rc = LOGTK_ERR_NOMEM;
    }
    if (rc == LOGTK_DONE)
        rc = LOGTK_OK;
    if (rc != LOGTK_OK)
        cli_error(SUB, "%s", r ? logtk_archive_reader_errmsg(r) : "out of memory");
    logtk_archive_reader_free(r);
    return rc;
}

typedef struct row_result {
    double ratio;
    double xz, zstd;
    int ok;
} row_result;

/* What every row is measured with. */
typedef struct bench_settings {
    const char *level, *threads;
    double min_time;
    int have_xz, have_zstd; /* the tools installed (their columns) */
} bench_settings;

static int bench_one(const char *name, const char *path, const buf *in, const char *format,
                     const bench_settings *set, row_result *res)
{
    buf arc = {0}, back = {0};
    double t0 = cli_now();
    int reps = 0;
    int rc = LOGTK_OK;
    do {
        rc = compress_once(in, set->level, set->threads, format, &arc);
        reps++;
    } while (rc == LOGTK_OK && cli_now() - t0 < set->min_time);
    double ct = (cli_now() - t0) / reps;
    double dt = 0;
    int ok = 0;
    if (rc == LOGTK_OK) {
        t0 = cli_now();
        reps = 0;
        do {
            rc = decompress_once(&arc, &back);
            reps++;
        } while (rc == LOGTK_OK && cli_now() - t0 < set->min_time);
        dt = (cli_now() - t0) / reps;
        ok = rc == LOGTK_OK && back.len == in->len && memcmp(back.data, in->data, in->len) == 0;
    }
    res->ok = ok;
    res->ratio = arc.len ? (double)in->len / (double)arc.len : 0;
    printf("%s\t%zu\t%zu\t%.2f", name, in->len, arc.len, res->ratio);
    if (set->have_xz) {
        uint64_t n = tool_bytes("xz -9e -c", path);
        res->xz = n ? (double)in->len / (double)n : 0;
        printf("\t%.2f", res->xz);
    }
    if (set->have_zstd) {
        uint64_t n = tool_bytes("zstd -19 -c -q", path);
        res->zstd = n ? (double)in->len / (double)n : 0;
        printf("\t%.2f", res->zstd);
    }
    printf("\t%.1f\t%.1f\t%s\n", ct > 0 ? in->len / ct / 1e6 : 0, dt > 0 ? in->len / dt / 1e6 : 0,
           ok ? "ok" : "FAILED");
    fflush(stdout);
    free(arc.data);
    free(back.data);
    return ok ? 0 : -1;
}

/* Sums of the logs of the rows' ratios, for the geometric mean row. */
typedef struct geomean {
    double logtk, xz, zstd;
    int n;
} geomean;

static void geomean_add(geomean *g, const row_result *res)
{
    if (res->ratio > 0) {
        g->logtk += log(res->ratio);
        g->xz += res->xz > 0 ? log(res->xz) : 0;
        g->zstd += res->zstd > 0 ? log(res->zstd) : 0;
        g->n++;
    }
}

/* The row `label` of the geometric means (nothing without a row). */
static void geomean_print(const char *label, const geomean *g, int have_xz, int have_zstd, int status)
{
    if (g->n == 0)
        return;
    printf("%s\t-\t-\t%.2f", label, exp(g->logtk / g->n));
    if (have_xz)
        printf("\t%.2f", exp(g->xz / g->n));
    if (have_zstd)
        printf("\t%.2f", exp(g->zstd / g->n));
    printf("\t-\t-\t%s\n", status == EXIT_OK ? "ok" : "FAILED");
}

/*
 * Reads path and measures it as row `name` (counted in g; its bytes appended
 * to all when all is non-NULL).  Returns 0, or -1 when the file cannot be read
 * (said on stderr) or its round trip failed.
 */
static int bench_file(const char *name, const char *path, const char *format,
                      const bench_settings *set, geomean *g, buf *all)
{
    buf in = {0};
    if (read_all(path, &in) != 0) {
        cli_error(SUB, "%s: %s", path, strerror(errno));
        free(in.data);
        return -1;
    }
    row_result res = {0};
    int rc = bench_one(name, path, &in, format, set, &res);
    geomean_add(g, &res);
    if (all)
        buf_write(all, in.data, in.len);
    free(in.data);
    return rc;
}

int cmd_bench_compress(int argc, char **argv)
{
    static const struct option long_options[] = {{"loghub", required_argument, NULL, 'L'},
                                                 {"input", required_argument, NULL, 'i'},
                                                 {"level", required_argument, NULL, 'l'},
                                                 {"threads", required_argument, NULL, 'T'},
                                                 {"min-time", required_argument, NULL, 'm'},
                                                 {"preset", no_argument, NULL, 'P'},
                                                 {"help", no_argument, NULL, 'h'},
                                                 {NULL, 0, NULL, 0}};
    const char *dir = NULL;
    bench_settings set = {.level = "19", .threads = "1", .min_time = 0.2};
    int c, preset = 0, status = EXIT_OK;
    /* --input FILE...: the user's own logs instead of the Loghub-2k ones (at most argc) */
    const char **inputs = calloc((size_t)argc + 1, sizeof *inputs);
    size_t ninputs = 0;
    if (!inputs) {
        cli_error(SUB, "out of memory");
        return EXIT_DATA;
    }
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":l:T:h", long_options, NULL)) != -1) {
        switch (c) {
        case 'L': dir = optarg; break;
        case 'i': inputs[ninputs++] = optarg; break;
        case 'l': set.level = optarg; break;
        case 'T': set.threads = optarg; break;
        case 'm': {
            char *end;
            errno = 0;
            set.min_time = strtod(optarg, &end);
            if (end == optarg || *end || errno || !(set.min_time >= 0 && set.min_time <= 3600)) {
                status = cli_usage_error(SUB, "--min-time wants seconds from 0 to 3600, not '%s'",
                                         optarg);
                goto done;
            }
            break;
        }
        case 'P': preset = 1; break;
        case 'h':
            printf("usage: logtk bench compress --loghub DIR [-l LEVEL] [-T THREADS] [--min-time S]\n"
                   "                            [--preset]\n"
                   "       logtk bench compress --input FILE [--input FILE...] [-l LEVEL] [-T THREADS]\n"
                   "                            [--min-time S]\n\n"
                   "Compress and decompress each Loghub-2k log (DIR/<D>/original/<D>_2k.log) and\n"
                   "all 16 concatenated, or each FILE (a row named by its file name); check the\n"
                   "round trip; compare with xz -9e and zstd -19 run in the same run.  Prints TSV:\n"
                   "dataset bytes logtk_bytes ratio xz9e_ratio zstd19_ratio compress_MBps\n"
                   "decompress_MBps roundtrip, then a geomean row.  LEVEL defaults to 19;\n"
                   "each timing repeats for at least S seconds (default 0.2).  --preset\n"
                   "compresses each log with its dataset's format (as compress --dataset D).\n\n"
                   "Exit status: 0 all round trips exact, 1 a failure, 2 usage error.\n");
            goto done;
        case ':':
            status = cli_usage_error(SUB, "option '%s' needs a value", argv[optind - 1]);
            goto done;
        default:
            status = cli_unknown_option(SUB, argv);
            goto done;
        }
    }
    if (!dir && !ninputs)
        status = cli_usage_error(SUB, "--loghub DIR or --input FILE is required");
    else if (dir && ninputs)
        status = cli_usage_error(SUB, "--loghub and --input exclude each other");
    else if (ninputs && preset)
        status = cli_usage_error(SUB, "--preset applies to the Loghub-2k logs");
    else if (optind < argc)
        status = cli_usage_error(SUB, "unexpected argument '%s'", argv[optind]);
    if (status != EXIT_OK)
        goto done;
    set.have_xz = tool_present("xz");
    set.have_zstd = tool_present("zstd");
    printf("dataset\tbytes\tlogtk_bytes\tratio%s%s\tcompress_MBps\tdecompress_MBps\troundtrip\n",
           set.have_xz ? "\txz9e_ratio" : "", set.have_zstd ? "\tzstd19_ratio" : "");
    geomean g = {0};
    if (ninputs) {
        /* the user's files: a row each, named by its file name */
        for (size_t i = 0; i < ninputs; i++) {
            const char *slash = strrchr(inputs[i], '/');
            if (bench_file(slash ? slash + 1 : inputs[i], inputs[i], NULL, &set, &g, NULL) != 0)
                status = EXIT_DATA;
        }
        geomean_print("geomean", &g, set.have_xz, set.have_zstd, status);
        goto done;
    }
    buf all = {0};
    for (int i = 0; i < 16; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s/original/%s_2k.log", dir, datasets[i], datasets[i]);
        const char *format = preset ? logtk_dataset_format(logtk_dataset_find(datasets[i])) : NULL;
        if (bench_file(datasets[i], path, format, &set, &g, &all) != 0)
            status = EXIT_DATA;
    }
    /* all 16 concatenated: written to a temporary file for xz and zstd */
    char tmpl[] = "/tmp/logtk-bench-XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd >= 0)
        logtk_temporary_add(tmpl); /* removed on a signal too (main.c) */
    if (fd >= 0) {
        FILE *f = fdopen(fd, "wb");
        int wok = f && fwrite(all.data, 1, all.len, f) == all.len;
        if (f)
            fclose(f);
        else
            close(fd);
        row_result res = {0};
        if (wok && bench_one("all16", tmpl, &all, NULL, &set, &res) != 0)
            status = EXIT_DATA;
        unlink(tmpl);
        logtk_temporary_remove(tmpl);
    }
    geomean_print("geomean16", &g, set.have_xz, set.have_zstd, status);
    free(all.data);
done:
    free(inputs);
    return status;
}
