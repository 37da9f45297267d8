/* cmd_detect.c - to be written. */
#include "cli.h"
int cmd_detect(int argc, char **argv) { (void)argc; (void)argv; return cli_usage_error("detect", "not yet available"); }
