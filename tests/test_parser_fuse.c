/*
 * test_parser_fuse.c - fuse, logtk's own online parser, on small hand-made
 * inputs.
 *
 * Each case states a behaviour of the algorithm (what becomes a variable,
 * what stays apart, how a value is written, what a snapshot keeps) and
 * checks it through the public parser API.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dataset_registry.h"
#include "fuse_shape.h"
#include "logtk.h"
#include "test_harness.h"
#include "parser_test_util.h"

TEST(test_fuse_masks)
{
    static const char *const lines[] = {
        "Served block blk_-42 to /10.0.0.1:50010",
        "Served block blk_77 to /10.0.0.2:50010",
        "Task done (TID 7).",
        "Reading /var/log/app/x.log, ok",
        "connection from 1.2.3.4 () at Jul",
        "connection from 1.2.3.5 (host) at Jun",
        "\"GET /missing/page.html?q=a&r=b HTTP/1.1\" 404 -",
        "set /etc/app/mode=1 ok",
    };
    logtk_parser *p = run_parser("fuse", lines, 8, NULL, NULL);
    CHECK(p != NULL);
    CHECK_TEXT(p, 0, "Served block <*> to <*>"); /* a path, its port joined: one address */
    CHECK(same_text(p, 0, 1));
    CHECK_TEXT(p, 2, "Task done (TID <*>).");
    CHECK_TEXT(p, 3, "Reading <*>, ok");
    CHECK_TEXT(p, 4, "connection from <*> (<*>) at <*>");
    /* a path's query is the path's, its '=' included; without a '?' an '=' ends it */
    CHECK_TEXT(p, 6, "\"GET <*> <*>\" <*> -");
    CHECK_TEXT(p, 7, "set <*>=<*> ok");
    /* parameters come back as the original text */
    logtk_event ev;
    CHECK_STATUS(logtk_parser_extract(p, 1, lines[1], strlen(lines[1]), &ev), LOGTK_OK);
    CHECK(ev.nparams == 2);
    if (ev.nparams == 2) {
        CHECK_BYTES(ev.params[0].ptr, ev.params[0].len, "blk_77");
        CHECK_BYTES(ev.params[1].ptr, ev.params[1].len, "/10.0.0.2:50010");
    }
    logtk_parser_free(p);
}

TEST(test_fuse_siblings)
{
    /* a word position becomes a variable once it shows `threshold` distinct words */
    static const char *const users[] = {
        "Accepted password for alice from <*>", "Accepted password for bob from <*>",
        "Accepted password for carol from <*>", "Accepted password for dave from <*>",
        "Accepted password for erin from <*>",
    };
    logtk_parser *p = run_parser("fuse", users, 5, "threshold", "3");
    CHECK(same_text(p, 0, 1));
    CHECK(same_text(p, 0, 4));
    CHECK_TEXT(p, 4, "Accepted password for <*> from <*>");
    logtk_parser_free(p);

    /* fewer distinct words than the threshold: kept apart */
    static const char *const states[] = {"VM Started now", "VM Stopped now", "VM Started now"};
    p = run_parser("fuse", states, 3, "threshold", "3");
    CHECK(!same_text(p, 0, 1));
    CHECK(same_text(p, 0, 2));
    logtk_parser_free(p);

    /* key=value: only the value becomes a variable */
    static const char *const kv[] = {"login ok user=root", "login ok user=admin",
                                     "login ok user=guest"};
    p = run_parser("fuse", kv, 3, "threshold", "3");
    CHECK_TEXT(p, 0, "login ok user=<*>");
    logtk_parser_free(p);

    /* one-word messages never collapse into "<*>" */
    static const char *const words[] = {"start", "stop", "pause", "resume", "halt"};
    p = run_parser("fuse", words, 5, "threshold", "2");
    CHECK_TEXT(p, 4, "halt");
    CHECK(logtk_parser_template_count(p) == 5);
    logtk_parser_free(p);

    /* online: the event of a fed line carries its template right away */
    CHECK_STATUS(logtk_parser_new(&p, "fuse"), LOGTK_OK);
    logtk_event ev;
    CHECK_STATUS(logtk_parser_feed(p, "disk 3 full", 11, &ev), LOGTK_OK);
    CHECK(ev.template_id == 1 && ev.created == 1);
    CHECK_STATUS(logtk_parser_feed(p, "disk 4 full", 11, &ev), LOGTK_OK);
    CHECK(ev.template_id == 1 && ev.created == 0);
    CHECK_STATUS(logtk_parser_set_option(p, "threshold", "1"), LOGTK_ERR_INVALID);
    logtk_parser_free(p);
    logtk_parser_free(NULL);
}

/* A small varied corpus: templates with numeric fields, words that become
   variables only after enough siblings, and key=value pairs. */
static void corpus_line(char *buf, size_t cap, int i)
{
    static const char *const users[] = {"alice", "bob", "carol", "dave", "erin", "frank"};
    static const char *const verbs[] = {"Started", "Stopped"};
    switch (i % 4) {
    case 0:
        snprintf(buf, cap, "Accepted password for %s from 10.0.%d.%d port %d", users[i % 6],
                 i % 7, i % 250, 1000 + i);
        break;
    case 1:
        snprintf(buf, cap, "VM %s instance-%d", verbs[(i / 4) % 2], i);
        break;
    case 2:
        snprintf(buf, cap, "login ok user=%s tries=%d", users[(i * 5) % 6], i % 3);
        break;
    default:
        snprintf(buf, cap, "disk %s full on node", users[(i / 4) % 6]);
        break;
    }
}

/* Feeds `line` to both parsers. */
static void feed_both(logtk_parser *a, logtk_parser *b, const char *line)
{
    CHECK_STATUS(logtk_parser_feed(a, line, strlen(line), NULL), LOGTK_OK);
    CHECK_STATUS(logtk_parser_feed(b, line, strlen(line), NULL), LOGTK_OK);
}

/* Loads into `to` the state saved from `from`. */
static void resume_from(logtk_parser *from, logtk_parser *to)
{
    void *snap = NULL;
    size_t len = 0;
    CHECK_STATUS(logtk_parser_save(from, &snap, &len), LOGTK_OK);
    CHECK_STATUS(logtk_parser_load(to, snap, len), LOGTK_OK);
    logtk_free(snap);
}

TEST(test_fuse_snapshot)
{
    logtk_parser *whole = NULL, *first = NULL, *resumed = NULL;
    CHECK_STATUS(logtk_parser_new(&whole, "fuse"), LOGTK_OK);
    CHECK_STATUS(logtk_parser_new(&first, "fuse"), LOGTK_OK);
    CHECK_STATUS(logtk_parser_new(&resumed, "fuse"), LOGTK_OK);
    char line[256];
    /* the first part shows only some siblings: learning continues after the reload */
    for (int i = 0; i < 14; i++) {
        corpus_line(line, sizeof line, i);
        feed_both(whole, first, line);
    }
    void *snap = NULL;
    size_t len = 0;
    CHECK_STATUS(logtk_parser_save(first, &snap, &len), LOGTK_OK);
    CHECK_STATUS(logtk_parser_load(resumed, snap, len), LOGTK_OK);
    CHECK(logtk_parser_template_count(resumed) == logtk_parser_template_count(first));
    int same = 1;
    for (int i = 14; i < 200; i++) {
        corpus_line(line, sizeof line, i);
        logtk_event a, b;
        CHECK_STATUS(logtk_parser_feed(whole, line, strlen(line), &a), LOGTK_OK);
        CHECK_STATUS(logtk_parser_feed(resumed, line, strlen(line), &b), LOGTK_OK);
        logtk_slice ta, tb;
        uint64_t ca, cb;
        logtk_parser_template(whole, a.template_id, &ta, &ca);
        logtk_parser_template(resumed, b.template_id, &tb, &cb);
        if (a.template_id != b.template_id || ta.len != tb.len || memcmp(ta.ptr, tb.ptr, ta.len))
            same = 0;
    }
    CHECK(same);
    CHECK(logtk_parser_template_count(whole) == logtk_parser_template_count(resumed));
    /* the resumed parser learned the same variables as the uninterrupted one */
    corpus_line(line, sizeof line, 199);
    logtk_event ev;
    CHECK_STATUS(logtk_parser_feed(resumed, line, strlen(line), &ev), LOGTK_OK);
    logtk_slice t;
    uint64_t c;
    logtk_parser_template(resumed, ev.template_id, &t, &c);
    CHECK_BYTES(t.ptr, t.len, "disk <*> full on node");

    /* damaged or truncated snapshots are refused and leave the parser usable */
    uint32_t before = logtk_parser_template_count(resumed);
    unsigned char *bad = malloc(len);
    int refused = 1;
    for (size_t i = 0; bad && i < len; i++) {
        memcpy(bad, snap, len);
        bad[i] ^= 0x41;
        if (logtk_parser_load(resumed, bad, len) != LOGTK_ERR_STATE)
            refused = 0;
    }
    for (size_t cut = 0; cut < len; cut += 5)
        if (logtk_parser_load(resumed, snap, cut) != LOGTK_ERR_STATE)
            refused = 0;
    CHECK(refused);
    CHECK(logtk_parser_template_count(resumed) == before);
    free(bad);
    logtk_free(snap);
    logtk_parser_free(whole);
    logtk_parser_free(first);
    logtk_parser_free(resumed);
}

TEST(test_fuse_variable_slots)
{
    /* a slot seen holding a masked value takes other value-like words at once,
       and sentence punctuation stays outside the variable */
    static const char *const ntp[] = {"synchronized to 10.0.0.1, stratum 3",
                                      "synchronized to LOCAL(0), stratum 10"};
    logtk_parser *p = run_parser("fuse", ntp, 2, NULL, NULL);
    CHECK_TEXT(p, 0, "synchronized to <*>, stratum <*>");
    CHECK(same_text(p, 0, 1));
    logtk_parser_free(p);

    static const char *const hosts[] = {"auth failure from 10.0.0.1 for guest",
                                        "auth failure from host.example.org for guest"};
    p = run_parser("fuse", hosts, 2, NULL, NULL);
    CHECK_TEXT(p, 1, "auth failure from <*> for guest");
    CHECK(same_text(p, 0, 1));
    logtk_parser_free(p);

    /* a plain word beside a masked one waits for the threshold */
    static const char *const proto[] = {"open through proxy HTTPS now",
                                        "open through proxy SOCKS5 now"};
    p = run_parser("fuse", proto, 2, NULL, NULL);
    CHECK(!same_text(p, 0, 1));
    CHECK_TEXT(p, 0, "open through proxy HTTPS now");
    logtk_parser_free(p);

    /* another shape of a variable in a variable slot ("<*>:<*>" beside "<*>") */
    static const char *const shapes[] = {"chrome.exe 10.0.0.1 open", "chrome.exe 10.0.0.2:443 open"};
    p = run_parser("fuse", shapes, 2, NULL, NULL);
    CHECK(same_text(p, 0, 1));
    logtk_parser_free(p);

    /* relative paths are variables */
    static const char *const paths[] = {"Error loading ./runtime_malloc: failed"};
    p = run_parser("fuse", paths, 1, NULL, NULL);
    CHECK_TEXT(p, 0, "Error loading <*>: failed");
    logtk_parser_free(p);
}


