/*
 * test_ownparser.c - Brain and fuse on small hand-made inputs.
 *
 * Each case states a behaviour of the algorithm (what becomes a variable,
 * what stays apart) and checks it through the public parser API.
 */
#include "config.h"

#include <string.h>

#include "logtk.h"
#include "test_harness.h"

static logtk_parser *run(const char *algo, const char *const *lines, size_t n,
                         const char *param, const char *value)
{
    logtk_parser *p = NULL;
    if (logtk_parser_new(&p, algo) != LOGTK_OK)
        return NULL;
    if (param)
        CHECK_STATUS(logtk_parser_set_param(p, param, value), LOGTK_OK);
    for (size_t i = 0; i < n; i++)
        CHECK_STATUS(logtk_parser_feed(p, lines[i], strlen(lines[i]), NULL), LOGTK_OK);
    CHECK_STATUS(logtk_parser_finish(p), LOGTK_OK);
    return p;
}

/* Template text of line i. */
static logtk_slice text_of(logtk_parser *p, uint64_t i)
{
    uint32_t id = 0;
    logtk_slice t = {"", 0};
    uint64_t count;
    if (logtk_parser_assignment(p, i, &id) == LOGTK_OK)
        logtk_parser_template(p, id, &t, &count);
    return t;
}

static int same_text(logtk_parser *p, uint64_t a, uint64_t b)
{
    logtk_slice x = text_of(p, a), y = text_of(p, b);
    return x.len == y.len && memcmp(x.ptr, y.ptr, x.len) == 0;
}

static void test_brain(void)
{
    /* 6 lines of one template with a variable user; 2 lines of another */
    static const char *const lines[] = {
        "session opened for user alice",  "session opened for user bob",
        "session opened for user carol",  "session opened for user dave",
        "session opened for user erin",   "session opened for user frank",
        "connection closed by peer",      "connection closed by peer",
    };
    logtk_parser *p = run("brain", lines, 8, "threshold", "3");
    CHECK(p != NULL);
    logtk_slice t = text_of(p, 0);
    CHECK_BYTES(t.ptr, t.len, "session opened for user <*>");
    CHECK(same_text(p, 0, 5));
    t = text_of(p, 6);
    CHECK_BYTES(t.ptr, t.len, "connection closed by peer");
    CHECK(logtk_parser_template_count(p) == 2);
    logtk_parser_free(p);

    /* below the threshold, a position keeps its words: two templates */
    static const char *const two[] = {"service start ok", "service stop ok",
                                      "service start ok", "service stop ok"};
    p = run("brain", two, 4, "threshold", "3");
    CHECK(!same_text(p, 0, 1));
    CHECK(same_text(p, 0, 2));
    logtk_parser_free(p);

    /* mostly-digit words are variables; split separators glue back in the template */
    static const char *const kv[] = {"retry count=12 of 30", "retry count=7 of 30",
                                     "retry count=9 of 30"};
    p = run("brain", kv, 3, "split", ", =");
    t = text_of(p, 0);
    CHECK_BYTES(t.ptr, t.len, "retry count=<*> of <*>");
    CHECK(same_text(p, 0, 2));
    logtk_parser_free(p);

    /* bad parameters are refused */
    CHECK_STATUS(logtk_parser_new(&p, "brain"), LOGTK_OK);
    CHECK_STATUS(logtk_parser_set_param(p, "threshold", "0"), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_parser_set_param(p, "delimiter", "(unclosed"), LOGTK_ERR_SYNTAX);
    CHECK_STATUS(logtk_parser_set_param(p, "nope", "1"), LOGTK_ERR_NOT_FOUND);
    logtk_parser_free(p);

    /* no lines at all */
    p = run("brain", NULL, 0, NULL, NULL);
    CHECK(logtk_parser_template_count(p) == 0);
    logtk_parser_free(p);
}

