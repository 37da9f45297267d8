/*
 * test_format.c - Loghub log formats.
 *
 * Unit cases pin down logparser's semantics (strip, \s+ for space runs, lazy
 * fields, optional parts, anchoring) and the syntax errors.  With
 * LOGTK_LOGHUB set, every line of the 16 Loghub-2k logs (LF copies and
 * CRLF originals) must match its dataset's format, the fast matcher must
 * agree with PCRE2 on every line, and the Content must equal the Content
 * column of the dataset's ground-truth CSV.
 */
#include "config.h"

#include <time.h>

#include "logtk.h"
#include "test_harness.h"

/* Internal switches of format.c. */
void ltk_format_set_fast_path(logtk_format *f, int enabled);
int ltk_format_is_simple(const logtk_format *f);

static const char hdfs_fmt[] = "<Date> <Time> <Pid> <Level> <Component>: <Content>";

static void match_str(logtk_format *f, const char *line, logtk_record *rec)
{
    CHECK_STATUS(logtk_format_match(f, line, strlen(line), rec), LOGTK_OK);
}

TEST(test_basic)
{
    logtk_format *f;
    logtk_record rec;
    CHECK_STATUS(logtk_format_new(&f), LOGTK_OK);
    /* the empty format: all Content */
    match_str(f, "  anything  ", &rec);
    CHECK(rec.matched && rec.nfields == 0);
    CHECK_BYTES(rec.content.ptr, rec.content.len, "  anything  ");

    CHECK_STATUS(logtk_format_compile(f, hdfs_fmt), LOGTK_OK);
    CHECK(ltk_format_is_simple(f));
    CHECK(logtk_format_field_count(f) == 5);
    CHECK(strcmp(logtk_format_field_name(f, 0), "Date") == 0);
    CHECK(strcmp(logtk_format_field_name(f, 4), "Component") == 0);
    CHECK(logtk_format_field_name(f, 5) == NULL);
    for (int fast = 1; fast >= 0; fast--) {
        ltk_format_set_fast_path(f, fast);
        const char *line = " 081109 203615\t148   INFO dfs.DataNode$PacketResponder: PacketResponder 1 "
                           "for block blk_38865049064139660 terminating \r";
        match_str(f, line, &rec);
        CHECK(rec.matched && rec.nfields == 5);
        CHECK_BYTES(rec.fields[0].ptr, rec.fields[0].len, "081109");
        CHECK(rec.fields[0].ptr == line + 1); /* slices point into the caller's line */
        CHECK_BYTES(rec.fields[1].ptr, rec.fields[1].len, "203615");
        CHECK_BYTES(rec.fields[2].ptr, rec.fields[2].len, "148");
        CHECK_BYTES(rec.fields[3].ptr, rec.fields[3].len, "INFO");
        CHECK_BYTES(rec.fields[4].ptr, rec.fields[4].len, "dfs.DataNode$PacketResponder");
        CHECK_BYTES(rec.content.ptr, rec.content.len,
                    "PacketResponder 1 for block blk_38865049064139660 terminating");
        /* lazy: the component stops at the first ": " */
        match_str(f, "1 2 3 INFO a: b: c", &rec);
        CHECK(rec.matched);
        CHECK_BYTES(rec.fields[4].ptr, rec.fields[4].len, "a");
        CHECK_BYTES(rec.content.ptr, rec.content.len, "b: c");
        /* a line that does not match keeps everything as content */
        const char *odd = "  just some words  ";
        match_str(f, odd, &rec);
        CHECK(!rec.matched && rec.nfields == 5 && rec.fields[2].len == 0);
        CHECK(rec.content.ptr == odd && rec.content.len == strlen(odd));
        /* '.' does not match a newline */
        match_str(f, "1 2 3 INFO a: b\nc", &rec);
        CHECK(!rec.matched);
        /* the first path fails, backtracking finds a match: fast path must hand over */
        match_str(f, "1 2 3 INFO x:y: content", &rec);
        CHECK(rec.matched);
        CHECK_BYTES(rec.fields[4].ptr, rec.fields[4].len, "x:y");
        /* empty content is allowed */
        match_str(f, "1 2 3 INFO comp:  ", &rec);
        CHECK(!rec.matched); /* after stripping, ": " has no whitespace left */
        match_str(f, "1 2 3 INFO comp: x", &rec);
        CHECK(rec.matched && rec.content.len == 1);
    }
    logtk_format_free(f);
    logtk_format_free(NULL);
}

