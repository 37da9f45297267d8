/*
 * test_diff.c - the statistics of logtk_diff_* against known values (R's
 * binom.test and wilcox.test, SciPy's binomtest and mannwhitneyu give the
 * same), and the comparison and peer ranking on small constructed inputs.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "logtk.h"
#include "test_harness.h"

static int near(double a, double b, double rel)
{
    return fabs(a - b) <= rel * fabs(b) + 1e-300;
}

TEST(binomial_known_values)
{
    double p;
    CHECK_STATUS(logtk_binomial_test(2, 10, 0.5, &p), LOGTK_OK);
    CHECK(near(p, 0.109375, 1e-9));
    CHECK_STATUS(logtk_binomial_test(7, 20, 0.3, &p), LOGTK_OK);
    CHECK(near(p, 0.6294979666766769, 1e-7));
    CHECK_STATUS(logtk_binomial_test(30, 100, 0.5, &p), LOGTK_OK);
    CHECK(near(p, 7.85013964559367e-05, 1e-7));
    CHECK_STATUS(logtk_binomial_test(0, 12, 0.25, &p), LOGTK_OK);
    CHECK(near(p, 0.04592913389205933, 1e-7));
    CHECK_STATUS(logtk_binomial_test(900, 1000, 0.8, &p), LOGTK_OK);
    CHECK(near(p, 1.4973712845808585e-17, 1e-5));
    /* the expected outcome, nothing observed, and refusals */
    CHECK_STATUS(logtk_binomial_test(5, 10, 0.5, &p), LOGTK_OK);
    CHECK(p == 1);
    CHECK_STATUS(logtk_binomial_test(0, 0, 0.5, &p), LOGTK_OK);
    CHECK(p == 1);
    CHECK_STATUS(logtk_binomial_test(11, 10, 0.5, &p), LOGTK_ERR_INVALID);
    CHECK_STATUS(logtk_binomial_test(1, 10, 1.5, &p), LOGTK_ERR_INVALID);
}

