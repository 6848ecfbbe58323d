package io.koala.protocol;

/**
 * Event-time progress of a channel: the sender will send no record with a timestamp at or below
 * {@code timestamp} after this item. Monotone per channel.
 */
public record Watermark(long timestamp) implements ChannelItem {}
