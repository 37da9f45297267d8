/* reader.c - to be written. */
#include "config.h"
