/* cmd_bench.c - logtk bench (to be written). */
#include "cli.h"
int cmd_bench(int argc, char **argv) { (void)argc; (void)argv; return cli_usage_error("bench", "not yet available"); }
