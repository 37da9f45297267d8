/* cmd_parse.c - logtk parse (to be written). */
#include "cli.h"
int cmd_parse(int argc, char **argv) { (void)argc; (void)argv; return cli_usage_error("parse", "not yet available"); }
