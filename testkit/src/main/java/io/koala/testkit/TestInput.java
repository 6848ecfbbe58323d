package io.koala.testkit;

import io.koala.eventtime.TimestampFunction;
import io.koala.eventtime.WatermarkStrategy;
import java.util.Objects;

/**
 * The input of one source of a dataflow run by a {@link DataflowTestDriver}: records piped here are
 * what the source reads, in order, instead of what its {@code SourceSpec} would read. Every call
 * runs the dataflow until nothing is left to do at the driver's current processing time, so the
 * outputs and state are final when it returns.
 *
 * <p>Event time: a record's timestamp is the one given, or the driver's processing time. If the
 * source was declared with a {@link WatermarkStrategy}, the watermark follows it after each record
 * (the largest timestamp minus the bound minus one) and is emitted at once; {@link
 * #advanceWatermark} declares one explicitly, with or without a strategy.
 *
 * <p>Not thread-safe: use it from the thread that uses its driver. Obtained from {@link
 * DataflowTestDriver#input(String)}.
 *
 * @param <T> the type of the source's records
 */
public final class TestInput<T> {
  private final DataflowTestDriver driver;
  private final FedSource log;

  TestInput(DataflowTestDriver driver, FedSource log) {
    this.driver = driver;
    this.log = log;
  }

  /** The source's name. */
  public String name() {
    return log.name();
  }

  /** Pipes {@code record}, stamped with the driver's processing time. */
  public void pipe(T record) {
    pipe(record, driver.currentProcessingTime());
  }

  /** Pipes {@code record} with event timestamp {@code timestampMillis}. */
  public void pipe(T record, long timestampMillis) {
    driver.feed(log, record, timestampMillis);
    driver.settle();
  }

  /** Pipes every record, in order, stamped with the driver's processing time; then runs. */
  public void pipeAll(Iterable<? extends T> records) {
    long now = driver.currentProcessingTime();
    pipeAll(records, r -> now);
  }

  /** Pipes every record, in order, with timestamps from {@code timestamps}; then runs. */
  public void pipeAll(Iterable<? extends T> records, TimestampFunction<? super T> timestamps) {
    Objects.requireNonNull(timestamps, "timestamps");
    for (T r : records) {
      driver.feed(log, r, timestamps.timestamp(r));
    }
    driver.settle();
  }

  /**
   * Declares that no record with a timestamp up to {@code watermarkMillis} follows: event-time
   * windows and timers up to it fire. A watermark not above the last one has no effect.
   */
  public void advanceWatermark(long watermarkMillis) {
    driver.declare(log, watermarkMillis);
    driver.settle();
  }

  /**
   * Ends the input: the source finishes once it has read everything, which lets event time run to
   * its end (every window and event-time timer fires). Nothing can be piped afterwards, and no
   * reconfiguration starts (as with a job whose bounded input has been read).
   */
  public void end() {
    driver.end(log);
    driver.settle();
  }

  @Override
  public String toString() {
    return "TestInput(" + log.name() + ")";
  }
}
