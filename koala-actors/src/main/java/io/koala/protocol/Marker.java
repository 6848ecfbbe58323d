package io.koala.protocol;

/**
 * In-band on a channel into a reconfigured operator (DESIGN §6.1 step 4): the sender switched its
 * routing to epoch {@code epoch} here; nothing it sent on this channel before the switch comes
 * after this item. Markers are not processing barriers.
 */
public record Marker(long epoch) implements ChannelItem {}
