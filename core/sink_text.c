/* sink_text.c - to be written. */
#include "config.h"
