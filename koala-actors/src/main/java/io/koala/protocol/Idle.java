package io.koala.protocol;

/**
 * The sender has no data for now: drop the channel from the watermark minimum until it sends a
 * record batch or a watermark again.
 */
public enum Idle implements ChannelItem {
  INSTANCE
}
