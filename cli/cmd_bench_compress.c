/* cmd_bench_compress.c - to be written. */
#include "cli.h"
int cmd_bench_compress(int argc, char **argv) { (void)argc; (void)argv; return cli_usage_error("bench_compress", "not yet available"); }
