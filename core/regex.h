/*
 * regex.h - one PCRE2 pattern with its own match context and limits (internal).
 *
 * Every regular expression logtk runs on input it does not control (log
 * formats, masks, grep patterns, session id regexes) goes through this
 * wrapper, so all of them get the same protection: a JIT-compiled pattern
 * when PCRE2 has a JIT (the interpreter otherwise, same results), a match
 * limit, a depth limit and optionally a heap limit, a private JIT stack
 * created only when a match needs more than PCRE2's 32 KiB default, and a
 * count of the matches that hit a limit.  Hitting a limit is a result
 * (LTK_REGEX_LIMIT), never a hang.
 *
 * Adaptive limit.  A pattern that backtracks catastrophically on some input
 * spends its whole limit on every line of it (2,000,000 steps, about 4 ms).
 * With lower_after set, that many limit hits in a row lower the handle's
 * limit (divided by lower_divisor, not below lower_floor); with
 * success_margin set, never below success_margin times the steps the
 * costliest successful match has needed (measured by re-running a few
 * successes with doubling limits), and a later success that needed more
 * raises it again.  Users whose results must not change keep lower_after 0.
 *
 * A handle is used by one thread at a time.  ltk_regex_clone() gives
 * another thread its own match state over the same compiled pattern.
 *
 * Named core/regex.h: the library's sources must not include the POSIX
 * <regex.h> (the -I path for core/ would find this one first).
 */
#ifndef LTK_REGEX_H
#define LTK_REGEX_H

#include <stddef.h>
#include <stdint.h>

typedef struct ltk_regex ltk_regex;

/* Compile flags (ltk_regex_config.flags). */
enum {
    LTK_REGEX_CASELESS = 1u << 0,   /* PCRE2_CASELESS */
    LTK_REGEX_LITERAL = 1u << 1,    /* the pattern is plain text (grep -F) */
    LTK_REGEX_UTF = 1u << 2,        /* PCRE2_UTF: the pattern and subjects are UTF-8 */
    LTK_REGEX_NEWLINE_LF = 1u << 3, /* only LF is a newline ('.', '$'), whatever PCRE2's build default */
};

/* Match flags (ltk_regex_match). */
enum {
    LTK_REGEX_NOTEMPTY_ATSTART = 1u << 0, /* no empty match at the start offset */
};

/* ltk_regex_match results besides a match (> 0). */
enum {
    LTK_REGEX_NOMATCH = 0,
    LTK_REGEX_LIMIT = -1,  /* a match, depth, heap or JIT stack limit was hit */
    LTK_REGEX_FAILED = -2, /* any other PCRE2 error: ltk_regex_failure() says which */
};

/* An offset PCRE2 did not set (a group that took no part in the match). */
#define LTK_REGEX_UNSET ((size_t)-1)

typedef struct ltk_regex_config {
    uint32_t flags;          /* LTK_REGEX_* compile flags */
    uint32_t match_limit;    /* PCRE2 match limit; 0: PCRE2's default */
    uint32_t depth_limit;    /* PCRE2 depth limit (interpreter only); 0: PCRE2's default */
    uint32_t heap_limit_kib; /* PCRE2 heap limit (interpreter only); 0: PCRE2's default */
    size_t jit_stack_max;    /* bytes of the private JIT stack; 0: only PCRE2's 32 KiB */
    /* adaptive limit (see above); lower_after 0: the limit never changes */
    uint32_t lower_after;    /* limit hits in a row that lower the limit */
    uint32_t lower_divisor;  /* each lowering divides the limit by this (at least 2) */
    uint32_t lower_floor;    /* ... but not below this */
    uint32_t success_margin; /* nor below this many times the costliest measured success; 0: not measured */
} ltk_regex_config;

/* Why a compilation failed. */
typedef struct ltk_regex_error {
    int code;          /* LOGTK_ERR_SYNTAX or LOGTK_ERR_NOMEM */
    size_t offset;     /* where in the pattern PCRE2 stopped (LOGTK_ERR_SYNTAX) */
    char reason[256];  /* PCRE2's message, or "out of memory" */
} ltk_regex_error;

/**
 * Compiles pattern[0..len) (len (size_t)-1: NUL-terminated) with cfg.
 * Returns LOGTK_OK, or LOGTK_ERR_SYNTAX / LOGTK_ERR_NOMEM with *err filled
 * (the caller names the pattern and the option it came from).
 */
int ltk_regex_compile(ltk_regex **out, const char *pattern, size_t len,
                        const ltk_regex_config *cfg, ltk_regex_error *err);

/**
 * A second handle over src's compiled pattern, with its own match data,
 * context, limits and counters, for another thread.  The clone borrows the
 * compiled code: free it before src.  Returns LOGTK_OK or LOGTK_ERR_NOMEM.
 */
int ltk_regex_clone(const ltk_regex *src, ltk_regex **out);

/** Frees the handle.  NULL is harmless. */
void ltk_regex_free(ltk_regex *re);

/**
 * Searches subject[0..len) from offset start (look-behind still sees the
 * whole subject).  Returns the number of offset pairs set (> 0) on a match
 * (ltk_regex_ovector() has them), LTK_REGEX_NOMATCH, LTK_REGEX_LIMIT or
 * LTK_REGEX_FAILED.  Nothing is allocated except, once, the JIT stack.
 */
int ltk_regex_match(ltk_regex *re, const char *subject, size_t len, size_t start,
                      uint32_t flags);

/** Offsets of the last match: pair i is [2i] .. [2i+1]; LTK_REGEX_UNSET when unset. */
const size_t *ltk_regex_ovector(const ltk_regex *re);

/** The PCRE2 error code of the last LTK_REGEX_FAILED, its message in buf. */
int ltk_regex_failure(const ltk_regex *re, char *buf, size_t size);

/* ------------------------------------------------------------ about the pattern */

/** Number of capturing groups. */
uint32_t ltk_regex_capture_count(const ltk_regex *re);

/** Group number of a named group; 0 when there is none (or the name is not unique). */
uint32_t ltk_regex_group_number(const ltk_regex *re, const char *name);

/** The fewest bytes a match needs (PCRE2's own analysis; a lower bound). */
size_t ltk_regex_min_length(const ltk_regex *re);

/**
 * 1 when every match starts with one fixed byte, stored in *unit (PCRE2's
 * analysis; a caseless pattern compiled with LTK_REGEX_CASELESS gives 0);
 * 0 otherwise.
 */
int ltk_regex_first_byte(const ltk_regex *re, unsigned char *unit);

/** Nonzero when the pattern was JIT-compiled. */
int ltk_regex_is_jit(const ltk_regex *re);

/* ------------------------------------------------------------ limits and counters */

/** The match limit now in force (lowered or raised by the adaptive limit). */
uint32_t ltk_regex_match_limit(const ltk_regex *re);

/** Matches that returned LTK_REGEX_LIMIT since compilation. */
uint64_t ltk_regex_limit_hits(const ltk_regex *re);

/** How many times the adaptive limit lowered the match limit. */
uint32_t ltk_regex_lowerings(const ltk_regex *re);

/** The most steps a measured successful match needed (rounded up to a power of two); 0: none measured. */
uint32_t ltk_regex_costliest_success(const ltk_regex *re);

#endif
