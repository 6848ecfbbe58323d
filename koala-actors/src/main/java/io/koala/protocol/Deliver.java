package io.koala.protocol;

/**
 * Carries item {@code seq} of data channel {@code channel} from its sender task to its receiver
 * task. Sent only with credit; the receiver fails the job on any gap in {@code seq}.
 */
public record Deliver(int channel, long seq, ChannelItem item) implements TaskMessage {}