TEST(test_optional_and_literals)
{
    logtk_format *f;
    logtk_record rec;
    logtk_format_new(&f);
    /* Linux: optional [PID] */
    CHECK_STATUS(
        logtk_format_compile(f, "<Month> <Date> <Time> <Level> <Component>(\\[<PID>\\])?: <Content>"),
        LOGTK_OK);
    CHECK(!ltk_format_is_simple(f));
    match_str(f, "Jun 14 15:16:01 combo sshd(pam_unix)[19939]: authentication failure", &rec);
    CHECK(rec.matched && rec.nfields == 6);
    CHECK_BYTES(rec.fields[4].ptr, rec.fields[4].len, "sshd(pam_unix)");
    CHECK_BYTES(rec.fields[5].ptr, rec.fields[5].len, "19939");
    CHECK_BYTES(rec.content.ptr, rec.content.len, "authentication failure");
    match_str(f, "Jun 14 15:16:01 combo kernel: nothing here", &rec);
    CHECK(rec.matched && rec.fields[5].len == 0);
    CHECK_BYTES(rec.fields[4].ptr, rec.fields[4].len, "kernel");

    /* HealthApp: escaped pipes; Apache: escaped brackets; the fast path handles both */
    CHECK_STATUS(logtk_format_compile(f, "<Time>\\|<Component>\\|<Pid>\\|<Content>"), LOGTK_OK);
    CHECK(ltk_format_is_simple(f));
    match_str(f, "20171223-22:15:29:606|Step_LSC|30002312|onStandStepChanged 3579", &rec);
    CHECK(rec.matched);
    CHECK_BYTES(rec.fields[1].ptr, rec.fields[1].len, "Step_LSC");
    CHECK_BYTES(rec.content.ptr, rec.content.len, "onStandStepChanged 3579");
    /* Content first, literal at the end */
    CHECK_STATUS(logtk_format_compile(f, "<Content> end\\."), LOGTK_OK);
    match_str(f, "a end. b end.", &rec);
    CHECK(rec.matched);
    CHECK_BYTES(rec.content.ptr, rec.content.len, "a end. b");
    /* adjacent fields: the first lazy one is empty */
    CHECK_STATUS(logtk_format_compile(f, "<A><Content>"), LOGTK_OK);
    match_str(f, "abc", &rec);
    CHECK(rec.matched && rec.fields[0].len == 0 && rec.content.len == 3);
    logtk_format_free(f);
}

