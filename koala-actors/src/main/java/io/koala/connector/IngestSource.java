package io.koala.connector;

import io.koala.eventtime.TimestampFunction;
import io.koala.function.DataflowDefinitionException;
import java.util.Objects;

/**
 * A source the service pushes records into from its own threads, through the {@code Ingest} handle
 * that {@code JobHandle.ingest(source)} gives ({@link SourceSpec#ingest}). Unbounded until the
 * handle is completed.
 *
 * <p>The handle holds at most {@link #capacity()} records that the job may still need from it:
 * records not yet taken by a source task, and, when the job takes checkpoints, records taken but
 * not yet covered by a completed checkpoint (it sends those again to a task rolled back to a
 * checkpoint, so a crash inside the job loses and duplicates nothing). When it holds that many, an
 * offer waits: the job's backpressure reaches the service's threads, and nothing grows without
 * bound. Each task grants the handle a window of records it buffers ({@link #window()}).
 *
 * <p>Records are read by Koala's task runtime, which talks to the handle by messages; {@link
 * #createReader} is not for other callers.
 */
public final class IngestSource<T> implements SourceSpec<T> {
  private final String name;
  private final int capacity;
  private final int window;
  private final TimestampFunction<T> timestamps;

  IngestSource(String name, int capacity, int window, TimestampFunction<T> timestamps) {
    this.name = Objects.requireNonNull(name, "name");
    if (capacity < 1) {
      throw new DataflowDefinitionException(
          "ingest source '" + name + "': capacity must be at least 1, got " + capacity);
    }
    if (window < 1) {
      throw new DataflowDefinitionException(
          "ingest source '" + name + "': window must be at least 1, got " + window);
    }
    this.capacity = capacity;
    this.window = window;
    this.timestamps = timestamps;
  }

  /** The same source with event timestamps taken from the records. */
  public IngestSource<T> timestamps(TimestampFunction<T> fn) {
    return new IngestSource<>(name, capacity, window, Objects.requireNonNull(fn, "fn"));
  }

  /**
   * The same source whose tasks each buffer at most {@code records} records they have not read yet
   * (default: 4,096, or the capacity if smaller).
   */
  public IngestSource<T> window(int records) {
    return new IngestSource<>(name, capacity, records, timestamps);
  }

  @Override
  public String name() {
    return name;
  }

  /** How many records the handle holds at most (see the class comment). */
  public int capacity() {
    return capacity;
  }

  /** How many records a task takes beyond those it has read. */
  public int window() {
    return window;
  }

  /** The event time of {@code value} ({@link Long#MIN_VALUE}: none). */
  public long timestamp(T value) {
    return timestamps == null ? Long.MIN_VALUE : timestamps.timestamp(value);
  }

  /**
   * Not for callers: Koala's task runtime builds the reader of an ingest source itself, with the
   * messaging it needs.
   *
   * @throws UnsupportedOperationException always
   */
  @Override
  public SourceReader<T> createReader(SourceContext ctx) {
    throw new UnsupportedOperationException(
        "ingest source '" + name + "' is read by Koala's task runtime only");
  }

  @Override
  public String toString() {
    return "ingest source '" + name + "' (capacity " + capacity + ")";
  }
}
