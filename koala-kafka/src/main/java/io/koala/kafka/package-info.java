/**
 * Kafka connectors: {@link io.koala.kafka.KafkaSource}, a source whose splits are a topic's
 * partitions and whose positions (the next offset of each partition) live in Koala's checkpoints;
 * {@link io.koala.kafka.KafkaSink}, a sink writing at least once, or exactly once in transactions
 * committed on Koala's checkpoints with a write-ahead log in them.
 *
 * <p>API (docs/api.md): no public signature here names a type of an internal package.
 */
package io.koala.kafka;
