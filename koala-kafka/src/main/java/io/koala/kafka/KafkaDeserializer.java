package io.koala.kafka;

import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Turns a Kafka record (key and value bytes, headers, timestamp, topic, partition, offset) into the
 * value a {@link KafkaSource} emits. Called on the source's fetch thread, one record at a time, in
 * offset order per partition; it may keep no state that a restore would have to rebuild. When it
 * throws, the source fails naming the topic, partition and offset of the record; returning {@code
 * null} is not allowed (a dataflow carries no nulls).
 *
 * <pre>{@code
 * KafkaDeserializer<Order> orders = record -> Order.parse(record.value());
 * }</pre>
 */
@FunctionalInterface
public interface KafkaDeserializer<T> extends Serializable {

  /** The value of {@code record}; {@code record.value()} is null for a tombstone. */
  T deserialize(ConsumerRecord<byte[], byte[]> record) throws Exception;

  /** The record's value as UTF-8 text (a tombstone fails). */
  static KafkaDeserializer<String> utf8Values() {
    return record -> new String(record.value(), StandardCharsets.UTF_8);
  }
}