TEST(test_fuse_first_word)
{
    /* the first word is the event: many first words are still many templates */
    static const char *const verbs[] = {"boot (command 1)", "wait (command 2)",
                                        "halt (command 3)", "reboot (command 4)",
                                        "boot (command 5)"};
    logtk_parser *p = run_parser("fuse", verbs, 5, "threshold", "3");
    CHECK(logtk_parser_template_count(p) == 4);
    CHECK(!same_text(p, 0, 1));
    CHECK(same_text(p, 0, 4));
    CHECK_TEXT(p, 1, "wait (command <*>)");
    logtk_parser_free(p);

    /* ... unless the first words look like values (program names) */
    static const char *const progs[] = {"chrome.exe open through proxy", "git.exe open through proxy",
                                        "ssh.exe open through proxy", "curl.exe open through proxy"};
    p = run_parser("fuse", progs, 4, "threshold", "3");
    CHECK(same_text(p, 0, 3));
    CHECK_TEXT(p, 3, "<*> open through proxy");
    logtk_parser_free(p);

    /* a later position still becomes a variable by the word count */
    static const char *const users[] = {"session opened for cyrus", "session opened for news",
                                        "session opened for test"};
    p = run_parser("fuse", users, 3, "threshold", "3");
    CHECK(same_text(p, 0, 2));
    logtk_parser_free(p);
}

TEST(test_fuse_quick_hash)
{
    /* A line seen again takes the fast path; its quick token hashes (short
       tokens at the end of the line, long tokens, non-ASCII bytes, tokens
       only the byte-wise mask handles) must equal those of the full masking,
       or the line would make a new template (and the slow path asserts). */
    static const char *const lines[] = {
        "a", "ab 1", "x 12345678", "word abcdefghijklmnop 1.2.3.",
        "tail token is short: ok", "mixed blk_-42 id=7 user@host (TID 3).",
        "utf8 caf\xc3\xa9 na\xc3\xafve 9", "Jan Feb Mar report 2024",
        "pathy /var/log/x ./run ../up", "dots 1... 22.... end",
        "long 0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz_zz",
        "under_score-dash.dot Under_Score 12ab_cd",
        /* a hardware address the quick hash would read as "ea-<*>" (a numbered name) */
        "mac ea-6c-1d-99-72-d4 up",
    };
    size_t n = sizeof lines / sizeof lines[0];
    logtk_parser *p = NULL;
    CHECK_STATUS(logtk_parser_new(&p, "fuse"), LOGTK_OK);
    uint32_t first[16];
    for (size_t i = 0; i < n; i++) {
        logtk_event ev;
        CHECK_STATUS(logtk_parser_feed(p, lines[i], strlen(lines[i]), &ev), LOGTK_OK);
        first[i] = ev.template_id;
    }
    uint32_t count = logtk_parser_template_count(p);
    int same = 1;
    for (size_t i = 0; i < n; i++) {
        /* the same bytes as a copy without anything after them (the end of the buffer) */
        size_t len = strlen(lines[i]);
        char *copy = malloc(len ? len : 1);
        if (!copy)
            continue;
        memcpy(copy, lines[i], len);
        logtk_event ev;
        CHECK_STATUS(logtk_parser_feed(p, copy, len, &ev), LOGTK_OK);
        same &= ev.template_id == first[i] && !ev.created;
        free(copy);
    }
    CHECK(same);
    CHECK(logtk_parser_template_count(p) == count);
    logtk_slice t;
    uint64_t c;
    logtk_parser_template(p, first[3], &t, &c);
    CHECK_BYTES(t.ptr, t.len, "word abcdefghijklmnop <*>.");
    logtk_parser_template(p, first[7], &t, &c);
    CHECK_BYTES(t.ptr, t.len, "<*> <*> <*> report <*>");
    logtk_parser_free(p);
}

TEST(test_fuse_snapshot_bytes)
{
    /* the snapshot of a reloaded parser is byte for byte the one it came from,
       although the reload filled its tables in another order */
    logtk_parser *a = NULL, *b = NULL;
    CHECK_STATUS(logtk_parser_new(&a, "fuse"), LOGTK_OK);
    CHECK_STATUS(logtk_parser_new(&b, "fuse"), LOGTK_OK);
    char line[256];
    for (int i = 0; i < 300; i++) {
        corpus_line(line, sizeof line, i);
        CHECK_STATUS(logtk_parser_feed(a, line, strlen(line), NULL), LOGTK_OK);
    }
    void *s1 = NULL, *s2 = NULL;
    size_t l1 = 0, l2 = 0;
    CHECK_STATUS(logtk_parser_save(a, &s1, &l1), LOGTK_OK);
    CHECK_STATUS(logtk_parser_load(b, s1, l1), LOGTK_OK);
    CHECK_STATUS(logtk_parser_save(b, &s2, &l2), LOGTK_OK);
    CHECK(l1 == l2 && s1 && s2 && memcmp(s1, s2, l1) == 0);
    logtk_free(s1);
    logtk_free(s2);
    logtk_parser_free(a);
    logtk_parser_free(b);
}

/*
 * A parenthesised quantity ("(18.4 KB)") is one value, "(<*>)": a number
 * with its unit.  Loggers print it only sometimes, and the full-size
 * Loghub-2.0 ground truth keeps lines with and without it apart (a template
 * must match its line).  Other parenthesised text is part of the message.
 */
TEST(test_fuse_quantity_aside)
{
    static const char *const lines[] = {
        "conn close, 0 bytes sent, lifetime 1s",
        "conn close, 18846 bytes (18.4 KB) sent, lifetime 2s",
        "conn close, 9 bytes (2 ms), sent, lifetime 3s",
        "worker (54, powerd) exited",
        "worker exited",
        "job (TID 7) done",
        "job done",
        "(1 KB) first",
        "first",
    };
    logtk_parser *p = run_parser("fuse", lines, 9, NULL, NULL);
    CHECK(p != NULL);
    if (!p)
        return;
    CHECK_TEXT(p, 0, "conn close, <*> bytes sent, lifetime <*>");
    CHECK_TEXT(p, 1, "conn close, <*> bytes (<*>) sent, lifetime <*>");
    CHECK_TEXT(p, 2, "conn close, <*> bytes (<*>), sent, lifetime <*>");
    CHECK(!same_text(p, 0, 1));
    CHECK(!same_text(p, 3, 4));
    CHECK_TEXT(p, 3, "worker (<*>, powerd) exited");
    CHECK(!same_text(p, 5, 6));
    CHECK(!same_text(p, 7, 8)); /* an aside follows a value; it never opens the message */
    logtk_event ev;
    uint32_t id = 0;
    CHECK_STATUS(logtk_parser_assignment(p, 1, &id), LOGTK_OK);
    /* three parameters, the line's own text: "(<*>)" takes the two tokens of the aside */
    CHECK_STATUS(logtk_parser_extract(p, id, lines[1], strlen(lines[1]), &ev), LOGTK_OK);
    CHECK(ev.nparams == 3);
    if (ev.nparams == 3) {
        CHECK_BYTES(ev.params[0].ptr, ev.params[0].len, "18846");
        CHECK_BYTES(ev.params[1].ptr, ev.params[1].len, "18.4 KB");
        CHECK_BYTES(ev.params[2].ptr, ev.params[2].len, "2s");
    }
    logtk_parser_free(p);
}

/*
 * Line k of lines (fed to p) has nparams parameters, and parameter `at` of
 * them reads want.
 */
static void check_param(logtk_parser *p, const char *const *lines, uint64_t k, size_t nparams,
                        size_t at, const char *want)
{
    logtk_event ev;
    uint32_t id = 0;
    CHECK_STATUS(logtk_parser_assignment(p, k, &id), LOGTK_OK);
    CHECK_STATUS(logtk_parser_extract(p, id, lines[k], strlen(lines[k]), &ev), LOGTK_OK);
    CHECK(ev.nparams == nparams);
    if (ev.nparams == nparams && at < nparams)
        CHECK_BYTES(ev.params[at].ptr, ev.params[at].len, want);
}

/* Variables written the way the Loghub-2.0 ground truth writes them. */
TEST(test_fuse_rendering)
{
    static const char *const lines[] = {
        /* 0 */ "jk2_init() Found child 6725 in scoreboard slot 10",
        /* 1 */ "workerEnv.init() ok /etc/httpd/conf/workers2.properties",
        /* 2 */ "Received block blk_1 of size 67108864 from /10.251.42.84",
        /* 3 */ "Receiving block blk_2 src: /10.250.1.6:33145 dest: /10.250.1.6:50010",
        /* 4 */ "removing device node '/udev/vcsa2'",
        /* 5 */ "allocateBlock: /user/root/part-00590. blk_-17",
        /* 6 */ "Input split: hdfs://10.10.34.11:9000/pjhe/logs/2kSOSP.log:0+7",
        /* 7 */ "Remoting started; listening on addresses :[akka.tcp://sys@10.0.0.1:4000]",
        /* 8 */ "generating core.1234",
        /* 9 */ "domain served by node node-224 at jetty-6.1.26.",
        /* 10 */ "rhost=adsl-70-242.dsl.example.net user=root config null",
        /* 11 */ "setTodayTotalDetailSteps=20##30##4#5",
        /* 12 */ "connection from 1.2.3.4 () at noon",
        /* 13 */ "Slf4jLogger started",
        /* 14 */ "Starting instance host129 now",
        /* 15 */ "Adding to /default-rack",
    };
    size_t n = sizeof lines / sizeof lines[0];
    logtk_parser *p = run_parser("fuse", lines, n, NULL, NULL);
    CHECK(p != NULL);
    if (!p)
        return;
    static const char *const want[] = {
        "jk2_init() Found child <*> in scoreboard slot <*>",
        "workerEnv.init() ok <*>",
        "Received block <*> of size <*> from <*>",
        "Receiving block <*> src: <*> dest: <*>",
        "removing device node '<*>'",
        "allocateBlock: <*> <*>",
        "Input split: <*>",
        "Remoting started; listening on addresses :[<*>]",
        "generating core.<*>",
        "domain served by node <*> at jetty-<*>.",
        "rhost=<*> user=<*> config <*>",
        "setTodayTotalDetailSteps=<*>",
        "connection from <*> (<*>) at noon",
        "Slf4jLogger started",
        "Starting instance <*> now",
        "Adding to <*>",
    };
    for (size_t i = 0; i < n; i++) {
        CHECK_TEXT(p, i, want[i]);
    }
    /* the original text comes back as the parameters, a path's slash included */
    check_param(p, lines, 2, 3, 2, "/10.251.42.84");
    /* and a URL's, its scheme included */
    check_param(p, lines, 6, 1, 0, "hdfs://10.10.34.11:9000/pjhe/logs/2kSOSP.log:0+7");
    logtk_parser_free(p);

    /* the same lines again take the fast path to the same templates */
    p = run_parser("fuse", lines, n, NULL, NULL);
    uint32_t count = logtk_parser_template_count(p);
    int same = 1;
    for (size_t i = 0; i < n; i++) {
        logtk_event again;
        CHECK_STATUS(logtk_parser_feed(p, lines[i], strlen(lines[i]), &again), LOGTK_OK);
        same &= !again.created;
    }
    CHECK(same);
    CHECK(logtk_parser_template_count(p) == count);
    logtk_parser_free(p);

    /* a masked value in a slot counts as one of its distinct words */
    static const char *const users[] = {"session closed for user cyrus",
                                        "session closed for user news",
                                        "session closed for user root",
                                        "session closed for user test"};
    p = run_parser("fuse", users, 4, NULL, NULL);
    CHECK(same_text(p, 0, 3));
    CHECK_TEXT(p, 1, "session closed for user <*>");
    logtk_parser_free(p);
}

