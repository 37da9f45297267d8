/* cmd_bench_detect.c - to be written. */
#include "cli.h"
int cmd_bench_detect(int argc, char **argv) { (void)argc; (void)argv; return cli_usage_error("bench_detect", "not yet available"); }
