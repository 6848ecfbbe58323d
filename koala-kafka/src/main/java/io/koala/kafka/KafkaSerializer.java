package io.koala.kafka;

import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Turns a value a {@link KafkaSink} receives into the Kafka record to write: key and value bytes,
 * and, if it wants, another topic, a partition, a timestamp and headers. Called on the sink task's
 * thread, once per value (a restored writer resends the bytes it made; it is not called again for
 * them). When it throws or returns null, the sink fails naming the sink, its topic and the value's
 * class.
 *
 * <pre>{@code
 * KafkaSerializer<KeyValue<String, Long>> counts =
 *     KafkaSerializer.keyValue(kv -> kv.key().getBytes(UTF_8), kv -> Long.toString(kv.value()).getBytes(UTF_8));
 * }</pre>
 */
@FunctionalInterface
public interface KafkaSerializer<T> extends Serializable {

  /**
   * The record of {@code value}.
   *
   * @param topic the sink's topic (a record may name another)
   * @param timestamp the value's event time in the job, or negative when it has none
   */
  ProducerRecord<byte[], byte[]> serialize(T value, String topic, long timestamp) throws Exception;

  /** A serializable function, for {@link #keyValue}. */
  @FunctionalInterface
  interface Bytes<T> extends Function<T, byte[]>, Serializable {}

  /**
   * Records of the sink's topic, keyed by {@code key} (null: no key), valued by {@code value},
   * stamped with the value's event time (when it has one), partitioned by the producer. Kafka's
   * time-based retention judges records by these timestamps: output of old event times (a replay of
   * last year's data) may be deleted as soon as it is written; stamp such records otherwise.
   */
  static <T> KafkaSerializer<T> keyValue(Bytes<? super T> key, Bytes<? super T> value) {
    return (v, topic, ts) ->
        new ProducerRecord<>(topic, null, ts < 0 ? null : ts, key.apply(v), value.apply(v));
  }

  /** Each value's {@code toString()} as UTF-8, without a key. */
  static <T> KafkaSerializer<T> utf8Values() {
    return keyValue(v -> null, v -> v.toString().getBytes(StandardCharsets.UTF_8));
  }
}