/* Rules that let fuse parse the Loghub datasets without the presets' regexes. */
TEST(test_fuse_own_masks)
{
    static const char *const lines[] = {
        /* 0 */ "proxy.example.org:5070 open through proxy 10.0.0.1:80 HTTPS",
        /* 1 */ "[ib_sm_sweep.c:1831]: NEW SWEEP",
        /* 2 */ "at Animator.destroySurface:2060 done",
        /* 3 */ "java.io.IOException: gone",
        /* 4 */ "conn close, lifetime <1 sec",
        /* 5 */ "conn close, lifetime 00:17",
        /* 6 */ "conn close, lifetime 01:07:37",
        /* 7 */ "wait >=5 min, then retry",
    };
    size_t n = sizeof lines / sizeof lines[0];
    logtk_parser *p = run_parser("fuse", lines, n, NULL, NULL);
    CHECK(p != NULL);
    if (!p)
        return;
    /* a host before a port is an address; file:line and class names are not hosts */
    CHECK_TEXT(p, 0, "<*> open through proxy <*> HTTPS");
    CHECK_TEXT(p, 1, "[ib_sm_sweep.c:<*>]: NEW SWEEP");
    CHECK_TEXT(p, 2, "at Animator.destroySurface:<*> done");
    CHECK_TEXT(p, 3, "java.io.IOException: gone");
    /* a bounded quantity is one value; two variable shapes in one slot make it variable */
    CHECK_TEXT(p, 4, "conn close, lifetime <*>");
    CHECK(same_text(p, 4, 5));
    CHECK(same_text(p, 4, 6));
    CHECK_TEXT(p, 7, "wait <*>, then retry");
    /* the parameter is the whole bounded quantity */
    uint32_t id = 0;
    logtk_event ev;
    CHECK_STATUS(logtk_parser_assignment(p, 4, &id), LOGTK_OK);
    CHECK_STATUS(logtk_parser_extract(p, id, lines[4], strlen(lines[4]), &ev), LOGTK_OK);
    CHECK(ev.nparams == 1);
    if (ev.nparams == 1)
        CHECK_BYTES(ev.params[0].ptr, ev.params[0].len, "<1 sec");
    /* seen again: the fast path gives the same templates */
    int same = 1;
    for (size_t i = 0; i < n; i++) {
        logtk_event again;
        CHECK_STATUS(logtk_parser_feed(p, lines[i], strlen(lines[i]), &again), LOGTK_OK);
        same &= !again.created;
    }
    CHECK(same);
    logtk_parser_free(p);

    /* a slot holding two units of size is part of the quantity; one unit stays a word */
    static const char *const sizes[] = {
        "stored (size 93.0 B, free 317.1 KB)", "stored (size 5.2 KB, free 5.2 KB)",
        "capacity 4.1 GB", "capacity 2.0 GB",
        "took 5 ms", "took 7 seconds",
    };
    p = run_parser("fuse", sizes, 6, NULL, NULL);
    CHECK(same_text(p, 0, 1));
    CHECK_TEXT(p, 0, "stored (size <*> <*>, free <*> KB)");
    CHECK_TEXT(p, 2, "capacity <*> GB");
    CHECK(!same_text(p, 4, 5)); /* only units of size */
    logtk_parser_free(p);

    /* the presets give fuse no regexes (Android's included), the other
       parsers theirs; but Spark's one fact, a size and the unit its
       magnitude picks, one value as all its ground truths write it */
    const logtk_dataset *hdfs = logtk_dataset_find("HDFS");
    CHECK(hdfs && ltk_dataset_masks_for(hdfs, "fuse")[0] == NULL);
    CHECK(hdfs && ltk_dataset_masks_for(hdfs, "FUSE")[0] == NULL);
    CHECK(hdfs && ltk_dataset_masks_for(hdfs, "drain")[0] != NULL);
    size_t presets = 0;
    for (const logtk_dataset *d; (d = logtk_dataset_at(presets)) != NULL; presets++) {
        const char *const *masks = ltk_dataset_masks_for(d, "fuse");
        if (strcmp(d->name, "Spark") == 0)
            CHECK(masks[0] != NULL && strcmp(masks[0], "\\b\\d+(\\.\\d+)? [KGTM]?B\\b") == 0 &&
                  masks[1] == NULL);
        else
            CHECK(masks[0] == NULL);
    }
    CHECK(presets >= 16);
    const logtk_dataset *android = logtk_dataset_find("Android");
    CHECK(android && ltk_dataset_masks_for(android, "drain")[0] != NULL);
}

/* The rules of round 3: which words stay words, lists, leader dots, fixed points. */
TEST(test_fuse_round3)
{
    /* a first word becomes a variable only when all its words look like values */
    static const char *const settings[] = {"tickTime set to 1", "maxSessionTimeout set to 2",
                                           "autopurge.purgeInterval set to 3",
                                           "minSessionTimeout set to 4"};
    logtk_parser *p = run_parser("fuse", settings, 4, "threshold", "3");
    CHECK(logtk_parser_template_count(p) == 4);
    CHECK(!same_text(p, 0, 1));
    CHECK_TEXT(p, 1, "maxSessionTimeout set to <*>");
    logtk_parser_free(p);

    /* "eth0" is a device name, kept; others in one slot are a variable */
    static const char *const links[] = {"Link Up on en0", "Link Up on en0",
                                        "allocating buffer for eth0", "allocating buffer for eth1",
                                        "allocating buffer for eth2", "allocating buffer for eth3",
                                        "login from host129 ok"};
    p = run_parser("fuse", links, 7, "threshold", "4");
    CHECK_TEXT(p, 0, "Link Up on en0");
    CHECK_TEXT(p, 2, "allocating buffer for <*>");
    CHECK(same_text(p, 2, 5));
    CHECK_TEXT(p, 6, "login from <*> ok"); /* more digits: a value */
    logtk_parser_free(p);

    /* past participles are the event, not a value: "VM Started" and "VM Paused" stay apart */
    static const char *const states[] = {"VM Started (Lifecycle Event)", "VM Paused (Lifecycle Event)",
                                         "VM Resumed (Lifecycle Event)", "VM Stopped (Lifecycle Event)",
                                         "VM crashed (Lifecycle Event)"};
    p = run_parser("fuse", states, 5, "threshold", "3");
    CHECK(logtk_parser_template_count(p) == 5);
    CHECK_TEXT(p, 1, "VM Paused (Lifecycle Event)");
    logtk_parser_free(p);
    /* ... while other words in that slot still count */
    static const char *const kinds[] = {"VM alpha (Lifecycle Event)", "VM beta (Lifecycle Event)",
                                        "VM Started (Lifecycle Event)"};
    p = run_parser("fuse", kinds, 3, "threshold", "3");
    CHECK(same_text(p, 0, 2));
    logtk_parser_free(p);

    /* leader dots separate a label from its value */
    static const char *const leaders[] = {"program interrupt: illegal instruction......0",
                                          "program interrupt: illegal instruction......1",
                                          "machine check: i-fetch......................0"};
    p = run_parser("fuse", leaders, 3, NULL, NULL);
    CHECK_TEXT(p, 0, "program interrupt: illegal instruction......<*>");
    CHECK(same_text(p, 0, 1));
    CHECK_TEXT(p, 2, "machine check: i-fetch......................<*>");
    logtk_parser_free(p);

    /* five or more values closing a line are one list; four are four fields
       until the same words close a line with another number of values
       (rule list-lengths; tests/parser_cases/fuse.test has more orders) */
    static const char *const lists[] = {
        "ask 10.0.0.1:50010 to delete blk_1",
        "ask 10.0.0.2:50010 to delete blk_1 blk_2 blk_3 blk_4 blk_5",
        "ask 10.0.0.3:50010 to delete blk_1 blk_2 blk_3 blk_4 blk_5 blk_6 blk_7 blk_8",
        "REPORT : 7 5 1 2",
        "REPORT : 7 5 1 2 9",
    };
    p = run_parser("fuse", lists, 5, NULL, NULL);
    CHECK_TEXT(p, 1, "ask <*> to delete <*>");
    CHECK(same_text(p, 0, 1));
    CHECK(same_text(p, 1, 2));
    CHECK_TEXT(p, 3, "REPORT : <*>");
    CHECK(same_text(p, 3, 4));
    check_param(p, lists, 2, 2, 1, "blk_1 blk_2 blk_3 blk_4 blk_5 blk_6 blk_7 blk_8");
    /* the list line seen again takes the same template (fast path = slow path) */
    logtk_event ev;
    uint32_t before = logtk_parser_template_count(p);
    CHECK_STATUS(logtk_parser_feed(p, lists[2], strlen(lists[2]), &ev), LOGTK_OK);
    CHECK(!ev.created && logtk_parser_template_count(p) == before);
    logtk_parser_free(p);
    /* a message that always prints four values keeps four fields */
    static const char *const fixed[] = {"REPORT : 7 5 1 2", "REPORT : 8 6 3 4"};
    p = run_parser("fuse", fixed, 2, NULL, NULL);
    CHECK_TEXT(p, 0, "REPORT : <*> <*> <*> <*>");
    CHECK(same_text(p, 0, 1));
    logtk_parser_free(p);

    /* a template's own text parses back to itself (logtk merge re-feeds them) */
    static const char *const texts[] = {"Mounted <*> (<*> filesystem).",
                                        "conn close, <*> bytes sent, lifetime <*>",
                                        "ask <*> to delete <*>",
                                        "program interrupt: illegal instruction......<*>",
                                        "conn close, <*> bytes (<*>) sent, lifetime <*>",
                                        "[<<*>>] do_page_fault+<*>"};
    p = run_parser("fuse", texts, 6, NULL, NULL);
    for (size_t i = 0; i < 6; i++) {
        CHECK_TEXT(p, i, texts[i]);
    }
    logtk_parser_free(p);
}

