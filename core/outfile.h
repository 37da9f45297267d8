/* outfile.h - to be written. */
