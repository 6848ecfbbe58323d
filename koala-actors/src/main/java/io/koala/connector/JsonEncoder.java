package io.koala.connector;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import java.util.Objects;

/**
 * Turns a record into the JSON text of one line of {@link SinkSpec#jsonLines}. Called by the sink's
 * tasks, each from one thread at a time, possibly concurrently across tasks.
 *
 * <pre>{@code
 * // the default: Jackson with its default settings
 * SinkSpec.jsonLines("counts", dir);
 * // a mapper of the service's own (modules, naming strategy, ...)
 * SinkSpec.jsonLines("counts", dir, JsonEncoder.jackson(serviceMapper));
 * // any function
 * SinkSpec.<KeyValue<String, Long>>jsonLines(
 *     "counts", dir, kv -> "{\"k\":\"" + kv.key() + "\",\"n\":" + kv.value() + "}");
 * }</pre>
 */
@FunctionalInterface
public interface JsonEncoder<T> {

  /**
   * The JSON text of {@code value}; it must not contain a line break (the sink fails naming the
   * record's class if it does: one record is one line).
   */
  String encode(T value) throws Exception;

  /** Jackson with its default settings (the library's {@link Json} writer). */
  static <T> JsonEncoder<T> jackson() {
    return jackson(Json.mapper());
  }

  /** Jackson with {@code mapper}: its modules, naming and inclusion settings. */
  static <T> JsonEncoder<T> jackson(ObjectMapper mapper) {
    ObjectWriter writer = Objects.requireNonNull(mapper, "mapper").writer();
    return writer::writeValueAsString;
  }
}