TEST(mann_whitney_known_values)
{
    const double a[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    const double b[] = {6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    double u, z, p;
    CHECK_STATUS(logtk_mann_whitney(a, 10, b, 11, &u, &z, &p), LOGTK_OK);
    CHECK(u == 12.5);
    CHECK(z < 0);
    CHECK(near(p, 0.0030528677966902866, 1e-6));
    /* many ties */
    const double c[] = {1, 1, 2, 2, 2, 3, 5, 8};
    const double e[] = {2, 3, 3, 4, 5, 5, 9, 9, 9, 12};
    CHECK_STATUS(logtk_mann_whitney(c, 8, e, 10, &u, &z, &p), LOGTK_OK);
    CHECK(u == 14.5);
    CHECK(near(p, 0.024566668486278965, 1e-6));
    /* all tied, or one side empty: no evidence */
    const double same[] = {4, 4, 4};
    CHECK_STATUS(logtk_mann_whitney(same, 3, same, 3, &u, &z, &p), LOGTK_OK);
    CHECK(p == 1);
    CHECK_STATUS(logtk_mann_whitney(a, 10, NULL, 0, &u, &z, &p), LOGTK_OK);
    CHECK(p == 1);
}

TEST(benjamini_hochberg_known_values)
{
    double p[] = {0.01, 0.04, 0.03, 0.005};
    double q[4];
    CHECK_STATUS(logtk_bh_adjust(p, 4, q), LOGTK_OK);
    CHECK(near(q[0], 0.02, 1e-12));
    CHECK(near(q[1], 0.04, 1e-12));
    CHECK(near(q[2], 0.04, 1e-12));
    CHECK(near(q[3], 0.02, 1e-12));
    /* capped at 1, in place */
    double r[] = {0.9, 0.8};
    CHECK_STATUS(logtk_bh_adjust(r, 2, r), LOGTK_OK);
    CHECK(r[0] == 0.9 && r[1] == 0.9);
}

/* Adds `n` lines of template `id` with one parameter valued v0, v0+step, ... */
static void add_lines(logtk_diff *d, uint32_t group, uint32_t id, int n, double v0, double step)
{
    char buf[64];
    logtk_slice param;
    logtk_event ev;
    memset(&ev, 0, sizeof ev);
    ev.template_id = id;
    ev.nparams = 1;
    ev.params = &param;
    for (int i = 0; i < n; i++) {
        int len = snprintf(buf, sizeof buf, "%gms", v0 + step * (i % 50));
        param = (logtk_slice){buf, (size_t)len};
        CHECK_STATUS(logtk_diff_add(d, group, &ev, buf, (size_t)len), LOGTK_OK);
    }
}

TEST(compare_finds_new_vanished_rate_and_latency)
{
    logtk_diff *d;
    uint32_t a, b;
    CHECK_STATUS(logtk_diff_new(&d), LOGTK_OK);
    CHECK_STATUS(logtk_diff_group(d, "before", 6, &a), LOGTK_OK);
    CHECK_STATUS(logtk_diff_group(d, "after", 5, &b), LOGTK_OK);
    CHECK(a == 0 && b == 1);
    uint32_t again;
    CHECK_STATUS(logtk_diff_group(d, "after", 5, &again), LOGTK_OK);
    CHECK(again == 1);
    add_lines(d, a, 1, 500, 10, 1);  /* steady */
    add_lines(d, b, 1, 500, 10, 1);
    add_lines(d, a, 2, 200, 5, 1);   /* latency x4 after */
    add_lines(d, b, 2, 200, 20, 4);
    add_lines(d, a, 3, 100, 1, 0);   /* rate x3 after */
    add_lines(d, b, 3, 300, 1, 0);
    add_lines(d, b, 4, 40, 1, 0);    /* new */
    add_lines(d, a, 5, 40, 1, 0);    /* gone */
    add_lines(d, a, 6, 40, 1, 0);    /* id 6 has id 1's text: one template */
    for (uint32_t id = 1; id <= 6; id++) {
        char text[32];
        int n = snprintf(text, sizeof text, "t%u took <*>", id == 6 ? 1 : id);
        CHECK_STATUS(logtk_diff_set_template(d, id, text, (size_t)n), LOGTK_OK);
    }
    CHECK_STATUS(logtk_diff_compare(d, a, b), LOGTK_OK);
    CHECK(logtk_diff_change_count(d) == 5);
    int seen[7] = {0};
    for (size_t r = 0; r < logtk_diff_change_count(d); r++) {
        logtk_diff_change c;
        CHECK_STATUS(logtk_diff_change_at(d, r, &c), LOGTK_OK);
        CHECK(c.template_id >= 1 && c.template_id <= 5);
        seen[c.template_id] = 1;
        if (c.template_id == 1) {
            /* 540 before (folded with id 6) vs 500 after; rates 540/920 vs 500/1240 */
            CHECK(c.count_a == 540 && c.count_b == 500);
            CHECK(r == 4); /* the only unchanged one ranks last */
            CHECK(c.status == LOGTK_DIFF_SAME || c.status == LOGTK_DIFF_CHANGED);
        }
        if (c.template_id == 2) {
            CHECK(c.status == LOGTK_DIFF_CHANGED && c.significant);
            CHECK(c.nparams == 1);
            logtk_diff_param pp;
            CHECK_STATUS(logtk_diff_change_param(d, r, 0, &pp), LOGTK_OK);
            CHECK(pp.significant && pp.median_b > 3 * pp.median_a);
            CHECK(pp.q <= 0.05);
        }
        if (c.template_id == 3)
            CHECK(c.status == LOGTK_DIFF_CHANGED && c.significant && c.count_b == 300);
        if (c.template_id == 4)
            CHECK(c.status == LOGTK_DIFF_APPEARED && c.significant && c.nexamples_a == 0);
        if (c.template_id == 5) {
            CHECK(c.status == LOGTK_DIFF_VANISHED && c.significant);
            logtk_slice ex;
            CHECK_STATUS(logtk_diff_change_example(d, r, 0, 0, &ex), LOGTK_OK);
            CHECK_BYTES(ex.ptr, ex.len, "1ms");
            CHECK_STATUS(logtk_diff_change_example(d, r, 0, 3, &ex), LOGTK_ERR_NOT_FOUND);
        }
    }
    CHECK(seen[1] && seen[2] && seen[3] && seen[4] && seen[5]);
    logtk_diff_free(d);
}

TEST(compare_of_equal_sides_finds_nothing)
{
    logtk_diff *d;
    uint32_t a, b;
    CHECK_STATUS(logtk_diff_new(&d), LOGTK_OK);
    CHECK_STATUS(logtk_diff_group(d, "a", 1, &a), LOGTK_OK);
    CHECK_STATUS(logtk_diff_group(d, "b", 1, &b), LOGTK_OK);
    for (uint32_t id = 1; id <= 20; id++) {
        add_lines(d, a, id, (int)(10 * id), id, 1);
        add_lines(d, b, id, (int)(10 * id + (id % 3)), id, 1);
    }
    CHECK_STATUS(logtk_diff_compare(d, a, b), LOGTK_OK);
    for (size_t r = 0; r < logtk_diff_change_count(d); r++) {
        logtk_diff_change c;
        CHECK_STATUS(logtk_diff_change_at(d, r, &c), LOGTK_OK);
        CHECK(!c.significant && c.status == LOGTK_DIFF_SAME);
    }
    CHECK_STATUS(logtk_diff_compare(d, a, a), LOGTK_ERR_INVALID);
    logtk_diff_free(d);
}

TEST(peers_rank_the_odd_host_first)
{
    logtk_diff *d;
    CHECK_STATUS(logtk_diff_new(&d), LOGTK_OK);
    CHECK_STATUS(logtk_diff_set_option(d, "top", "3"), LOGTK_OK);
    CHECK_STATUS(logtk_diff_set_option(d, "nope", "3"), LOGTK_ERR_NOT_FOUND);
    CHECK_STATUS(logtk_diff_set_option(d, "alpha", "2"), LOGTK_ERR_INVALID);
    for (int h = 0; h < 5; h++) {
        char name[8];
        uint32_t g;
        snprintf(name, sizeof name, "host%d", h);
        CHECK_STATUS(logtk_diff_group(d, name, strlen(name), &g), LOGTK_OK);
        for (uint32_t id = 1; id <= 10; id++)
            add_lines(d, g, id, (int)(20 + 5 * id), 1, 1);
        if (h == 3)
            add_lines(d, g, 11, 25, 1, 0); /* only here */
    }
    CHECK_STATUS(logtk_diff_peers(d), LOGTK_OK);
    CHECK(logtk_diff_peer_count(d) == 5);
    logtk_diff_peer p;
    CHECK_STATUS(logtk_diff_peer_at(d, 0, &p), LOGTK_OK);
    CHECK(p.group == 3 && p.significant && p.score > 0);
    CHECK(strcmp(logtk_diff_group_name(d, p.group), "host3") == 0);
    logtk_diff_peer_template top;
    CHECK_STATUS(logtk_diff_peer_template_at(d, 0, 0, &top), LOGTK_OK);
    CHECK(top.template_id == 11 && top.count == 25 && top.significant);
    CHECK(near(top.expected, 25.0 * p.lines / (double)(5 * 475 + 25), 1e-9));
    for (size_t r = 1; r < 5; r++) {
        CHECK_STATUS(logtk_diff_peer_at(d, r, &p), LOGTK_OK);
        CHECK(p.score < 1e9);
    }
    logtk_diff_free(d);
}
