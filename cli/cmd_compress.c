/* cmd_compress.c - to be written. */
#include "cli.h"
int cmd_compress(int argc, char **argv) { (void)argc; (void)argv; return cli_usage_error("compress", "not yet available"); }
