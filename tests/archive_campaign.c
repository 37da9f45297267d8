/*
 * archive_campaign.c - the damaged-archive campaign: archives damaged in
 * seven ways, each read back by `logtk decompress`, `logtk cat --lines` and
 * `logtk grep`, and every answer judged against the original.
 *
 * Kinds of damage (one per trial, in turn):
 *   flip      one byte anywhere after the file header xor-ed with a random value
 *   truncate  the file cut at a random length
 *   append    random bytes, a copy of a block, or the whole archive appended
 *   swap      two blocks exchanged
 *   delete    one block removed
 *   duplicate one block repeated after itself
 *   forged    payload bytes (or the header's counts) changed and the payload
 *             and header checksums recomputed, as a forger or a buggy tool would
 *
 * Outcome of each command (the original lines carry their number, so every
 * line printed is checked against the line of that number):
 *   exact      output equals the original answer, exit status 0
 *   recovered  the damage was reported, every missing line lies in a range
 *              the messages name, and every line printed is the original's
 *   overstated as recovered, but lines of blocks the damage did not touch
 *              were named lost (swap: blocks out of place are not put back)
 *   refused    the whole archive was refused with a message (its file
 *              header itself was hit)
 *   unnamed    lines missing that no message names           (failure)
 *   wrong      a line printed that is not the original's, or
 *              lines out of order or repeated                 (failure)
 *   crash      killed by a signal                             (failure)
 *   hang       still running after the time limit             (failure)
 *
 * usage: archive_campaign [TRIALS [SEED]]  (LOGTK: the logtk to run; trials
 * also from LOGTK_CAMPAIGN_TRIALS; default 35, five of each kind, which is
 * what make check runs).  Prints the counts by kind and outcome; exits 1
 * when any trial failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "archive_container.h"
#include "membuf.h"

enum { K_FLIP, K_TRUNCATE, K_APPEND, K_SWAP, K_DELETE, K_DUPLICATE, K_FORGED, NKINDS };
static const char *const kind_names[NKINDS] = {"flip", "truncate", "append", "swap", "delete", "duplicate", "forged"};
enum { O_EXACT, O_RECOVERED, O_OVERSTATED, O_REFUSED, O_UNNAMED, O_WRONG, O_CRASH, O_HANG, NOUTCOMES };
static const char *const outcome_names[NOUTCOMES] = {"exact", "recovered", "overstated", "refused",
                                                     "unnamed", "wrong", "crash", "hang"};
enum { C_DECOMPRESS, C_CAT, C_GREP, NCMDS };
static const char *const cmd_names[NCMDS] = {"decompress", "cat", "grep"};

#define NLINES 3000
#define BLOCK_LINES 200
#define NBLOCKS (NLINES / BLOCK_LINES)
#define TIME_LIMIT_MS 30000

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static size_t rnd_below(size_t n)
{
    return n ? (size_t)(rnd() % n) : 0;
}

/* The original: NLINES lines "<n> <a line of sample.log>\n". */
static membuf orig;
static size_t line_off[NLINES + 2]; /* 1-based: line n is orig[line_off[n] .. line_off[n+1]) */

static const char *workdir;
static const char *logtk;

static void die(const char *what)
{
    fprintf(stderr, "archive_campaign: %s: %s\n", what, strerror(errno));
    exit(2);
}

static int read_file(const char *path, membuf *m)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    char buf[65536];
    size_t n;
    m->len = 0;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        mem_write(m, buf, n);
    fclose(f);
    if (!m->data)
        mem_write(m, "", 0);
    return 0;
}

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0)
        die(path);
}

static char *path_in(const char *name)
{
    static char buf[4][1024];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", workdir, name);
    return buf[k];
}

/* Runs argv with stdout and stderr to files; its wait status, or -1 when it hung (then killed). */
static int run(char *const argv[], const char *out, const char *err)
{
    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644), fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
            _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    int status;
    for (int waited = 0;; waited += 5) {
        pid_t got = waitpid(pid, &status, WNOHANG);
        if (got == pid)
            return status;
        if (got < 0 && errno != EINTR)
            die("waitpid");
        if (waited >= TIME_LIMIT_MS) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return -1;
        }
        struct timespec ts = {0, 5 * 1000000};
        nanosleep(&ts, NULL);
    }
}

/* Line ranges the messages name lost: [lo, hi] (hi UINT64_MAX: to the end). */
typedef struct ranges {
    uint64_t lo[256], hi[256];
    int n;
    int refused; /* the whole archive refused */
} ranges;

