/* parser_impl.h - to be written. */