TEST(test_errors)
{
    logtk_format *f;
    logtk_format_new(&f);
    CHECK_STATUS(logtk_format_compile(f, "<Date> <Time"), LOGTK_ERR_SYNTAX);
    CHECK(strstr(logtk_format_errmsg(f), "character 8") != NULL);
    CHECK(strstr(logtk_format_errmsg(f), "\n         ^") != NULL); /* caret under the '<' */
    CHECK_STATUS(logtk_format_compile(f, "<Date> <Time>"), LOGTK_ERR_SYNTAX);
    CHECK(strstr(logtk_format_errmsg(f), "Content") != NULL);
    CHECK_STATUS(logtk_format_compile(f, "<A> <A> <Content>"), LOGTK_ERR_SYNTAX);
    CHECK(strstr(logtk_format_errmsg(f), "character 5") != NULL);
    CHECK_STATUS(logtk_format_compile(f, "<Content> <Content>"), LOGTK_ERR_SYNTAX);
    CHECK_STATUS(logtk_format_compile(f, "<> <Content>"), LOGTK_ERR_SYNTAX);
    CHECK_STATUS(logtk_format_compile(f, "<A> (<Content>"), LOGTK_ERR_SYNTAX);
    CHECK(strstr(logtk_format_errmsg(f), "character") != NULL);
    CHECK_STATUS(logtk_format_compile(f, "<A> [z-a] <Content>"), LOGTK_ERR_SYNTAX);
    CHECK(strstr(logtk_format_errmsg(f), "character 8") != NULL); /* PCRE2 points at the 'a' */
    char many[1024] = "";
    for (int i = 0; i < 33; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "<F%d> ", i);
    strcat(many, "<Content>");
    CHECK_STATUS(logtk_format_compile(f, many), LOGTK_ERR_SYNTAX);
    CHECK(strstr(logtk_format_errmsg(f), "too many") != NULL);
    /* an unescaped '[' takes the fields up to the ']' into a character class
       (Chromium's "[pid:tid:time:level:file] text"): the error names the
       first field lost and points at it, and says how to write the brackets */
    CHECK_STATUS(logtk_format_compile(f, "[<Pid>:<Tid>] <Content>"), LOGTK_ERR_SYNTAX);
    CHECK(strstr(logtk_format_errmsg(f), "character 2: <Pid> is not a field") != NULL);
    CHECK(strstr(logtk_format_errmsg(f), "\\[") != NULL);
    CHECK(strstr(logtk_format_errmsg(f), "\n   ^") != NULL);
    CHECK_STATUS(logtk_format_compile(f, "\\[<Pid>:<Tid>\\] <Content>"), LOGTK_OK);
    /* a fragment's own group named as the fields' groups are (duplicate names allowed) */
    CHECK_STATUS(logtk_format_compile(f, "(?J)<A> (?'f0'x)<Content>"), LOGTK_ERR_SYNTAX);
    CHECK(strstr(logtk_format_errmsg(f), "reserved") != NULL);
    /* after a failed compile the format matches as unmatched, not with stale state */
    logtk_record rec;
    CHECK_STATUS(logtk_format_compile(f, "<A>: <Content>"), LOGTK_OK);
    CHECK_STATUS(logtk_format_compile(f, "<A"), LOGTK_ERR_SYNTAX);
    logtk_format_free(f);
    (void)rec;
}

TEST(test_hostile)
{
    logtk_format *f;
    logtk_record rec;
    logtk_format_new(&f);
    CHECK_STATUS(logtk_format_compile(f, "<A> (x+x+)+[yz] <Content>"), LOGTK_OK);
    char line[200];
    memset(line, 'x', sizeof line);
    memcpy(line, "a ", 2);
    clock_t t0 = clock();
    int rc = logtk_format_match(f, line, sizeof line, &rec);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    CHECK_STATUS(rc, LOGTK_ERR_LIMIT);
    CHECK(!rec.matched && rec.content.len == sizeof line);
    CHECK(secs < 2.0);
    CHECK(strstr(logtk_format_errmsg(f), "limit") != NULL);
    logtk_format_free(f);
}

/* A line of another log format used to send a simple format's regex through
 * all its ways of cutting the line into lazy fields, up to the match limit
 * (LOGTK_ERR_LIMIT, some 4 ms a line); it is now found unmatchable at once. */
TEST(test_unmatchable_fails_fast)
{
    logtk_format *f;
    logtk_record rec;
    logtk_format_new(&f);
    CHECK_STATUS(logtk_format_compile(f, "<Date> <Time> <Pid> <Level> <Component>: <Content>"),
                 LOGTK_OK);
    static const char bgl[] = "- 1117838570 2005.06.03 R02-M1-N0-C:J12-U11 "
                              "2005-06-03-15.42.50.675872 R02-M1-N0-C:J12-U11 RAS KERNEL INFO "
                              "instruction cache parity error corrected";
    char line[4000];
    size_t n = 0;
    while (n + sizeof bgl < sizeof line) {
        memcpy(line + n, bgl, sizeof bgl - 1);
        n += sizeof bgl - 1;
        line[n++] = ' ';
    }
    CHECK_STATUS(logtk_format_match(f, line, n, &rec), LOGTK_OK);
    CHECK(!rec.matched && rec.content.ptr == line && rec.content.len == n);
    logtk_format_free(f);
}

