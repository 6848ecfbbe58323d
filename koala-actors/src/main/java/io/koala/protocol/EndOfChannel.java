package io.koala.protocol;

/**
 * The last item of a channel: the sender will send nothing more on it. The receiver drops the
 * channel from its inputs only when it consumes this item, after every batch before it.
 */
public enum EndOfChannel implements ChannelItem {
  INSTANCE
}