/* The rules of round 4: prefix pools, numbered names, and both kept across a snapshot
   (an account's slot: after "user" one would be a variable at its second, user-slots). */
static const char *const pool_lines[] = {
    "session opened for account cyrus by (uid=0)", "session closed for account cyrus",
    "session opened for account news by (uid=0)",  "session closed for account news",
    "session opened for account test by (uid=509)", "session closed for account test",
    "session opened for account root by LOGIN(uid=0)",
};

TEST(test_fuse_round4)
{
    /* three users in one group stay words: one short of the threshold */
    logtk_parser *p = run_parser("fuse", pool_lines, 6, NULL, NULL);
    CHECK(!same_text(p, 0, 2));
    CHECK(!same_text(p, 1, 3));
    CHECK_TEXT(p, 0, "session opened for account cyrus by (uid=<*>)");
    logtk_parser_free(p);

    /* a fourth user after the same words, with another ending, settles the slot */
    p = run_parser("fuse", pool_lines, 7, NULL, NULL);
    CHECK_TEXT(p, 0, "session opened for account <*> by (uid=<*>)");
    CHECK(same_text(p, 0, 2) && same_text(p, 2, 4));
    CHECK_TEXT(p, 6, "session opened for account <*> by LOGIN(uid=<*>)");
    /* the pool is per prefix: the closing lines (another prefix) still wait */
    CHECK(!same_text(p, 1, 3));
    logtk_parser_free(p);

    /* the pool needs the same prefix: other words before the slot do not count */
    static const char *const apart[] = {
        "lock held by alpha at (line=1)", "lock held by beta at (line=2)",
        "lock held by gamma at (line=3)", "lock freed by delta at LINE(line=4)",
        "lock held by omega at LINE(line=5) now"};
    p = run_parser("fuse", apart, 4, NULL, NULL);
    CHECK(!same_text(p, 0, 1));
    CHECK(!same_text(p, 1, 2));
    logtk_parser_free(p);
    /* after two words or more, a line of another length pools its word too:
       "omega" is the fourth holder after "lock held by" */
    p = run_parser("fuse", apart, 5, NULL, NULL);
    CHECK_TEXT(p, 0, "lock held by <*> at (line=<*>)");
    CHECK(same_text(p, 0, 1) && same_text(p, 1, 2));
    CHECK_TEXT(p, 3, "lock freed by delta at LINE(line=<*>)");
    logtk_parser_free(p);

    /* two numbered units in one slot make it a variable (rule unit-slots), whatever
       their letters; one alone stays a word, and so does a unit beside a word or a
       name of code spelled with a digit */
    static const char *const numbered[] = {
        "IRQ0 used by override.", "IRQ2 used by override.", "MDNS: IPV4 Addr: 10.0.0.1",
        "MDNS: IPV6 Addr: fe80::1", "Link Up on awdl0", "Link Up on en0",
        "Link Down on en0", "Link Down on en0"};
    static const char *const merged[] = {"<*> used by override.", "MDNS: <*> Addr: <*>",
                                         "Link Up on <*>"}; /* lines 0-1, 2-3, 4-5 */
    p = run_parser("fuse", numbered, 8, NULL, NULL);
    for (size_t k = 0; k < 3; k++) {
        CHECK_TEXT(p, 2 * k, merged[k]);
        CHECK(same_text(p, 2 * k, 2 * k + 1));
    }
    CHECK_TEXT(p, 6, "Link Down on en0");
    logtk_parser_free(p);
    static const char *const not_units[] = {"probe IRQ0 done", "probe fast done",
                                            "call createBean2 now", "call createBean3 now"};
    p = run_parser("fuse", not_units, 4, NULL, NULL);
    CHECK(logtk_parser_template_count(p) == 4);
    CHECK_TEXT(p, 0, "probe IRQ0 done");
    CHECK_TEXT(p, 2, "call createBean2 now");
    logtk_parser_free(p);

    /* a pool half learned before a snapshot completes after the reload */
    logtk_parser *first = NULL, *resumed = NULL;
    CHECK_STATUS(logtk_parser_new(&first, "fuse"), LOGTK_OK);
    CHECK_STATUS(logtk_parser_new(&resumed, "fuse"), LOGTK_OK);
    for (size_t i = 0; i < 6; i++)
        CHECK_STATUS(logtk_parser_feed(first, pool_lines[i], strlen(pool_lines[i]), NULL),
                     LOGTK_OK);
    void *snap = NULL;
    size_t len = 0;
    CHECK_STATUS(logtk_parser_save(first, &snap, &len), LOGTK_OK);
    CHECK_STATUS(logtk_parser_load(resumed, snap, len), LOGTK_OK);
    logtk_event ev;
    CHECK_STATUS(logtk_parser_feed(resumed, pool_lines[6], strlen(pool_lines[6]), &ev), LOGTK_OK);
    CHECK_STATUS(logtk_parser_feed(resumed, pool_lines[0], strlen(pool_lines[0]), &ev), LOGTK_OK);
    uint64_t c;
    logtk_slice t;
    logtk_parser_template(resumed, ev.template_id, &t, &c);
    CHECK_BYTES(t.ptr, t.len, "session opened for account <*> by (uid=<*>)");
    logtk_free(snap);
    logtk_parser_free(first);
    logtk_parser_free(resumed);
}

/*
 * Shards a and b saved and merged (logtk_parser_merge), with the checks
 * that every template of the result reads `text` and that their line
 * counts add up to `lines`: the merged parser, which the caller frees.
 */
static logtk_parser *merged_pair(logtk_parser *a, logtk_parser *b, const char *text,
                                 uint64_t lines)
{
    void *snaps[2] = {NULL, NULL};
    size_t lens[2] = {0, 0};
    CHECK_STATUS(logtk_parser_save(a, &snaps[0], &lens[0]), LOGTK_OK);
    CHECK_STATUS(logtk_parser_save(b, &snaps[1], &lens[1]), LOGTK_OK);
    logtk_parser *merged = NULL;
    CHECK_STATUS(logtk_parser_merge(&merged, 2, (const void *const *)snaps, lens, NULL), LOGTK_OK);
    CHECK(merged != NULL && logtk_parser_template_count(merged) >= 1);
    uint64_t counted = 0;
    for (uint32_t id = 1; merged && id <= logtk_parser_template_count(merged); id++) {
        uint64_t c;
        logtk_slice t;
        CHECK_STATUS(logtk_parser_template(merged, id, &t, &c), LOGTK_OK);
        CHECK_BYTES(t.ptr, t.len, text);
        counted += c;
    }
    CHECK(counted == lines);
    logtk_free(snaps[0]);
    logtk_free(snaps[1]);
    return merged;
}

/*
 * Rule list-lengths kept where fuse's state goes: a list message learned
 * with lists of two and three values, saved and reloaded, takes a list of
 * one (and of six) into its one template; and two shards, one that saw
 * only lists of two and one that saw only lists of one, merge into one
 * template, as one process that read both does.
 */
TEST(test_fuse_list_lengths_kept)
{
    static const char *const before[] = {"ask 10.0.0.1:50010 to delete blk_11 blk_12",
                                         "ask 10.0.0.3:50010 to delete blk_14 blk_15 blk_16"};
    static const char *const after[] = {
        "ask 10.0.0.2:50010 to delete blk_13",
        "ask 10.0.0.4:50010 to delete blk_1 blk_2 blk_3 blk_4 blk_5 blk_6"};
    logtk_parser *first = NULL, *resumed = NULL;
    CHECK_STATUS(logtk_parser_new(&first, "fuse"), LOGTK_OK);
    CHECK_STATUS(logtk_parser_new(&resumed, "fuse"), LOGTK_OK);
    for (size_t i = 0; i < 2; i++)
        CHECK_STATUS(logtk_parser_feed(first, before[i], strlen(before[i]), NULL), LOGTK_OK);
    void *snap = NULL;
    size_t len = 0;
    CHECK_STATUS(logtk_parser_save(first, &snap, &len), LOGTK_OK);
    CHECK_STATUS(logtk_parser_load(resumed, snap, len), LOGTK_OK);
    for (size_t i = 0; i < 2; i++) {
        logtk_event ev;
        CHECK_STATUS(logtk_parser_feed(resumed, after[i], strlen(after[i]), &ev), LOGTK_OK);
        uint64_t c;
        logtk_slice t;
        logtk_parser_template(resumed, ev.template_id, &t, &c);
        CHECK_BYTES(t.ptr, t.len, "ask <*> to delete <*>");
    }
    CHECK_STATUS(logtk_parser_finish(resumed), LOGTK_OK);
    /* the templates learned before the snapshot, lengths two and three, show the list's text */
    CHECK(logtk_parser_template_count(resumed) >= 2);
    for (uint32_t id = 1; id <= logtk_parser_template_count(resumed); id++) {
        uint64_t c;
        logtk_slice t;
        CHECK_STATUS(logtk_parser_template(resumed, id, &t, &c), LOGTK_OK);
        CHECK_BYTES(t.ptr, t.len, "ask <*> to delete <*>");
    }
    logtk_free(snap);
    logtk_parser_free(first);
    logtk_parser_free(resumed);

    /* two shards, each of one length, merged */
    logtk_parser *two = run_parser("fuse", before, 1, NULL, NULL);
    logtk_parser *one = run_parser("fuse", after, 1, NULL, NULL);
    logtk_parser_free(merged_pair(two, one, "ask <*> to delete <*>", 2));
    logtk_parser_free(two);
    logtk_parser_free(one);
}

/*
 * A merge's fold knows where a shard's words varied (the merge_hint and
 * merge_places hooks), which the template's text cannot tell from a masked
 * value: one shard learned "<*> (n.state), <*> (my state)" from states
 * varying at both places, another printed only "FOLLOWING ... FOLLOWING";
 * merged, the two are one template, as in one process (rule known-slots).
 * The merged state, saved and loaded, keeps those places: a new state pair
 * joins the template too.
 */