static void test_fuse_masks(void)
{
    static const char *const lines[] = {
        "Served block blk_-42 to /10.0.0.1:50010",
        "Served block blk_77 to /10.0.0.2:50010",
        "Task done (TID 7).",
        "Reading /var/log/app/x.log, ok",
        "connection from 1.2.3.4 () at Jul",
        "connection from 1.2.3.5 (host) at Jun",
    };
    logtk_parser *p = run("fuse", lines, 6, NULL, NULL);
    CHECK(p != NULL);
    logtk_slice t = text_of(p, 0);
    CHECK_BYTES(t.ptr, t.len, "Served block <*> to /<*>:<*>");
    CHECK(same_text(p, 0, 1));
    t = text_of(p, 2);
    CHECK_BYTES(t.ptr, t.len, "Task done (TID <*>).");
    t = text_of(p, 3);
    CHECK_BYTES(t.ptr, t.len, "Reading <*>, ok");
    t = text_of(p, 4);
    CHECK_BYTES(t.ptr, t.len, "connection from <*> (<*>) at <*>");
    /* parameters come back as the original text */
    logtk_event ev;
    CHECK_STATUS(logtk_parser_extract(p, 1, lines[1], strlen(lines[1]), &ev), LOGTK_OK);
    CHECK(ev.nparams == 3);
    if (ev.nparams == 3)
        CHECK_BYTES(ev.params[0].ptr, ev.params[0].len, "blk_77");
    logtk_parser_free(p);
}

static void test_fuse_siblings(void)
{
    /* a word position becomes a variable once it shows `threshold` distinct words */
    static const char *const users[] = {
        "Accepted password for alice from <*>", "Accepted password for bob from <*>",
        "Accepted password for carol from <*>", "Accepted password for dave from <*>",
        "Accepted password for erin from <*>",
    };
    logtk_parser *p = run("fuse", users, 5, "threshold", "3");
    CHECK(same_text(p, 0, 1));
    CHECK(same_text(p, 0, 4));
    logtk_slice t = text_of(p, 4);
    CHECK_BYTES(t.ptr, t.len, "Accepted password for <*> from <*>");
    logtk_parser_free(p);

    /* fewer distinct words than the threshold: kept apart */
    static const char *const states[] = {"VM Started now", "VM Stopped now", "VM Started now"};
    p = run("fuse", states, 3, "threshold", "3");
    CHECK(!same_text(p, 0, 1));
    CHECK(same_text(p, 0, 2));
    logtk_parser_free(p);

    /* key=value: only the value becomes a variable */
    static const char *const kv[] = {"login ok user=root", "login ok user=admin",
                                     "login ok user=guest"};
    p = run("fuse", kv, 3, "threshold", "3");
    t = text_of(p, 0);
    CHECK_BYTES(t.ptr, t.len, "login ok user=<*>");
    logtk_parser_free(p);

    /* one-word messages never collapse into "<*>" */
    static const char *const words[] = {"start", "stop", "pause", "resume", "halt"};
    p = run("fuse", words, 5, "threshold", "2");
    t = text_of(p, 4);
    CHECK_BYTES(t.ptr, t.len, "halt");
    CHECK(logtk_parser_template_count(p) == 5);
    logtk_parser_free(p);

    /* online: the event of a fed line carries its template right away */
    CHECK_STATUS(logtk_parser_new(&p, "fuse"), LOGTK_OK);
    logtk_event ev;
    CHECK_STATUS(logtk_parser_feed(p, "disk 3 full", 11, &ev), LOGTK_OK);
    CHECK(ev.template_id == 1 && ev.created == 1);
    CHECK_STATUS(logtk_parser_feed(p, "disk 4 full", 11, &ev), LOGTK_OK);
    CHECK(ev.template_id == 1 && ev.created == 0);
    CHECK_STATUS(logtk_parser_set_param(p, "threshold", "1"), LOGTK_ERR_INVALID);
    logtk_parser_free(p);
    logtk_parser_free(NULL);
}

int main(void)
{
    test_brain();
    test_fuse_masks();
    test_fuse_siblings();
    return TEST_SUMMARY();
}