/* The unmatchable-line check must agree with PCRE2 exactly: random short
 * lines over the formats' own characters, fast path on and off (simple
 * formats and formats with optional groups).  Fields of eight bytes and
 * more, with a control byte that is not \s (\x1c) among them, take the
 * fast path's word-at-a-time scan for the next blank. */
TEST(test_simple_random_agrees)
{
    static const char *const formats[] = {
        "<A> <B>: <Content>",
        "<A> <B> <C> <Content>",
        "<A>|<B>|<C>|<Content>",
        "<A>:<B> <Content>",
        "\\[<A>\\] <B>  <Content> x",
        "<A><B> - <Content>",
        "<A> <Content>: ",
        "x <A> <B> <Content>",
        /* optional groups (the fast plan matcher) */
        "<A> <B>(\\[<C>\\])?: <Content>",
        "<A>  <B> <C>\\[<D>\\]( \\(<E>\\))?: <Content>",
        "<A> <B>(\\[<C>\\])?(\\{<D>\\})?: <Content>",
        "(\\[<A>\\] )?<B> <Content>",
        /* a field before a group whose first literal, or the one after it,
           starts with a blank (the scan for either literal's next start) */
        "<A>( \\(<B>\\))?:<Content>",
        "<A>(\\[<B>\\])? <Content>",
        "<A> <B>( <C>:)? <Content>",
        "<A>(\\[\\]<B>\\])? <Content>", /* "[[]": "[]" fails at the first '[' */
    };
    static const char alphabet[] = "ab :[]-x\t ({})\x1c|";
    static const char *const pieces[] = {"a", "bb", " ", "  ", "[c]", "{d}", ": ", "]", "[",
                                         " (e)", "\t", "x ", ":", "[]", "abcdefghij",
                                         "ab\x1c" "cdefghij", "abcdefg\f", "|"};
    unsigned long long seed = 12345;
    for (size_t fi = 0; fi < sizeof formats / sizeof formats[0]; fi++) {
        logtk_format *f;
        CHECK_STATUS(logtk_format_new(&f), LOGTK_OK);
        CHECK_STATUS(logtk_format_compile(f, formats[fi]), LOGTK_OK);
        int disagree = 0;
        for (int k = 0; k < 30000; k++) {
            char line[64];
            size_t n = 0;
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            size_t npieces = (size_t)(seed >> 33) % 12;
            for (size_t i = 0; i < npieces; i++) {
                /* half the lines from single characters, half from pieces
                   shaped like the formats' parts */
                seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                const char *piece = pieces[(seed >> 33) % (sizeof pieces / sizeof pieces[0])];
                char one[2] = {alphabet[(seed >> 40) % (sizeof alphabet - 1)], 0};
                if (k % 2)
                    piece = one;
                size_t len = strlen(piece);
                if (n + len > sizeof line)
                    break;
                memcpy(line + n, piece, len);
                n += len;
            }
            logtk_record a, b;
            ltk_format_set_fast_path(f, 1);
            int ra = logtk_format_match(f, line, n, &a);
            ltk_format_set_fast_path(f, 0);
            int rb = logtk_format_match(f, line, n, &b);
            int same = ra == rb && a.matched == b.matched && a.nfields == b.nfields &&
                       a.content.ptr == b.content.ptr && a.content.len == b.content.len;
            for (size_t i = 0; same && i < a.nfields; i++)
                same = a.fields[i].len == b.fields[i].len &&
                       (a.fields[i].len == 0 || a.fields[i].ptr == b.fields[i].ptr);
            if (!same && disagree++ == 0)
                fprintf(stderr, "format \"%s\", line \"%.*s\": fast path and PCRE2 disagree\n",
                        formats[fi], (int)n, line);
        }
        CHECK(disagree == 0);
        logtk_format_free(f);
    }
}

