/*
 * regex.c - one PCRE2 pattern with its own match context and limits.
 *
 * Why one wrapper: log formats, masks, grep patterns and session id regexes
 * each had their own compile/JIT/limit code with slightly different rules;
 * here the rules are written once and each user states its own limits.
 *
 * JIT stack.  A JIT match runs on PCRE2's 32 KiB default stack unless one is
 * assigned.  Creating a private stack for every pattern would reserve its
 * whole maximum (mmap) per pattern, 500 masks x 1 MiB, so it is created on
 * the first match that runs out of the default one, which is then re-run:
 * a stack limit only aborts a match, so a larger stack never changes a
 * result, it only lets more matches finish.
 *
 * Measuring a success.  PCRE2 does not report how many steps a match used,
 * but the limit is exact: re-running the match with limits 1024, 2048, ...
 * finds the smallest power of two it fits in.  The last run always uses at
 * most the limit the match succeeded with, so it succeeds and leaves the same
 * offsets in the match data.  This costs at most about four times the match
 * itself, and is done only for a handle's first MEASURED_FIRST successes and,
 * once the handle has hit its limit, for every success (then the hits, at a
 * whole limit each, cost far more).
 */
#include "config.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logtk.h"
#include "regex.h"

_Static_assert(sizeof(PCRE2_SIZE) == sizeof(size_t), "PCRE2 offsets are size_t");
_Static_assert(PCRE2_UNSET == LTK_REGEX_UNSET, "PCRE2_UNSET is (size_t)-1");

enum { JIT_STACK_START = 32 * 1024, MEASURED_FIRST = 64, MEASURE_FROM = 1024 };

struct ltk_regex {
    pcre2_code *code;
    int owns_code; /* 0 for a clone */
    int jit;
    ltk_regex_config cfg;
    pcre2_match_data *match_data;
    pcre2_match_context *context;
    pcre2_jit_stack *jit_stack; /* created on the first match that needs it */
    int failure;                /* PCRE2 code of the last LTK_REGEX_FAILED */

    uint32_t full_limit; /* the configured match limit (PCRE2's default when 0) */
    uint32_t limit;      /* the limit now set in context */
    uint64_t hits;
    uint32_t streak; /* limit hits in a row */
    uint32_t lowerings;
    uint32_t costliest; /* most steps a measured success needed */
    uint32_t measured;  /* successes measured */
};

static void set_error(ltk_regex_error *err, int code, size_t offset, const char *reason)
{
    if (!err)
        return;
    err->code = code;
    err->offset = offset;
    snprintf(err->reason, sizeof err->reason, "%s", reason);
}

/* Match data and context for a compiled (or borrowed) pattern. */
static int init_match_state(ltk_regex *re)
{
    re->match_data = pcre2_match_data_create_from_pattern(re->code, NULL);
    re->context = pcre2_match_context_create(NULL);
    if (!re->match_data || !re->context)
        return LOGTK_ERR_NOMEM;
    re->full_limit = re->cfg.match_limit;
    if (re->full_limit == 0)
        pcre2_config(PCRE2_CONFIG_MATCHLIMIT, &re->full_limit);
    re->limit = re->full_limit;
    pcre2_set_match_limit(re->context, re->limit);
    if (re->cfg.depth_limit)
        pcre2_set_depth_limit(re->context, re->cfg.depth_limit);
    if (re->cfg.heap_limit_kib)
        pcre2_set_heap_limit(re->context, re->cfg.heap_limit_kib);
    return LOGTK_OK;
}