TEST(test_fuse_merge_word_places)
{
    static const char *const varied[] = {
        "note 1 (n.leader), LOOKING (n.state), LOOKING (my state)",
        "note 2 (n.leader), LEADING (n.state), LOOKING (my state)",
        "note 3 (n.leader), LOOKING (n.state), LEADING (my state)"};
    static const char *const one_state[] = {
        "note 4 (n.leader), FOLLOWING (n.state), FOLLOWING (my state)"};
    static const char *const general = "note <*> (n.leader), <*> (n.state), <*> (my state)";
    /* one process */
    static const char *const all[] = {varied[0], varied[1], varied[2], one_state[0]};
    logtk_parser *whole = run_parser("fuse", all, 4, NULL, NULL);
    for (uint64_t i = 0; i < 4; i++)
        CHECK_TEXT(whole, i, general);
    logtk_parser_free(whole);

    logtk_parser *a = run_parser("fuse", varied, 3, NULL, NULL);
    logtk_parser *b = run_parser("fuse", one_state, 1, NULL, NULL);
    CHECK_TEXT(b, 0, "note <*> (n.leader), FOLLOWING (n.state), FOLLOWING (my state)");
    logtk_parser *merged = merged_pair(a, b, general, 4);
    /* saved and loaded, the merged state reads a new pair of states as one process would */
    void *snap = NULL;
    size_t len = 0;
    logtk_parser *resumed = NULL;
    CHECK_STATUS(logtk_parser_new(&resumed, "fuse"), LOGTK_OK);
    CHECK_STATUS(logtk_parser_save(merged, &snap, &len), LOGTK_OK);
    CHECK_STATUS(logtk_parser_load(resumed, snap, len), LOGTK_OK);
    static const char *const next = "note 5 (n.leader), OBSERVING (n.state), OBSERVING (my state)";
    logtk_event ev;
    CHECK_STATUS(logtk_parser_feed(resumed, next, strlen(next), &ev), LOGTK_OK);
    CHECK_STATUS(logtk_parser_finish(resumed), LOGTK_OK);
    uint64_t c;
    logtk_slice t;
    CHECK_STATUS(logtk_parser_template(resumed, ev.template_id, &t, &c), LOGTK_OK);
    CHECK_BYTES(t.ptr, t.len, general);
    logtk_free(snap);
    logtk_parser_free(resumed);
    logtk_parser_free(merged);
    logtk_parser_free(a);
    logtk_parser_free(b);
}

/*
 * A key's value after ':' (rule colon-keys) in shards: one shard saw two
 * actions, "onReceive action:<*>", another one only; merged, they are one
 * template, as in one process.  The fold reads the first shard's
 * "action:<*>" as the slot's variable form because its words varied there
 * (merge_hint), where a masked port's "wpad:<*>" would read as one value.
 */
TEST(test_fuse_merge_colon_keys)
{
    static const char *const two[] = {"onReceive action:android.intent.action.BATTERY_LOW",
                                      "onReceive action:android.intent.action.SCREEN_OFF"};
    static const char *const one[] = {"onReceive action:android.intent.action.USER_PRESENT"};
    logtk_parser *a = run_parser("fuse", two, 2, NULL, NULL);
    logtk_parser *b = run_parser("fuse", one, 1, NULL, NULL);
    CHECK_TEXT(a, 0, "onReceive action:<*>");
    CHECK_TEXT(b, 0, "onReceive action:android.intent.action.USER_PRESENT");
    logtk_parser_free(merged_pair(a, b, "onReceive action:<*>", 3));
    logtk_parser_free(a);
    logtk_parser_free(b);
}

/* A line's header (time, level, host, component) is one "<*>" when no format cut it off. */
TEST(test_fuse_header)
{
    /* the weekday, the level and the host vary; the message decides the template */
    static const char *const apache[] = {
        "[Sun Dec 04 04:47:44 2005] [notice] workerEnv.init() ok /etc/httpd/conf/w.properties",
        "[Mon Dec 05 07:57:02 2005] [error] workerEnv.init() ok /etc/httpd/conf/w.properties",
        "Jun 14 15:16:01 combo sshd(pam_unix)[19939]: check pass; user unknown",
        "Jul  1 09:00:55 calvisitor-10-105 su(pam_unix)[1]: check pass; user unknown",
        "2015-10-18 18:01:47,978 INFO [main] org.apache.Foo: Created MRAppMaster",
        "2015-10-18 18:01:48,963 WARN [IPC Server handler 14] org.apache.Foo: Created MRAppMaster",
        "[10.30 16:49:06] chrome.exe - proxy.example.org:5070 close",
        "[07.26 13:30:34] chrome.exe *64 - www.example.com:80 close",
        "2015-07-29 17:41:44,747 - INFO  [QuorumPeer[myid=1]/0:2181:Leader@774] - Notification time out",
        "03-17 16:13:38.811  1702  2395 D WindowManager: Notification time out",
    };
    logtk_parser *p = run_parser("fuse", apache, 10, NULL, NULL);
    CHECK_TEXT(p, 0, "<*> workerEnv.init() ok <*>");
    CHECK(same_text(p, 0, 1));
    CHECK_TEXT(p, 2, "<*> check pass; user unknown");
    CHECK(same_text(p, 2, 3));
    /* spans of any number of tokens are one header */
    CHECK_TEXT(p, 4, "<*> Created MRAppMaster");
    CHECK(same_text(p, 4, 5));
    /* a "-" after the date closes the header: the program name is part of it */
    CHECK_TEXT(p, 6, "<*> <*> close");
    CHECK(same_text(p, 6, 7));
    /* "- LEVEL [thread] -" and logcat's "pid tid D Tag:" */
    CHECK_TEXT(p, 8, "<*> Notification time out");
    CHECK(same_text(p, 8, 9));
    logtk_event ev;
    CHECK_STATUS(logtk_parser_feed(p, apache[5], strlen(apache[5]), &ev), LOGTK_OK);
    CHECK(ev.nparams >= 1);
    if (ev.nparams >= 1)
        CHECK_BYTES(ev.params[0].ptr, ev.params[0].len,
                    "2015-10-18 18:01:48,963 WARN [IPC Server handler 14] org.apache.Foo:");
    logtk_parser_free(p);

    /* header=none: the whole line is the message, the weekday a first word */
    p = run_parser("fuse", apache, 2, "header", "none");
    CHECK(!same_text(p, 0, 1));
    logtk_parser_free(p);
    p = NULL;
    CHECK_STATUS(logtk_parser_new(&p, "fuse"), LOGTK_OK);
    CHECK_STATUS(logtk_parser_set_option(p, "header", "sometimes"), LOGTK_ERR_INVALID);
    logtk_parser_free(p);

    /* messages are not cut: no date or time, or an address rather than a time */
    static const char *const messages[] = {
        "Received block blk_1 of size 67108864 from /10.0.0.1",
        "182.254.114.110:80 open through proxy proxy.example.org:5070 HTTPS",
        "Starting MDS: done",
        "1.2.3 INFO version: loaded",
        "10.30 16 rows read",
    };
    p = run_parser("fuse", messages, 5, NULL, NULL);
    CHECK_TEXT(p, 0, "Received block <*> of size <*> from <*>");
    CHECK_TEXT(p, 1, "<*> open through proxy <*> HTTPS");
    CHECK_TEXT(p, 2, "Starting MDS: done");
    CHECK_TEXT(p, 3, "<*> INFO version: loaded");
    CHECK_TEXT(p, 4, "<*> <*> rows read");
    logtk_parser_free(p);

    /* a header alone, nothing after it, is a message */
    static const char *const bare[] = {"2015-10-18 18:01:47,978 INFO"};
    p = run_parser("fuse", bare, 1, NULL, NULL);
    CHECK_TEXT(p, 0, "<*> <*> INFO");
    logtk_parser_free(p);

    /* the final rows' parameters: the header's "<*>" takes the header's tokens
       as while the line was fed, not the first word of them (dnsmasq's log),
       nor the text up to a copy of the message's first word in the header
       (RFC 5424's application "su") */
    static const struct {
        const char *line, *text;
        size_t nparams;
        const char *params[5];
    } split[] = {
        {"Dec  5 01:28:53 dnsmasq[12047]: 1 127.0.0.1/56528 query[A] db0.lab.test from 127.0.0.1",
         "<*> <*> <*> query[A] <*> from <*>", 5,
         {"Dec  5 01:28:53 dnsmasq[12047]:", "1", "127.0.0.1/56528", "db0.lab.test", "127.0.0.1"}},
        {"<34>1 2026-12-05T01:12:17.003Z mymachine su 77 ID47 - su root failed on /dev/pts/8",
         "<*> su <*> failed on <*>", 3,
         {"<34>1 2026-12-05T01:12:17.003Z mymachine su 77 ID47 -", "root", "/dev/pts/8"}},
    };
    for (size_t c = 0; c < sizeof split / sizeof split[0]; c++) {
        p = run_parser("fuse", &split[c].line, 1, NULL, NULL);
        CHECK_TEXT(p, 0, split[c].text);
        CHECK_STATUS(logtk_parser_extract(p, 1, split[c].line, strlen(split[c].line), &ev),
                     LOGTK_OK);
        CHECK(params_are(&ev, split[c].nparams, split[c].params));
        logtk_parser_free(p);
    }
}

/* A DNS host name is a value; code names spelled with dots stay words. */
TEST(test_fuse_host_names)
{
    static const char *const lines[] = {
        "Could not resolve proxy.example.org error 11001",
        "Could not resolve www.example.co.uk.",
        "loaded org.apache.hadoop.ipc now",
        "mapred.tip.id is deprecated. Instead, use mapreduce.task.id",
        "started nova.compute.manager ok",
        "spawned chrome.exe ok",
        "bundle com.example.app ok",
    };
    logtk_parser *p = run_parser("fuse", lines, 7, NULL, NULL);
    CHECK(p != NULL);
    if (!p)
        return;
    CHECK_TEXT(p, 0, "Could not resolve <*> error <*>");
    CHECK_TEXT(p, 1, "Could not resolve <*>.");
    CHECK_TEXT(p, 2, "loaded org.apache.hadoop.ipc now");
    CHECK_TEXT(p, 3, "mapred.tip.id is deprecated. Instead, use mapreduce.task.id");
    CHECK_TEXT(p, 4, "started nova.compute.manager ok");
    CHECK_TEXT(p, 5, "spawned chrome.exe ok");
    CHECK_TEXT(p, 6, "bundle com.example.app ok");
    logtk_parser_free(p);
}

/*
 * A parenthesised word right after a value, in a line that is a known
 * message without it, annotates the value: the known template, its "<*>"
 * covering both.  One every line prints stays part of the message.
 */