static void parse_messages(const membuf *err, ranges *rg)
{
    rg->n = 0;
    rg->refused = 0;
    const char *p = err->data, *end = err->data + err->len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        char line[2048];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line - 1 ? n : sizeof line - 1), p);
        p += n + 1;
        if (strstr(line, "not a logtk archive") || strstr(line, "archive format version"))
            rg->refused = 1;
        if (strstr(line, "no lines lost") || rg->n == 256)
            continue;
        const char *from = strstr(line, "lines from ");
        unsigned long long a, b;
        if (from && sscanf(from, "lines from %llu on", &a) == 1) {
            rg->lo[rg->n] = a;
            rg->hi[rg->n++] = UINT64_MAX;
            continue;
        }
        for (const char *q = strstr(line, "lines "); q; q = strstr(q + 1, "lines ")) {
            if (sscanf(q, "lines %llu-%llu", &a, &b) == 2) {
                rg->lo[rg->n] = a;
                rg->hi[rg->n++] = b;
                break;
            }
        }
    }
}

static int named(const ranges *rg, uint64_t line)
{
    for (int i = 0; i < rg->n; i++)
        if (line >= rg->lo[i] && line <= rg->hi[i])
            return 1;
    return 0;
}

/* The pattern grep looks for, and whether line n holds it. */
static const char *pattern;
static int line_matches(uint64_t n)
{
    return memmem(orig.data + line_off[n], line_off[n + 1] - line_off[n] - 1, pattern, strlen(pattern)) != NULL;
}

/*
 * Judges one command's answer: the lines it should print are lines lo..hi
 * of the original (those holding the pattern for grep); intact[b] says
 * whether block b came through the damage untouched.
 */
static int judge(int status, const membuf *out, const membuf *err, uint64_t lo, uint64_t hi, int grep_only,
                 const unsigned char *intact)
{
    if (status == -1)
        return O_HANG;
    if (WIFSIGNALED(status))
        return O_CRASH;
    ranges rg;
    parse_messages(err, &rg);
    /* every line printed must be the original's, in order, once */
    static unsigned char seen[NLINES + 2];
    memset(seen, 0, sizeof seen);
    const char *p = out->data, *end = out->data + out->len;
    uint64_t prev = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
        char *e;
        unsigned long long id = strtoull(p, &e, 10);
        if (e == p || id < lo || id > hi || id <= prev || n != line_off[id + 1] - line_off[id] ||
            memcmp(p, orig.data + line_off[id], n) != 0 || (grep_only && !line_matches(id)))
            return O_WRONG;
        seen[id] = 1;
        prev = id;
        p += n;
    }
    int missing = 0, unnamed = 0, overstated = 0;
    for (uint64_t id = lo; id <= hi; id++) {
        if (grep_only && !line_matches(id))
            continue;
        if (seen[id])
            continue;
        missing = 1;
        if (!named(&rg, id))
            unnamed = 1;
        else if (intact[(id - 1) / BLOCK_LINES])
            overstated = 1;
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 255;
    if (unnamed)
        return rg.refused && prev == 0 ? O_REFUSED : O_UNNAMED;
    if (!missing && err->len == 0 && (code == 0 || (grep_only && code == 1)))
        return O_EXACT;
    return overstated ? O_OVERSTATED : O_RECOVERED;
}

/* Block layout of the intact archive. */
static size_t block_at[NBLOCKS + 1]; /* offsets; block_at[NBLOCKS]: the footer */
static membuf arc;