int ltk_regex_compile(ltk_regex **out, const char *pattern, size_t len,
                        const ltk_regex_config *cfg, ltk_regex_error *err)
{
    *out = NULL;
    ltk_regex *re = calloc(1, sizeof *re);
    if (!re) {
        set_error(err, LOGTK_ERR_NOMEM, 0, "out of memory");
        return LOGTK_ERR_NOMEM;
    }
    re->cfg = *cfg;
    re->owns_code = 1;
    uint32_t options = 0;
    if (cfg->flags & LTK_REGEX_CASELESS)
        options |= PCRE2_CASELESS;
    if (cfg->flags & LTK_REGEX_LITERAL)
        options |= PCRE2_LITERAL;
    if (cfg->flags & LTK_REGEX_UTF)
        options |= PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
    pcre2_compile_context *cctx = NULL;
    if (cfg->flags & LTK_REGEX_NEWLINE_LF) {
        cctx = pcre2_compile_context_create(NULL);
        if (!cctx) {
            free(re);
            set_error(err, LOGTK_ERR_NOMEM, 0, "out of memory");
            return LOGTK_ERR_NOMEM;
        }
        pcre2_set_newline(cctx, PCRE2_NEWLINE_LF);
    }
    int errcode;
    PCRE2_SIZE erroff;
    re->code = pcre2_compile((PCRE2_SPTR)pattern, len == (size_t)-1 ? PCRE2_ZERO_TERMINATED : len,
                             options, &errcode, &erroff, cctx);
    pcre2_compile_context_free(cctx);
    if (!re->code) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(errcode, msg, sizeof msg);
        free(re);
        set_error(err, LOGTK_ERR_SYNTAX, (size_t)erroff, (const char *)msg);
        return LOGTK_ERR_SYNTAX;
    }
    /* no JIT (a PCRE2 built without it, or a pattern it cannot handle): the
       interpreter gives the same results under the same limits */
    re->jit = pcre2_jit_compile(re->code, PCRE2_JIT_COMPLETE) == 0;
    if (init_match_state(re) != LOGTK_OK) {
        ltk_regex_free(re);
        set_error(err, LOGTK_ERR_NOMEM, 0, "out of memory");
        return LOGTK_ERR_NOMEM;
    }
    *out = re;
    return LOGTK_OK;
}

int ltk_regex_clone(const ltk_regex *src, ltk_regex **out)
{
    *out = NULL;
    ltk_regex *re = calloc(1, sizeof *re);
    if (!re)
        return LOGTK_ERR_NOMEM;
    re->code = src->code;
    re->owns_code = 0;
    re->jit = src->jit;
    re->cfg = src->cfg;
    if (init_match_state(re) != LOGTK_OK) {
        ltk_regex_free(re);
        return LOGTK_ERR_NOMEM;
    }
    *out = re;
    return LOGTK_OK;
}

void ltk_regex_free(ltk_regex *re)
{
    if (!re)
        return;
    pcre2_match_data_free(re->match_data);
    pcre2_match_context_free(re->context);
    pcre2_jit_stack_free(re->jit_stack);
    if (re->owns_code)
        pcre2_code_free(re->code);
    free(re);
}

static int run(ltk_regex *re, const char *subject, size_t len, size_t start, uint32_t options)
{
    if (!re->jit)
        return pcre2_match(re->code, (PCRE2_SPTR)subject, len, start, options, re->match_data,
                           re->context);
    int rc = pcre2_jit_match(re->code, (PCRE2_SPTR)subject, len, start, options,
                             re->match_data, re->context);
    if (rc == PCRE2_ERROR_JIT_STACKLIMIT && !re->jit_stack &&
        re->cfg.jit_stack_max > JIT_STACK_START) {
        re->jit_stack = pcre2_jit_stack_create(JIT_STACK_START, re->cfg.jit_stack_max, NULL);
        if (re->jit_stack) {
            pcre2_jit_stack_assign(re->context, NULL, re->jit_stack);
            rc = pcre2_jit_match(re->code, (PCRE2_SPTR)subject, len, start, options,
                                 re->match_data, re->context);
        }
    }
    return rc;
}

static void set_limit(ltk_regex *re, uint32_t limit)
{
    re->limit = limit;
    pcre2_set_match_limit(re->context, limit);
}

/* The smallest limit no lowering may go below. */
static uint32_t lowest_limit(const ltk_regex *re)
{
    uint32_t lowest = re->cfg.lower_floor;
    uint64_t needed = (uint64_t)re->cfg.success_margin * re->costliest;
    if (needed > lowest)
        lowest = needed > UINT32_MAX ? UINT32_MAX : (uint32_t)needed;
    return lowest < re->full_limit ? lowest : re->full_limit;
}

/* A success: how many steps it needed, within a factor of two (see above). */
static void measure_success(ltk_regex *re, const char *subject, size_t len, size_t start,
                            uint32_t options)
{
    uint32_t limit = re->limit;
    uint32_t needed = limit;
    for (uint64_t probe = MEASURE_FROM; probe < limit; probe *= 2) {
        pcre2_set_match_limit(re->context, (uint32_t)probe);
        if (run(re, subject, len, start, options) >= 0) {
            needed = (uint32_t)probe;
            break;
        }
    }
    pcre2_set_match_limit(re->context, limit);
    if (needed == limit) /* the offsets of the match, overwritten by the failed probes */
        run(re, subject, len, start, options);
    re->measured++;
    if (needed > re->costliest)
        re->costliest = needed;
    /* a success that needed more than the lowered limit allows for: raise it */
    uint32_t lowest = lowest_limit(re);
    if (lowest > re->limit)
        set_limit(re, lowest);
}