TEST(test_fuse_annotated_value)
{
    static const char *const lines[] = {
        "a.example.org:443 error : connect failed, status 503",
        "b.example.org:80 error : connect failed, status 403",
        "c.example.org:443 (IPv6) error : connect failed, status 503",
        "vote 1 (n.leader), 0x0 (n.zxid)",
        "vote 2 (n.leader), 0x1 (n.zxid)",
    };
    logtk_parser *p = run_parser("fuse", lines, 5, NULL, NULL);
    CHECK(p != NULL);
    if (!p)
        return;
    CHECK_TEXT(p, 2, "<*> error : connect failed, status <*>");
    CHECK(same_text(p, 0, 2));
    CHECK_TEXT(p, 4, "vote <*> (n.leader), <*> (n.zxid)");
    logtk_event ev;
    uint32_t id = 0;
    CHECK_STATUS(logtk_parser_assignment(p, 2, &id), LOGTK_OK);
    CHECK_STATUS(logtk_parser_extract(p, id, lines[2], strlen(lines[2]), &ev), LOGTK_OK);
    CHECK(ev.nparams == 2);
    if (ev.nparams == 2)
        CHECK_BYTES(ev.params[0].ptr, ev.params[0].len, "c.example.org:443 (IPv6)");
    logtk_parser_free(p);
}

/*
 * A kernel stack frame "[<addr>] name+0xOFF/0xLEN": the function name is
 * the message, the address, offset and length are its values; frames of
 * different functions stay apart however many there are.
 */
TEST(test_fuse_stack_frames)
{
    static const char *const lines[] = {
        "[<02114537>] do_page_fault+0x12f/0x446", "[<0210c3f8>] sys_read+0x3c/0x70",
        "[<0210c3f9>] sys_write+0x3c/0x70",       "[<0210c3fa>] vfs_read+0x3c/0x70",
        "[<0210c3fb>] vfs_write+0x1c/0x70",       "[<0210c3fc>] schedule+0x3c/0x90",
        "[<0210c3fd>] schedule+0x4c/0x94",        "[<0210c3fe>] do_exit+0x3c/0x70",
    };
    logtk_parser *p = run_parser("fuse", lines, 8, NULL, NULL);
    CHECK(p != NULL);
    if (!p)
        return;
    CHECK_TEXT(p, 0, "[<<*>>] do_page_fault+<*>");
    CHECK_TEXT(p, 7, "[<<*>>] do_exit+<*>");
    CHECK(same_text(p, 5, 6));
    CHECK(logtk_parser_template_count(p) == 7);
    logtk_parser_free(p);
}

/*
 * The line cache (fuse_shape.c) lets a line stand for another of its shape,
 * digits aside, only when no masked form kept a digit: a name of code
 * ("createBean2"), kept as a word, tells lines apart although only a digit differs,
 * while a value ("12") does not.  Both through the quick hash (a plain
 * token) and through the mask and its memo (a token with punctuation).
 */
TEST(test_fuse_shape_cache_digits)
{
    static const char *const lines[] = {
        "took 12 ms",          "took 47 ms",          "took 47, then 3 ms",
        "took 12, then 9 ms",  "call createBean2 now",  "call createBean3 now",
        "call createBean2 now",  "call createBean2, now", "call createBean3, now",
        "call createBean3, now", "call createBean2, now",
    };
    logtk_parser *p = run_parser("fuse", lines, 11, NULL, NULL);
    CHECK(p != NULL);
    CHECK_TEXT(p, 0, "took <*> ms");
    CHECK(same_text(p, 0, 1));
    CHECK_TEXT(p, 2, "took <*>, then <*> ms");
    CHECK(same_text(p, 2, 3));
    CHECK_TEXT(p, 4, "call createBean2 now");
    CHECK_TEXT(p, 5, "call createBean3 now");
    CHECK(same_text(p, 4, 6));
    CHECK_TEXT(p, 7, "call createBean2, now");
    CHECK_TEXT(p, 8, "call createBean3, now");
    CHECK(same_text(p, 8, 9));
    CHECK(same_text(p, 7, 10));
    logtk_parser_free(p);
}

/*
 * The line cache is a cache: with "line_cache=none" every line is masked and
 * hashed token by token, and each line gets the same template and the same
 * parameters as with it.  Lines made of pieces where a digit decides the
 * most (kept names, numbered names, dates and times of a header, hex,
 * units, asides, bounds, names of code, rsyslog's "#012" escapes, read by
 * their digits' values), each fed again with other digits,
 * and some with a digit where a letter was: a kept name then takes many
 * values in lines of one shape (the cache's second level).
 */
/*
 * A fuse handle with its line cache and one without ("line_cache=none"),
 * both in *cached and *plain; 0 (both freed, NULL) when either could not be
 * made.
 */
static int new_cached_and_plain(logtk_parser **cached, logtk_parser **plain)
{
    *cached = new_parser("fuse");
    *plain = new_parser("fuse");
    CHECK(*cached != NULL && *plain != NULL);
    if (*cached == NULL || *plain == NULL) {
        logtk_parser_free(*cached);
        logtk_parser_free(*plain);
        *cached = *plain = NULL;
        return 0;
    }
    CHECK_STATUS(logtk_parser_set_option(*plain, "line_cache", "none"), LOGTK_OK);
    return 1;
}

/* lines[0..n) fed to both handles of new_cached_and_plain(): each event the same template. */
static void check_cached_as_plain(const char *const *lines, size_t n)
{
    logtk_parser *cached, *plain;
    if (!new_cached_and_plain(&cached, &plain))
        return;
    for (size_t i = 0; i < n; i++) {
        logtk_event a, b;
        const size_t len = strlen(lines[i]);
        CHECK_STATUS(logtk_parser_feed(cached, lines[i], len, &a), LOGTK_OK);
        /* a stays as it is while the other handle is fed */
        CHECK_STATUS(logtk_parser_feed(plain, lines[i], len, &b), LOGTK_OK);
        CHECK(a.template_id == b.template_id && a.nparams == b.nparams);
        CHECK(a.template_text.len == b.template_text.len &&
              memcmp(a.template_text.ptr, b.template_text.ptr, a.template_text.len) == 0);
    }
    logtk_parser_free(cached);
    logtk_parser_free(plain);
}

/*
 * Lines of one shape that a digit's value would read apart: a level numbered
 * as Slurm and PostgreSQL number theirs ("WRN1:" beside "WRN8:", found by
 * fuzz_parse: the cache gave the second line the first one's header), an
 * httpd trace level, a basic date.  Each pair gets one answer, cached or not.
 */
TEST(test_fuse_line_cache_digit_values)
{
    static const char *const pairs[][2] = {
        {"1:10 WRN1: 0", "8:87 WRN8: 7"},
        {"12:00 debug2: x 1", "12:00 debug7: x 1"},
        {"[Mon Dec 07 10:00:00 2026] [core:trace1] x 1", "[Mon Dec 07 10:00:00 2026] [core:trace9] x 1"},
        {"20261207-15:27:46 x 1", "20269907-15:27:46 x 1"},
    };
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++)
        check_cached_as_plain(pairs[k], 2);
}