static void damage(int kind, membuf *bad, unsigned char *intact)
{
    bad->len = 0;
    memset(intact, 1, NBLOCKS);
    size_t i = rnd_below(NBLOCKS), j;
    switch (kind) {
    case K_FLIP: {
        mem_write(bad, arc.data, arc.len);
        size_t pos = LTK_FILE_HEADER_LEN + rnd_below(arc.len - LTK_FILE_HEADER_LEN);
        bad->bytes[pos] ^= (uint8_t)(1 + rnd_below(255));
        for (int b = 0; b < NBLOCKS; b++)
            if (pos >= block_at[b] && pos < block_at[b + 1])
                intact[b] = 0;
        break;
    }
    case K_TRUNCATE: {
        size_t cut = LTK_FILE_HEADER_LEN + rnd_below(arc.len - LTK_FILE_HEADER_LEN);
        mem_write(bad, arc.data, cut);
        for (int b = 0; b < NBLOCKS; b++)
            if (block_at[b + 1] > cut)
                intact[b] = 0;
        break;
    }
    case K_APPEND: {
        mem_write(bad, arc.data, arc.len);
        int how = (int)rnd_below(3);
        if (how == 0) {
            size_t n = 1 + rnd_below(300);
            for (size_t k = 0; k < n; k++) {
                uint8_t c = (uint8_t)rnd();
                mem_write(bad, &c, 1);
            }
        } else if (how == 1) {
            mem_write(bad, arc.data + block_at[i], block_at[i + 1] - block_at[i]);
        } else {
            mem_write(bad, arc.data, arc.len);
        }
        break;
    }
    case K_SWAP:
        j = (i + 1 + rnd_below(NBLOCKS - 1)) % NBLOCKS;
        if (j < i) {
            size_t t = i;
            i = j;
            j = t;
        }
        mem_write(bad, arc.data, block_at[i]);
        mem_write(bad, arc.data + block_at[j], block_at[j + 1] - block_at[j]);
        mem_write(bad, arc.data + block_at[i + 1], block_at[j] - block_at[i + 1]);
        mem_write(bad, arc.data + block_at[i], block_at[i + 1] - block_at[i]);
        mem_write(bad, arc.data + block_at[j + 1], arc.len - block_at[j + 1]);
        break;
    case K_DELETE:
        mem_write(bad, arc.data, block_at[i]);
        mem_write(bad, arc.data + block_at[i + 1], arc.len - block_at[i + 1]);
        intact[i] = 0;
        break;
    case K_DUPLICATE:
        mem_write(bad, arc.data, block_at[i + 1]);
        mem_write(bad, arc.data + block_at[i], arc.len - block_at[i]);
        break;
    case K_FORGED: {
        mem_write(bad, arc.data, arc.len);
        uint8_t *hdr = bad->bytes + block_at[i];
        ltk_block_header h;
        if (ltk_block_header_read(hdr, LTK_VERSION, &h) != 0)
            abort();
        if (rnd_below(4) == 0) {
            /* the header's counts */
            if (rnd_below(2))
                h.raw_bytes += (uint32_t)(1 + rnd_below(40)) * (rnd_below(2) ? 1u : (uint32_t)-1);
            else
                h.nlines += (uint32_t)(1 + rnd_below(3)) * (rnd_below(2) ? 1u : (uint32_t)-1);
        } else {
            uint8_t *payload = hdr + LTK_BLOCK_HEADER_LEN;
            int n = 1 + (int)rnd_below(4);
            for (int k = 0; k < n; k++)
                payload[rnd_below(h.payload_len)] ^= (uint8_t)(1 + rnd_below(255));
            h.payload_hash = ltk_checksum32(payload, h.payload_len);
        }
        ltk_block_header_write(hdr, &h);
        intact[i] = 0;
        break;
    }
    }
}

