/* mask.h - to be written. */