TEST(test_fuse_line_cache_is_a_cache)
{
    static const char *const pieces[] = {
        "eth0",      "eth1",        "node-12",      "core.7",      "IPv6",       "L2",
        "2015-10-18", "16:49:06",   "17/06/09",     "[main]",      "INFO",       "sshd[42]:",
        "0x1f",      "a41e8f",      "38101a0b-2096", "deadbeef",   "(1.2",       "KB)",
        "<1",        "sec",         "jk2_init",     "user=root",   "10.0.0.1:80", "blk_42",
        "do_exit+0x12/0x40",        "x86_64",       "-",           "took",       "ms,",
        "at",        "2d",          "v2",           "a1b2c3d4e5f6", "::1",        "fe80::1",
        "ns::f2",    "=",           "id=7",         "12345",       "A1B2C3D4",   "uuid:",
        "time:",     "<*>",         "..",           "a..1",        "\"q7\"",     "(x)",
        "mod_jk2",   "NAT64",       "createBean2",  "enable_2G",   "Thunderbird_D8", "RFC2616",
        "foo()#012KeyError:",       "last):#012",   "issue#123",   "#012",       "a#037b",
    };
    const size_t npieces = sizeof pieces / sizeof pieces[0];
    enum { LINES = 3000 };
    static char text[LINES][160];
    const char *lines[LINES];
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    for (size_t i = 0; i < LINES; i++) {
        if (i % 3 == 2) {
            /* the line before, another digit at each digit, and once a letter */
            memcpy(text[i], text[i - 1], sizeof text[i]);
            for (char *c = text[i]; *c; c++) {
                seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                if (*c >= '0' && *c <= '9')
                    *c = (seed >> 60) == 0 ? 'a' : (char)('0' + (seed >> 33) % 10);
            }
        } else {
            size_t len = 0;
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            size_t words = 2 + (seed >> 33) % 7;
            for (size_t w = 0; w < words; w++) {
                seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                const char *piece = pieces[(seed >> 33) % npieces];
                size_t n = strlen(piece);
                if (len + n + 2 >= sizeof text[i])
                    break;
                if (len)
                    text[i][len++] = (seed >> 20) % 5 ? ' ' : '\t';
                memcpy(text[i] + len, piece, n);
                len += n;
            }
            text[i][len] = '\0';
        }
        lines[i] = text[i];
    }
    /* fed side by side: each event the same (template, parameters as places in the line) */
    logtk_parser *cached, *plain;
    if (!new_cached_and_plain(&cached, &plain))
        return;
    size_t differ = 0;
    for (size_t i = 0; i < LINES; i++) {
        logtk_event a, b;
        size_t n = strlen(lines[i]);
        CHECK_STATUS(logtk_parser_feed(cached, lines[i], n, &a), LOGTK_OK);
        /* a stays as it is while the other handle is fed */
        CHECK_STATUS(logtk_parser_feed(plain, lines[i], n, &b), LOGTK_OK);
        int same = a.template_id != 0 && b.template_id == a.template_id && b.nparams == a.nparams;
        for (size_t k = 0; same && k < a.nparams; k++)
            same = b.params[k].ptr == a.params[k].ptr && b.params[k].len == a.params[k].len;
        differ += !same;
    }
    CHECK(differ == 0);
    CHECK_STATUS(logtk_parser_finish(cached), LOGTK_OK);
    CHECK_STATUS(logtk_parser_finish(plain), LOGTK_OK);
    for (size_t i = 0; i < LINES; i++) {
        logtk_slice a = text_of(cached, i), b = text_of(plain, i);
        differ += a.len != b.len || memcmp(a.ptr, b.ptr, a.len) != 0;
    }
    CHECK(differ == 0);
    CHECK(logtk_parser_template_count(cached) == logtk_parser_template_count(plain));
    logtk_parser_free(cached);
    logtk_parser_free(plain);
    /*
     * A mask that reads a digit's value (rsyslog's "#012" is text, "#789" a
     * value): a line of the shape that masked its digits must not stand for
     * the line whose digits are an escape (found by fuzz_parse).
     */
    static const char *const by_value[] = {"x foo()#789KeyError: a", "x foo()#012KeyError: a",
                                           "x foo()#345KeyError: a", "x foo()#011KeyError: a"};
    check_cached_as_plain(by_value, sizeof by_value / sizeof by_value[0]);
    /* the value is checked */
    logtk_parser *p = NULL;
    CHECK_STATUS(logtk_parser_new(&p, "fuse"), LOGTK_OK);
    CHECK_STATUS(logtk_parser_set_option(p, "line_cache", "sometimes"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_parser_set_option(p, "line_cache", "shapes"), LOGTK_OK);
    logtk_parser_free(p);
}

/* ltk_zero_digits() reads each of '0'..'9' as '0' and leaves every other byte, at every place. */
TEST(test_fuse_zero_digits)
{
    int wrong = 0;
    for (unsigned b = 0; b < 256; b++)
        for (unsigned place = 0; place < 8; place++) {
            unsigned char in[8], out[8];
            for (unsigned k = 0; k < 8; k++)
                in[k] = (unsigned char)(k == place ? b : (b * 7 + k * 31) & 0xff);
            uint64_t w, z;
            memcpy(&w, in, 8);
            z = ltk_zero_digits(w);
            memcpy(out, &z, 8);
            for (unsigned k = 0; k < 8; k++)
                wrong += out[k] != (in[k] >= '0' && in[k] <= '9' ? '0' : in[k]);
        }
    CHECK(wrong == 0);
    /* shapes: equal for lines that differ in digits only, else (almost surely) different */
    CHECK(ltk_line_shape("took 12 ms", 10) == ltk_line_shape("took 47 ms", 10));
    CHECK(ltk_line_shape("took 12 ms", 10) != ltk_line_shape("took 12 ks", 10));
    CHECK(ltk_line_shape("took 123 ms", 11) != ltk_line_shape("took 12 ms", 10));
    CHECK(ltk_line_shape("id 0123456789abcdef:77", 22) == ltk_line_shape("id 9876543210abcdef:01", 22));
    CHECK(ltk_line_shape("id 0123456789abcdef:77", 22) != ltk_line_shape("id 0123456789abcdeg:77", 22));
    CHECK(ltk_line_shape("", 0) != 0);
    /* the length is not undone by the first byte: lines of NUL bytes but the
       first, whose first bytes differ as their lengths do (xor), differ */
    CHECK(ltk_line_shape("\0", 1) != ltk_line_shape("\x03\0", 2));
    {
        char x[40] = {0}, y[40] = {0};
        int met = 0;
        for (size_t n1 = 1; n1 < 40; n1++)
            for (size_t n2 = n1 + 1; n2 <= 40 && n2 < n1 + 8; n2++)
                for (unsigned b = 0; b < 256; b++) {
                    x[0] = (char)b;
                    y[0] = (char)(b ^ n1 ^ n2);
                    met += ltk_line_shape(x, n1) == ltk_line_shape(y, n2);
                }
        CHECK(met == 0);
    }
}

/*
 * A slot keeps its first word in its group and pool and the next seven in a
 * side block.  Words that never make a variable alone (participles) put
 * seven words of seven templates in one slot; a parser resumed from a
 * snapshot knows all of them: when an eighth, plain word makes the slot a
 * variable, all seven templates take the new one's text, as in the
 * uninterrupted parser, and both save the same bytes.
 */
TEST(test_fuse_slot_words_survive_snapshot)
{
    static const char *const done[] = {"Started", "Stopped", "Paused", "Resumed",
                                       "Created", "Deleted", "Renamed"};
    logtk_parser *whole = NULL, *first = NULL, *resumed = NULL;
    CHECK_STATUS(logtk_parser_new(&whole, "fuse"), LOGTK_OK);
    CHECK_STATUS(logtk_parser_new(&first, "fuse"), LOGTK_OK);
    CHECK_STATUS(logtk_parser_new(&resumed, "fuse"), LOGTK_OK);
    char line[128];
    for (int i = 0; i < 7; i++) {
        snprintf(line, sizeof line, "service alpha %s by cron", done[i]);
        feed_both(whole, first, line);
    }
    /* participles stay words: seven lines, seven templates */
    CHECK(logtk_parser_template_count(first) == 7);
    resume_from(first, resumed);
    feed_both(whole, resumed, "service alpha Backup by cron");
    for (uint32_t id = 1; id <= 7; id++) {
        logtk_slice t;
        uint64_t c;
        CHECK_STATUS(logtk_parser_template(resumed, id, &t, &c), LOGTK_OK);
        CHECK_BYTES(t.ptr, t.len, "service alpha <*> by cron");
    }
    void *s1 = NULL, *s2 = NULL;
    size_t l1 = 0, l2 = 0;
    CHECK_STATUS(logtk_parser_save(whole, &s1, &l1), LOGTK_OK);
    CHECK_STATUS(logtk_parser_save(resumed, &s2, &l2), LOGTK_OK);
    CHECK(l1 == l2 && s1 && s2 && memcmp(s1, s2, l1) == 0);
    logtk_free(s1);
    logtk_free(s2);
    logtk_parser_free(whole);
    logtk_parser_free(first);
    logtk_parser_free(resumed);
}

/*
 * Rule known-slots keeps no state of its own in a snapshot: which templates
 * took words where is read again from the loaded groups.  A resumed parser
 * puts a line of new words at two variables of a template learned before the
 * snapshot into that template, as the uninterrupted one does.
 */
TEST(test_fuse_known_slots_survive_snapshot)
{
    logtk_parser *whole = NULL, *first = NULL, *resumed = NULL;
    CHECK_STATUS(logtk_parser_new(&whole, "fuse"), LOGTK_OK);
    CHECK_STATUS(logtk_parser_new(&first, "fuse"), LOGTK_OK);
    CHECK_STATUS(logtk_parser_new(&resumed, "fuse"), LOGTK_OK);
    /* words vary at the state slot, then one at the package slot (kiwi) */
    static const char *const states[] = {"alpha", "beta", "gamma", "delta"};
    char line[128];
    for (int i = 0; i < 4; i++) {
        snprintf(line, sizeof line, "status %s %d 1.0", states[i], 11 + i);
        feed_both(whole, first, line);
    }
    feed_both(whole, first, "status alpha kiwi 1.0");
    resume_from(first, resumed);
    static const char fresh[] = "status epsilon vole 1.0";
    logtk_event a, b;
    CHECK_STATUS(logtk_parser_feed(whole, fresh, strlen(fresh), &a), LOGTK_OK);
    CHECK_STATUS(logtk_parser_feed(resumed, fresh, strlen(fresh), &b), LOGTK_OK);
    logtk_slice ta, tb;
    uint64_t ca, cb;
    CHECK_STATUS(logtk_parser_template(whole, a.template_id, &ta, &ca), LOGTK_OK);
    CHECK_STATUS(logtk_parser_template(resumed, b.template_id, &tb, &cb), LOGTK_OK);
    CHECK_BYTES(ta.ptr, ta.len, "status <*> <*> <*>");
    CHECK_BYTES(tb.ptr, tb.len, "status <*> <*> <*>");
    CHECK(a.template_id == b.template_id);
    CHECK(logtk_parser_template_count(whole) == logtk_parser_template_count(resumed));
    logtk_parser_free(whole);
    logtk_parser_free(first);
    logtk_parser_free(resumed);
}

/*
 * A line of 32 bytes or more is hashed in four lanes (line_shape.c): every
 * byte of every lane counts, digits as '0', and a word moved to another lane
 * makes another shape.  A lane left out of the join would let lines that
 * differ there share a shape, and take each other's sequence hash.  The
 * last block overlaps the one before, and a shorter line is read in
 * overlapping words: every byte counts at every length.
 */
TEST(test_fuse_shape_long_lines)
{
    char a[200], b[200];
    uint64_t seed = 7;
    for (size_t i = 0; i < sizeof a; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        a[i] = (seed >> 60) < 4 ? (char)('0' + (seed >> 40) % 10) : (char)('a' + (seed >> 40) % 26);
    }
    for (size_t n = 1; n <= sizeof a; n++) {
        uint64_t shape = ltk_line_shape(a, n);
        for (size_t i = 0; i < n; i++) {
            memcpy(b, a, n);
            if (a[i] >= '0' && a[i] <= '9') {
                b[i] = a[i] == '9' ? '0' : (char)(a[i] + 1); /* another digit: same shape */
                CHECK(ltk_line_shape(b, n) == shape);
            } else {
                b[i] = a[i] == 'z' ? 'a' : (char)(a[i] + 1); /* another letter: another shape */
                CHECK(ltk_line_shape(b, n) != shape);
            }
        }
        /* the words of two lanes swapped */
        for (size_t lane = 1; lane < 4 && n >= 32; lane++) {
            memcpy(b, a, n);
            memcpy(b, a + 8 * lane, 8);
            memcpy(b + 8 * lane, a, 8);
            if (memcmp(a, b, n) != 0)
                CHECK(ltk_line_shape(b, n) != shape);
        }
    }
}

/*
 * A line whose masked form keeps a digit ("createBean2") answers the lines of
 * its shape only when those tokens are the same bytes: "createBean3" in a line
 * of the same shape is another message, "createBean2" again is the same one.
 */
TEST(test_fuse_shape_kept_digits)
{
    static const char *const lines[] = {
        "call createBean2 state 12 up", "call createBean2 state 34 up", "call createBean3 state 56 up",
        "call createBean2 state 78 up", "call createBean3 state 90 up",
    };
    logtk_parser *p = run_parser("fuse", lines, 5, NULL, NULL);
    CHECK(p != NULL);
    CHECK_TEXT(p, 0, "call createBean2 state <*> up");
    CHECK(same_text(p, 0, 1));
    CHECK_TEXT(p, 2, "call createBean3 state <*> up");
    CHECK(same_text(p, 0, 3));
    CHECK(same_text(p, 2, 4));
    logtk_parser_free(p);
}

/*
 * The eight-bytes-at-once search for '<', '.' and ':' in a word of the masked
 * line: every place, no near miss, and nothing from the bytes after the word.
 */
TEST(test_fuse_word_marks)
{
    char s[40 + 8];
    for (size_t n = 0; n <= 40; n++) {
        for (size_t i = 0; i < n; i++) /* '<', '.' and ':' with the high bit set */
            s[i] = (char)(i % 3 == 0 ? 0xbc : i % 3 == 1 ? 0xae : 0xba);
        for (size_t i = n; i < n + 8; i++)
            s[i] = i % 3 == 0 ? '<' : i % 3 == 1 ? '.' : ':'; /* past the end: not the word's */
        CHECK(ltk_fuse_word_marks(s, n) == 0);
        for (size_t at = 0; at < n; at++) {
            char keep = s[at];
            s[at] = '<';
            CHECK(ltk_fuse_word_marks(s, n) == LTK_FUSE_HAS_OPEN);
            s[at] = '.';
            CHECK(ltk_fuse_word_marks(s, n) == LTK_FUSE_HAS_DOT);
            s[at] = ':';
            CHECK(ltk_fuse_word_marks(s, n) == LTK_FUSE_HAS_COLON);
            s[at] = keep;
        }
        if (n >= 3) {
            s[0] = '.';
            s[n / 2] = ':';
            s[n - 1] = '<';
            CHECK(ltk_fuse_word_marks(s, n) ==
                  (LTK_FUSE_HAS_OPEN | LTK_FUSE_HAS_DOT | LTK_FUSE_HAS_COLON));
        }
    }
}

/*
 * A machine word in hex whose digits are all letters is a value like any
 * other hex number; a shorter word of those letters, or one of mixed case,
 * is a word.
 */
TEST(test_fuse_hex_words)
{
    static const char *const lines[] = {
        "setSystemUiVisibility vis=0 mask=ffffffff done",
        "setSystemUiVisibility vis=4 mask=0000ff00 done",
        "record faded added to the decade list",
        "key DEADBEEF dropped",
        /* another message: beside "key <*>" the word would be a field's value
           (field-words), whatever its case */
        "name DeadBeef kept",
    };
    logtk_parser *p = run_parser("fuse", lines, 5, NULL, NULL);
    CHECK(p != NULL);
    if (!p)
        return;
    CHECK_TEXT(p, 0, "setSystemUiVisibility vis=<*> mask=<*> done");
    CHECK(same_text(p, 0, 1));
    CHECK_TEXT(p, 2, "record faded added to the decade list");
    CHECK_TEXT(p, 3, "key <*> dropped");
    CHECK_TEXT(p, 4, "name DeadBeef kept");
    logtk_parser_free(p);
}

/*
 * A slot that shows two different dotted names (packages, actions) is a
 * variable at once, whatever else it showed; one dotted name beside a plain
 * word, the same name again, two calls or stack frames, or two names as a
 * message's first word leave the slot as it is.
 */
TEST(test_fuse_dotted_slots)
{
    static const char *const lines[] = {
        "received broadcast android.intent.action.TIME_TICK",
        "received broadcast android.intent.action.SCREEN_ON",
        "loaded module org.example.cache now",
        "loaded module plugins now",
        "stopped service org.example.Cache",
        "stopped service org.example.Cache",
        "at com.example.orderd.OrderService.close(OrderService.java:212)",
        "at com.example.orderd.OrderController.handle(OrderController.java:88)",
        "rpc.statd startup succeeded",
        "rpc.idmapd startup succeeded",
        "fetched org.example.a, then plain",
        "fetched cache, then plain",
        "fetched org.example.b, then plain",
    };
    logtk_parser *p = run_parser("fuse", lines, 13, NULL, NULL);
    CHECK(p != NULL);
    if (!p)
        return;
    CHECK_TEXT(p, 0, "received broadcast <*>");
    CHECK(same_text(p, 0, 1));
    CHECK_TEXT(p, 2, "loaded module org.example.cache now");
    CHECK_TEXT(p, 3, "loaded module plugins now");
    CHECK_TEXT(p, 4, "stopped service org.example.Cache");
    /* stack frames are code: each its own message */
    CHECK_TEXT(p, 6, "at com.example.orderd.OrderService.close(OrderService.java:<*>)");
    CHECK_TEXT(p, 7, "at com.example.orderd.OrderController.handle(OrderController.java:<*>)");
    /* the first word names the actor */
    CHECK_TEXT(p, 8, "rpc.statd startup succeeded");
    CHECK_TEXT(p, 9, "rpc.idmapd startup succeeded");
    /* two names, whatever came between them (the order of lines does not matter) */
    CHECK_TEXT(p, 10, "fetched <*>, then plain");
    CHECK(same_text(p, 10, 11));
    CHECK(same_text(p, 10, 12));
    logtk_parser_free(p);
}

/*
 * A rule shown online by a line (text-tails, transitions): lines[0..2] keep
 * templates of their own (the third reads `before`), the fourth shows the
 * rule, goes to the template `folded` at once, and the templates made
 * before join it then (not at the end); the fifth goes there as it is fed,
 * with no template made.  Returns the parser (NULL on failure), and in
 * *resumed a parser loaded from its snapshot, which knows what it learned.
 */
static logtk_parser *shown_online(const char *const lines[5], const char *before,
                                  const char *folded, logtk_parser **resumed)
{
    logtk_parser *p = NULL;
    *resumed = NULL;
    CHECK_STATUS(logtk_parser_new(&p, "fuse"), LOGTK_OK);
    CHECK_STATUS(logtk_parser_new(resumed, "fuse"), LOGTK_OK);
    if (!p || !*resumed) {
        logtk_parser_free(p);
        logtk_parser_free(*resumed);
        *resumed = NULL;
        return NULL;
    }
    logtk_event ev;
    uint32_t first = 0;
    for (size_t i = 0; i < 3; i++) {
        CHECK_STATUS(logtk_parser_feed(p, lines[i], strlen(lines[i]), &ev), LOGTK_OK);
        first = i == 0 ? ev.template_id : first;
    }
    CHECK_BYTES(ev.template_text.ptr, ev.template_text.len, before); /* not yet */
    CHECK_STATUS(logtk_parser_feed(p, lines[3], strlen(lines[3]), &ev), LOGTK_OK);
    CHECK_BYTES(ev.template_text.ptr, ev.template_text.len, folded);
    logtk_slice t;
    uint64_t c;
    CHECK_STATUS(logtk_parser_template(p, first, &t, &c), LOGTK_OK);
    CHECK_BYTES(t.ptr, t.len, folded); /* joined before the end */
    const uint32_t count = logtk_parser_template_count(p);
    CHECK_STATUS(logtk_parser_feed(p, lines[4], strlen(lines[4]), &ev), LOGTK_OK);
    CHECK_BYTES(ev.template_text.ptr, ev.template_text.len, folded);
    CHECK(logtk_parser_template_count(p) == count); /* folded as it was read */
    resume_from(p, *resumed);
    return p;
}

/*
 * Rule text-tails online: the fourth tail of words after "subject=<*>", of
 * two lengths, shows the key to hold text (shown_online); a reloaded parser
 * knows the key, and another message's one tail after it is its value as
 * soon as it is fed.
 */
TEST(test_fuse_text_tails_online)
{
    static const char *const lines[] = {
        "save: uid=1, subject=weekly budget notes",
        "save: uid=2, subject=quarterly outage report draft",
        "save: uid=3, subject=meeting moved",
        "save: uid=4, subject=release plan",
        "save: uid=5, subject=lunch with the new team",
        "delete: uid=6, subject=invoice overdue",
    };
    logtk_parser *resumed;
    logtk_parser *p = shown_online(lines, "save: uid=<*>, subject=<*> moved",
                                   "save: uid=<*>, subject=<*>", &resumed);
    if (!p)
        return;
    logtk_event ev;
    CHECK_STATUS(logtk_parser_feed(resumed, lines[5], strlen(lines[5]), &ev), LOGTK_OK);
    CHECK_BYTES(ev.template_text.ptr, ev.template_text.len, "delete: uid=<*>, subject=<*>");
    CHECK_STATUS(logtk_parser_feed(p, lines[5], strlen(lines[5]), &ev), LOGTK_OK);
    CHECK_BYTES(ev.template_text.ptr, ev.template_text.len, "delete: uid=<*>, subject=<*>");
    logtk_parser_free(p);
    logtk_parser_free(resumed);
}

/*
 * Rule transitions online: the fourth template of a family of state pairs
 * ("from A to B") shows states at both places (shown_online); a reloaded
 * parser knows the family, and a new pair goes to its template with no
 * template made.
 */
TEST(test_fuse_transitions_online)
{
    static const char *const lines[] = {
        "task 1 Transitioned from NEW to SCHEDULED",
        "task 2 Transitioned from SCHEDULED to RUNNING",
        "task 3 Transitioned from RUNNING to SUCCEEDED",
        "task 4 Transitioned from RUNNING to FAILED",
        "task 5 Transitioned from SCHEDULED to KILLED",
        "task 6 Transitioned from KILLED to NEW",
    };
    const char *folded = "task <*> Transitioned from <*> to <*>";
    logtk_parser *resumed;
    logtk_parser *p = shown_online(lines, "task <*> Transitioned from RUNNING to SUCCEEDED",
                                   folded, &resumed);
    if (!p)
        return;
    const uint32_t count = logtk_parser_template_count(resumed);
    logtk_event ev;
    CHECK_STATUS(logtk_parser_feed(resumed, lines[5], strlen(lines[5]), &ev), LOGTK_OK);
    CHECK_BYTES(ev.template_text.ptr, ev.template_text.len, folded);
    CHECK(logtk_parser_template_count(resumed) == count);
    logtk_parser_free(p);
    logtk_parser_free(resumed);
}

/*
 * Rule booleans across a snapshot: a slot that printed one flag word
 * before the save takes the other after the reload and becomes "<*>"; one
 * that printed another word first does not.
 */
TEST(test_fuse_booleans_survive_snapshot)
{
    logtk_parser *first = NULL, *resumed = NULL;
    CHECK_STATUS(logtk_parser_new(&first, "fuse"), LOGTK_OK);
    CHECK_STATUS(logtk_parser_new(&resumed, "fuse"), LOGTK_OK);
    static const char *const before[] = {"BTLE scanner Powered On", "relay mode busy for peer"};
    for (size_t i = 0; i < 2; i++)
        CHECK_STATUS(logtk_parser_feed(first, before[i], strlen(before[i]), NULL), LOGTK_OK);
    resume_from(first, resumed);
    logtk_event ev;
    static const char *const off = "BTLE scanner Powered Off";
    CHECK_STATUS(logtk_parser_feed(resumed, off, strlen(off), &ev), LOGTK_OK);
    CHECK_BYTES(ev.template_text.ptr, ev.template_text.len, "BTLE scanner Powered <*>");
    static const char *const on = "relay mode on for peer";
    CHECK_STATUS(logtk_parser_feed(resumed, on, strlen(on), &ev), LOGTK_OK);
    CHECK_BYTES(ev.template_text.ptr, ev.template_text.len, on);
    static const char *const again = "relay mode off for peer";
    CHECK_STATUS(logtk_parser_feed(resumed, again, strlen(again), &ev), LOGTK_OK);
    CHECK_BYTES(ev.template_text.ptr, ev.template_text.len, again);
    logtk_parser_free(first);
    logtk_parser_free(resumed);
}