static void lower_after_hit(ltk_regex *re)
{
    if (re->cfg.lower_after == 0 || ++re->streak < re->cfg.lower_after)
        return;
    re->streak = 0;
    uint32_t divisor = re->cfg.lower_divisor < 2 ? 2 : re->cfg.lower_divisor;
    uint32_t next = re->limit / divisor;
    uint32_t lowest = lowest_limit(re);
    if (next < lowest)
        next = lowest;
    if (next < re->limit) {
        set_limit(re, next);
        re->lowerings++;
    }
}

static int is_limit(int rc)
{
    return rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
           rc == PCRE2_ERROR_HEAPLIMIT || rc == PCRE2_ERROR_JIT_STACKLIMIT;
}

int ltk_regex_match(ltk_regex *re, const char *subject, size_t len, size_t start,
                      uint32_t flags)
{
    uint32_t options = (flags & LTK_REGEX_NOTEMPTY_ATSTART) ? PCRE2_NOTEMPTY_ATSTART : 0;
    if (!subject) /* PCRE2 refuses a NULL subject even when empty */
        subject = "";
    int rc = run(re, subject, len, start, options);
    if (rc >= 0) {
        re->streak = 0;
        if (re->cfg.success_margin && (re->measured < MEASURED_FIRST || re->hits > 0))
            measure_success(re, subject, len, start, options);
        /* rc 0 means the ovector was too small, which match data made from
           the pattern rules out; report the whole match anyway */
        return rc > 0 ? rc : 1;
    }
    if (rc == PCRE2_ERROR_NOMATCH) {
        re->streak = 0;
        return LTK_REGEX_NOMATCH;
    }
    if (is_limit(rc)) {
        re->hits++;
        lower_after_hit(re);
        return LTK_REGEX_LIMIT;
    }
    re->failure = rc;
    return LTK_REGEX_FAILED;
}

const size_t *ltk_regex_ovector(const ltk_regex *re)
{
    return pcre2_get_ovector_pointer(re->match_data);
}

int ltk_regex_failure(const ltk_regex *re, char *buf, size_t size)
{
    if (buf && size) {
        PCRE2_UCHAR msg[256];
        if (pcre2_get_error_message(re->failure, msg, sizeof msg) < 0)
            snprintf((char *)msg, sizeof msg, "error %d", re->failure);
        snprintf(buf, size, "%s", (const char *)msg);
    }
    return re->failure;
}

uint32_t ltk_regex_capture_count(const ltk_regex *re)
{
    uint32_t n = 0;
    pcre2_pattern_info(re->code, PCRE2_INFO_CAPTURECOUNT, &n);
    return n;
}

uint32_t ltk_regex_group_number(const ltk_regex *re, const char *name)
{
    int n = pcre2_substring_number_from_name(re->code, (PCRE2_SPTR)name);
    return n > 0 ? (uint32_t)n : 0;
}

size_t ltk_regex_min_length(const ltk_regex *re)
{
    uint32_t n = 0;
    if (pcre2_pattern_info(re->code, PCRE2_INFO_MINLENGTH, &n) != 0)
        return 0;
    return n;
}

int ltk_regex_first_byte(const ltk_regex *re, unsigned char *unit)
{
    uint32_t type = 0, value = 0, options = 0;
    pcre2_pattern_info(re->code, PCRE2_INFO_FIRSTCODETYPE, &type);
    if (type != 1 || pcre2_pattern_info(re->code, PCRE2_INFO_FIRSTCODEUNIT, &value) != 0)
        return 0;
    pcre2_pattern_info(re->code, PCRE2_INFO_ALLOPTIONS, &options);
    if ((options & PCRE2_CASELESS) || value > 255)
        return 0;
    *unit = (unsigned char)value;
    return 1;
}

int ltk_regex_is_jit(const ltk_regex *re)
{
    return re->jit;
}

uint32_t ltk_regex_match_limit(const ltk_regex *re)
{
    return re->limit;
}

uint64_t ltk_regex_limit_hits(const ltk_regex *re)
{
    return re->hits;
}

uint32_t ltk_regex_lowerings(const ltk_regex *re)
{
    return re->lowerings;
}

uint32_t ltk_regex_costliest_success(const ltk_regex *re)
{
    return re->costliest;
}