/* Every Loghub-2k line: matched, fast == PCRE2, Content == the CSV's Content. */
static void test_loghub(const char *root)
{
    char path[1024];
    if (strlen(root) > 512)
        return;
    snprintf(path, sizeof path, "%s/settings.tsv", root);
    FILE *st = fopen(path, "r");
    CHECK(st != NULL);
    if (!st)
        return;
    char row[8192];
    if (!fgets(row, sizeof row, st)) {
        fclose(st);
        return;
    }
    logtk_reader *r;
    logtk_reader_new(&r);
    logtk_csv *csv;
    logtk_csv_new(&csv);
    int datasets = 0, mac_quirks = 0;
    while (fgets(row, sizeof row, st)) {
        char *tab = strchr(row, '\t');
        if (!tab)
            continue;
        *tab = '\0';
        char *fmt = tab + 1;
        char *tab2 = strchr(fmt, '\t');
        if (tab2)
            *tab2 = '\0';
        const char *ds = row;
        if (strlen(ds) > 64)
            continue;
        logtk_format *f;
        logtk_format_new(&f);
        CHECK_STATUS(logtk_format_compile(f, fmt), LOGTK_OK);
        datasets++;
        for (int orig = 0; orig < 2; orig++) {
            int plen = snprintf(path, sizeof path, "%s/%s/%s%s_2k.log", root, ds,
                                orig ? "original/" : "", ds);
            CHECK(plen > 0 && (size_t)plen < sizeof path); /* root and ds were measured */
            CHECK_STATUS(logtk_reader_open_path(r, path), LOGTK_OK);
            char csv_path[sizeof path + sizeof "_structured.csv"];
            snprintf(csv_path, sizeof csv_path, "%s_structured.csv", path);
            CHECK_STATUS(logtk_csv_open_path(csv, csv_path), LOGTK_OK);
            const logtk_slice *cols;
            size_t ncols, content_col = (size_t)-1;
            CHECK_STATUS(logtk_csv_next(csv, &cols, &ncols), LOGTK_OK);
            for (size_t i = 0; i < ncols; i++)
                if (cols[i].len == 7 && memcmp(cols[i].ptr, "Content", 7) == 0)
                    content_col = i;
            CHECK(content_col != (size_t)-1);
            logtk_line l;
            int unmatched = 0, disagree = 0, content_diff = 0, lines = 0;
            while (logtk_reader_next(r, &l) == LOGTK_OK) {
                lines++;
                logtk_record a, b;
                ltk_format_set_fast_path(f, 1);
                logtk_format_match(f, l.data, l.len, &a);
                ltk_format_set_fast_path(f, 0);
                logtk_format_match(f, l.data, l.len, &b);
                unmatched += !b.matched;
                int same = a.matched == b.matched && a.content.ptr == b.content.ptr &&
                           a.content.len == b.content.len && a.nfields == b.nfields;
                for (size_t i = 0; same && i < a.nfields; i++)
                    same = a.fields[i].ptr == b.fields[i].ptr && a.fields[i].len == b.fields[i].len;
                disagree += !same;
                if (logtk_csv_next(csv, &cols, &ncols) == LOGTK_OK && content_col < ncols) {
                    if (cols[content_col].len != b.content.len ||
                        memcmp(cols[content_col].ptr, b.content.ptr, b.content.len) != 0) {
                        /* Documented quirk (loghub-2k README): the LF copy of the Mac
                         * log differs from the original text in lines 1578, 1586, 1986. */
                        int quirk = !orig && strcmp(ds, "Mac") == 0 &&
                                    (l.number == 1578 || l.number == 1586 || l.number == 1986);
                        mac_quirks += quirk;
                        if (!quirk && content_diff++ == 0)
                            fprintf(stderr, "%s:%llu: content differs from the CSV\n", path,
                                    (unsigned long long)l.number);
                    }
                }
            }
            if (unmatched || disagree || content_diff || lines != 2000)
                fprintf(stderr, "%s: %d lines, %d unmatched, %d fast/PCRE2 disagreements, %d "
                                "content differences\n",
                        path, lines, unmatched, disagree, content_diff);
            CHECK(lines == 2000);
            CHECK(unmatched == 0);
            CHECK(disagree == 0);
            CHECK(content_diff == 0);
        }
        logtk_format_free(f);
    }
    CHECK(datasets == 16);
    CHECK(mac_quirks == 3);
    fclose(st);
    logtk_reader_free(r);
    logtk_csv_free(csv);
}

