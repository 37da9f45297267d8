/* parser_drain.c - to be written. */
#include "config.h"
