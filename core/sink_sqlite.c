/* sink_sqlite.c - to be written. */
#include "config.h"
