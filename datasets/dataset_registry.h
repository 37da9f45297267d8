/*
 * dataset_registry.h - the Loghub dataset presets as data (internal).
 *
 * The public API (logtk.h) sees logtk_dataset as opaque; tests and the
 * library read the table directly through this header.
 */
#ifndef LTK_DATASET_REGISTRY_H
#define LTK_DATASET_REGISTRY_H

#include <stddef.h>

#include "logtk.h"

/** Most masking regexes a preset or a variant has. */
#define DATASET_MAX_MASKS 4
/** Most per-algorithm mask variants a preset has. */
#define DATASET_MAX_VARIANTS 3

/** A parser whose benchmark script uses a different regex list than the preset's. */
typedef struct ltk_dataset_mask_variant {
    const char *algorithm;                     /* parser name ("brain"); NULL ends the list */
    const char *masks[DATASET_MAX_MASKS + 2];  /* NULL-terminated; may be empty */
    const char *benchmark;                     /* NULL: every benchmark's script; else only
                                                  that benchmark's ("loghub2") */
} ltk_dataset_mask_variant;

/*
 * One preset.  Parameter values are text, exactly as the Loghub benchmark
 * scripts give them, and are passed to logtk_parser_set_option() unchanged;
 * NULL means "not set: keep the parser's default".
 */
struct logtk_dataset {
    const char *name;
    const char *format;                         /* Loghub log format */
    const char *masks[DATASET_MAX_MASKS + 1];   /* NULL-terminated, in order */
    ltk_dataset_mask_variant variants[DATASET_MAX_VARIANTS + 1];
    const char *drain_st, *drain_depth;
    const char *spell_tau;
    const char *iplom_ct, *iplom_lower_bound;
    const char *ael_min_event_count, *ael_merge_percent;
    const char *lenma_threshold;
    const char *brain_threshold, *brain_delimiter;
    const char *brain_split; /* Brain's word separators (its reference hard-codes them per dataset) */
    const char *logram_double_threshold, *logram_tri_threshold;
    /* from logparser's per-parser benchmark.py scripts (not in settings.tsv) */
    const char *logmine_max_dist, *logmine_k;
    const char *shiso_max_child_num, *shiso_merge_threshold;
    const char *shiso_format_lookup_threshold, *shiso_super_format_threshold;
    const char *logcluster_rsupport;
    const char *slct_support;
    const char *logsig_group_num;
    const char *lke_split_threshold;
};

/** Number of presets (16). */
size_t ltk_dataset_count(void);

/**
 * The masks a parser of `algorithm` gets for this preset: the variant's list
 * when the benchmark script of that parser uses its own, else the preset's;
 * an empty list for parsers that mask for themselves ("fuse").
 * NULL-terminated; never NULL itself.
 */
const char *const *ltk_dataset_masks_for(const logtk_dataset *d, const char *algorithm);

/**
 * ltk_dataset_masks_for() as the scripts of `benchmark` run `algorithm`
 * (logtk_dataset_configure_for()): a variant of that benchmark wins over
 * one of every benchmark.  NULL: the Loghub-2k scripts' (logparser's).
 */
const char *const *ltk_dataset_masks_for_benchmark(const logtk_dataset *d, const char *algorithm,
                                                   const char *benchmark);

/**
 * The i-th parameter (0-based) this preset sets for `algorithm`: fills *name
 * (the logtk_parser_set_option() name) and *value and returns 1, or returns 0
 * past the end.  Parameters whose value the preset leaves unset are skipped.
 */
int ltk_dataset_param_at(const logtk_dataset *d, const char *algorithm, size_t i, const char **name,
                     const char **value);

#endif
