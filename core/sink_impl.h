/* sink_impl.h - to be written. */
