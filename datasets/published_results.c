/*
 * published_results.c - parsing accuracy published for the full-size
 * Loghub-2.0 logs (GA, PA, FGA, FTA), printed by `logtk bench parse
 * --loghub2-full` beside logtk's own rows.
 *
 * Drain: Jiang et al., ISSTA'24, RQ2 table (full-dataset column).  LILAC
 * (FSE'24, GPT-3.5) and UNLEASH (ICSE'25): their means over the 14 systems
 * and their Proxifier row, as their papers report them.
 */
#include "config.h"

#include <stddef.h>
#include <strings.h>

#include "logtk.h"

typedef struct published_row {
    const char *dataset;
    logtk_published_result result;
} published_row;

#define ISSTA "ISSTA'24 RQ2"
static const published_row rows[] = {
    {"Hadoop", {"Drain", ISSTA, .921, .541, .785, .384}},
    {"HDFS", {"Drain", ISSTA, .999, .621, .935, .609}},
    {"OpenStack", {"Drain", ISSTA, .752, .029, .007, .002}},
    {"Spark", {"Drain", ISSTA, .888, .394, .861, .412}},
    {"Zookeeper", {"Drain", ISSTA, .994, .843, .904, .614}},
    {"BGL", {"Drain", ISSTA, .919, .407, .624, .193}},
    {"HPC", {"Drain", ISSTA, .793, .721, .309, .152}},
    {"Thunderbird", {"Drain", ISSTA, .831, .216, .237, .071}},
    {"Linux", {"Drain", ISSTA, .686, .111, .778, .259}},
    {"Mac", {"Drain", ISSTA, .761, .357, .229, .069}},
    {"Apache", {"Drain", ISSTA, 1.000, .727, 1.000, .517}},
    {"OpenSSH", {"Drain", ISSTA, .707, .586, .872, .487}},
    {"HealthApp", {"Drain", ISSTA, .862, .312, .010, .004}},
    {"Proxifier", {"Drain", ISSTA, .692, .688, .206, .176}},
    {"Proxifier", {"LILAC", "FSE'24", 1, 1, 1, 1}},
    {"Proxifier", {"UNLEASH", "ICSE'25", 1, 1, 1, 1}},
    {"mean", {"Drain", ISSTA, .84, .47, .55, .28}},
    {"mean", {"LILAC", "FSE'24", .927, .842, .924, .810}},
    {"mean", {"UNLEASH", "ICSE'25", .955, .909, .926, .784}},
};

const logtk_published_result *logtk_published_full_result(const char *dataset, size_t i)
{
    if (!dataset)
        return NULL;
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++)
        if (strcasecmp(rows[r].dataset, dataset) == 0 && i-- == 0)
            return &rows[r].result;
    return NULL;
}
