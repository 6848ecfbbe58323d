package io.koala.bench;

/**
 * Settings of one benchmark run.
 *
 * @param keys key space (keyed-count)
 * @param stateBytes bytes of state per key (keyed-count)
 * @param rate input records per second; 0: as fast as the dataflow reads
 * @param eventsPerSecond event-time rate of generated events (window-count): event time advances by
 *     {@code 1 / eventsPerSecond} s per event
 */
public record BenchSettings(
    int seconds,
    int warmupSeconds,
    int parallelism,
    int workers,
    long keys,
    int stateBytes,
    boolean separateSystems,
    double rate,
    long seed,
    double eventsPerSecond) {}