/* Formats with optional groups take the fast matcher too: on lines built to
 * confuse it (missing, empty, repeated and unbalanced optional parts), it must
 * give exactly the record PCRE2 gives. */
TEST(test_optional_fast_path_agrees)
{
    static const char *const formats[] = {
        "<Month> <Date> <Time> <Level> <Component>(\\[<PID>\\])?: <Content>",
        "<Month>  <Date> <Time> <User> <Component>\\[<PID>\\]( \\(<Address>\\))?: <Content>",
        "<A> <B>(\\[<C>\\])?(\\{<D>\\})?: <Content>",
    };
    static const char *const lines[] = {
        "Jun 14 15:16:01 combo sshd(pam_unix)[19939]: check pass; user unknown",
        "Jun 14 15:16:01 combo sshd: check pass",
        "Jun 14 15:16:01 combo sshd[]: empty pid",
        "Jun 14 15:16:01 combo sshd[1][2]: two pids",
        "Jun 14 15:16:01 combo sshd[12: unbalanced",
        "Jun 14 15:16:01 combo sshd]: stray",
        "Jul  1 09:00:01 calvisitor-10-105-160-95 kernel[0]: ARPT: 620651.021475: wl0",
        "Jul  1 09:00:01 host com.apple.cts[258] (com.apple.x): service only",
        "Jul  1 09:00:01 host com.apple.cts[258] (: half open",
        "a b[c]{d}: both",
        "a b{d}: second only",
        "a b{d}[c]: wrong order",
        "a b: none",
        "a b[c]: [x]: colon inside",
        "",
        ":",
        "no match here",
    };
    for (size_t fi = 0; fi < sizeof formats / sizeof formats[0]; fi++) {
        logtk_format *f;
        CHECK_STATUS(logtk_format_new(&f), LOGTK_OK);
        CHECK_STATUS(logtk_format_compile(f, formats[fi]), LOGTK_OK);
        for (size_t li = 0; li < sizeof lines / sizeof lines[0]; li++) {
            logtk_record a, b;
            size_t n = strlen(lines[li]);
            ltk_format_set_fast_path(f, 1);
            logtk_format_match(f, lines[li], n, &a);
            ltk_format_set_fast_path(f, 0);
            logtk_format_match(f, lines[li], n, &b);
            int same = a.matched == b.matched && a.nfields == b.nfields &&
                       a.content.ptr == b.content.ptr && a.content.len == b.content.len;
            for (size_t i = 0; same && i < a.nfields; i++)
                same = a.fields[i].len == b.fields[i].len &&
                       (a.fields[i].len == 0 || a.fields[i].ptr == b.fields[i].ptr);
            if (!same)
                fprintf(stderr, "format %zu, line \"%s\": fast path and PCRE2 disagree\n", fi,
                        lines[li]);
            CHECK(same);
        }
        logtk_format_free(f);
    }
}

TEST(test_loghub_formats)
{
    const char *root = getenv("LOGTK_LOGHUB");
    if (root)
        test_loghub(root);
    else
        printf("skipped: LOGTK_LOGHUB not set (Loghub-2k format checks)\n");
}
