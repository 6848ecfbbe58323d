package io.koala.channel;

import io.koala.function.UserFunctionException;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.RecordBatch;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.SerializationException;
import io.koala.serialization.TypeRegistry;

/**
 * Accumulates the records of one output channel until the batch is full by count or estimated
 * bytes. Checks that every value's class can be serialized before it leaves the task, so a missing
 * registration fails the emitting operator at once, in every deployment mode.
 */
public final class BatchBuilder {
  private final int maxRecords;
  private final int maxBytes;
  private final TypeRegistry registry;
  private final String operator;
  private Object[] values;
  private long[] timestamps;
  private int size;
  private long bytes;
  private Class<?> lastClass;

  public BatchBuilder(ChannelSettings settings, TypeRegistry registry, String operator) {
    this.maxRecords = settings.maxBatchRecords();
    this.maxBytes = settings.maxBatchBytes();
    this.registry = registry;
    this.operator = operator;
    allocate();
  }

  /**
   * Adds a record.
   *
   * @return whether the batch is now full
   */
  public boolean add(Object value, long timestamp) {
    Class<?> c = value == null ? null : value.getClass();
    if (c != lastClass) {
      if (c != null && !registry.isRegistered(c)) {
        SerializationException cause = KryoSerde.unregistered(c.getName(), null);
        throw new SerializationException(
            "operator '" + operator + "' emitted a " + c.getName() + ": " + cause.getMessage(),
            cause);
      }
      lastClass = c;
    }
    int estimate = SizeEstimate.of(value);
    String oversized = SizeEstimate.oversized(c, estimate);
    if (oversized != null) { // this record's fault: the job's record error policy applies
      throw new UserFunctionException(
          operator, new SerializationException("it emitted " + oversized));
    }
    values[size] = value;
    timestamps[size] = timestamp;
    size++;
    bytes += estimate;
    return size >= maxRecords || bytes >= maxBytes;
  }

  public boolean isEmpty() {
    return size == 0;
  }

  /** Hands over the records added so far as a batch and starts a new one. */
  public RecordBatch take() {
    RecordBatch b = new RecordBatch(values, timestamps, size);
    allocate();
    return b;
  }

  private void allocate() {
    values = new Object[maxRecords];
    timestamps = new long[maxRecords];
    size = 0;
    bytes = 0;
  }
}
