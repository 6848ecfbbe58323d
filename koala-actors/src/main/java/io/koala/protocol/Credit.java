package io.koala.protocol;

/**
 * Receiver → sender of data channel {@code channel}: you may send every item with a sequence number
 * below {@code limit}. Cumulative, so a lost or repeated grant is harmless; re-sent periodically.
 */
public record Credit(int channel, long limit) implements TaskMessage {}
