/* dataset_registry.c - to be written. */
#include "config.h"
