package io.koala.protocol;

/**
 * In-band on every data channel (DESIGN §8): everything its sender did before it belongs to
 * checkpoint {@code checkpointId}, everything after to the next. Sources emit it when the
 * coordinator triggers a checkpoint; a task that has it from every open input snapshots and emits
 * it on each output, and holds the items of an input behind its barrier until then (alignment).
 */
public record CheckpointBarrier(long checkpointId) implements ChannelItem {}
