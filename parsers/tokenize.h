/* tokenize.h - to be written. */
