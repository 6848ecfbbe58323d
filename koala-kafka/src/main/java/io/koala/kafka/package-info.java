/**
 * Kafka connectors: {@link io.koala.kafka.KafkaSource}, a source whose splits are a topic's
 * partitions and whose positions (the next offset of each partition) live in Koala's checkpoints.
 */
package io.koala.kafka;