int main(int argc, char **argv)
{
    const char *env_trials = getenv("LOGTK_CAMPAIGN_TRIALS");
    long trials = argc > 1 ? atol(argv[1]) : env_trials ? atol(env_trials) : 35;
    if (argc > 2)
        rng = strtoull(argv[2], NULL, 10) * 0x9e3779b97f4a7c15ull + 1;
    logtk = getenv("LOGTK");
    const char *srcdir = getenv("LOGTK_SRCDIR");
    if (!logtk) {
        fprintf(stderr, "archive_campaign: LOGTK (the logtk to run) not set; skipped\n");
        return 77;
    }
    char sample[1024];
    snprintf(sample, sizeof sample, "%s/tests/data/sample.log", srcdir ? srcdir : ".");
    membuf src = {0};
    if (read_file(sample, &src) != 0)
        die(sample);
    char tmpl[] = "/tmp/logtk-campaign-XXXXXX";
    workdir = mkdtemp(tmpl);
    if (!workdir)
        die("mkdtemp");

    /* the original: numbered lines of sample.log, over and over */
    const char *s = src.data, *send = src.data + src.len;
    for (int n = 1; n <= NLINES; n++) {
        if (s >= send)
            s = src.data;
        const char *nl = memchr(s, '\n', (size_t)(send - s));
        size_t len = nl ? (size_t)(nl - s) : (size_t)(send - s);
        char num[24];
        int k = snprintf(num, sizeof num, "%d ", n);
        line_off[n] = orig.len;
        mem_write(&orig, num, (size_t)k);
        mem_write(&orig, s, len);
        mem_write(&orig, "\n", 1);
        s += len + 1;
    }
    line_off[NLINES + 1] = orig.len;
    write_file(path_in("orig.log"), orig.data, orig.len);
    {
        char bl[16];
        snprintf(bl, sizeof bl, "%d", BLOCK_LINES);
        char *const argv_c[] = {(char *)logtk, "compress", "-q", "--block-lines", bl, "-o", path_in("orig.ltk"),
                                path_in("orig.log"), NULL};
        int st = run(argv_c, path_in("c.out"), path_in("c.err"));
        if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || read_file(path_in("orig.ltk"), &arc) != 0) {
            fprintf(stderr, "archive_campaign: compress failed\n");
            return 2;
        }
    }
    size_t pos = LTK_FILE_HEADER_LEN;
    for (int b = 0; b < NBLOCKS; b++) {
        ltk_block_header h;
        if (pos + LTK_BLOCK_HEADER_LEN > arc.len || ltk_block_header_read(arc.bytes + pos, LTK_VERSION, &h) != 0) {
            fprintf(stderr, "archive_campaign: unexpected layout at block %d\n", b + 1);
            return 2;
        }
        block_at[b] = pos;
        pos += LTK_BLOCK_HEADER_LEN + h.payload_len + ltk_line_hashes_len(h.nlines);
    }
    block_at[NBLOCKS] = pos;

    static const char *const patterns[] = {"INFO", "Auth", "ERROR", "order", "10.1"};
    long counts[NKINDS][NCMDS][NOUTCOMES] = {{{0}}};
    long failures = 0;
    membuf bad = {0}, out = {0}, err = {0};
    unsigned char intact[NBLOCKS];
    for (long t = 0; t < trials; t++) {
        int kind = (int)(t % NKINDS);
        damage(kind, &bad, intact);
        write_file(path_in("bad.ltk"), bad.data, bad.len);
        for (int c = 0; c < NCMDS; c++) {
            char threads[16], range[48];
            uint64_t lo = 1, hi = NLINES;
            char *args[12];
            int na = 0;
            args[na++] = (char *)logtk;
            args[na++] = (char *)cmd_names[c];
            if (c == C_DECOMPRESS) {
                snprintf(threads, sizeof threads, "%d", 1 + (int)rnd_below(3));
                args[na++] = "-T";
                args[na++] = threads;
            } else if (c == C_CAT) {
                lo = 1 + rnd_below(NLINES);
                hi = lo + rnd_below(500);
                if (hi > NLINES)
                    hi = NLINES;
                snprintf(range, sizeof range, "%llu-%llu", (unsigned long long)lo, (unsigned long long)hi);
                args[na++] = "--lines";
                args[na++] = range;
            } else {
                pattern = patterns[rnd_below(sizeof patterns / sizeof patterns[0])];
                snprintf(threads, sizeof threads, "%d", 1 + (int)rnd_below(3));
                args[na++] = "-T";
                args[na++] = threads;
                args[na++] = "-F";
                args[na++] = (char *)pattern;
            }
            args[na++] = path_in("bad.ltk");
            args[na] = NULL;
            int st = run(args, path_in("out"), path_in("err"));
            read_file(path_in("out"), &out);
            read_file(path_in("err"), &err);
            int o = judge(st, &out, &err, lo, hi, c == C_GREP, intact);
            counts[kind][c][o]++;
            if (o >= O_UNNAMED) {
                failures++;
                if (failures <= 5) {
                    char keep[64];
                    snprintf(keep, sizeof keep, "fail%ld.ltk", failures);
                    write_file(path_in(keep), bad.data, bad.len);
                    fprintf(stderr, "trial %ld (%s), %s %s: %s; kept as %s; stderr: %.300s\n", t, kind_names[kind],
                            cmd_names[c], c == C_CAT ? range : c == C_GREP ? pattern : threads,
                            outcome_names[o], path_in(keep), err.data ? err.data : "");
                }
            }
        }
    }
    printf("kind\tcommand");
    for (int o = 0; o < NOUTCOMES; o++)
        printf("\t%s", outcome_names[o]);
    printf("\n");
    long total[NOUTCOMES] = {0};
    for (int k = 0; k < NKINDS; k++)
        for (int c = 0; c < NCMDS; c++) {
            printf("%s\t%s", kind_names[k], cmd_names[c]);
            for (int o = 0; o < NOUTCOMES; o++) {
                printf("\t%ld", counts[k][c][o]);
                total[o] += counts[k][c][o];
            }
            printf("\n");
        }
    printf("all\tall");
    for (int o = 0; o < NOUTCOMES; o++)
        printf("\t%ld", total[o]);
    printf("\n%ld trials, %ld failed answers%s\n", trials, failures,
           failures ? " (archives kept in the work folder)" : "");
    if (!failures) {
        char cmd[1100];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", workdir);
        if (system(cmd) != 0)
            fprintf(stderr, "archive_campaign: could not remove %s\n", workdir);
    }
    free(src.data);
    free(orig.data);
    free(arc.data);
    free(bad.data);
    free(out.data);
    free(err.data);
    return failures ? 1 : 0;
}
