package io.koala.testkit;

import java.util.Objects;

/**
 * One input record of a test run: the source it is fed to, the record, and its event timestamp
 * ({@link #NOW}: the driver's processing time when it is fed). Immutable.
 *
 * @param <T> the record's type
 */
public record TestRecord<T>(String source, T value, long timestamp) {
  /** A timestamp meaning "the driver's processing time when the record is fed". */
  public static final long NOW = Long.MIN_VALUE;

  public TestRecord {
    Objects.requireNonNull(source, "source");
  }

  /** {@code value} for {@code source}, stamped with the driver's processing time. */
  public static <T> TestRecord<T> of(String source, T value) {
    return new TestRecord<>(source, value, NOW);
  }

  /** {@code value} for {@code source} with event timestamp {@code timestampMillis}. */
  public static <T> TestRecord<T> of(String source, T value, long timestampMillis) {
    return new TestRecord<>(source, value, timestampMillis);
  }
}
