package io.koala.bench.soak;

import io.koala.kafka.testing.EmbeddedKafka;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The soak's reader of {@value SoakWorkload#OUTPUT}, {@code read_committed} (what a downstream
 * consumer of an exactly-once sink sees), on a thread of its own from the first offset, each (key,
 * count) given to the tally.
 */
final class SoakOutput implements AutoCloseable {
  private final String servers;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final List<TopicPartition> partitions = new ArrayList<>();
  private final Thread thread;
  private final AtomicReference<Exception> failure = new AtomicReference<>();
  private volatile Map<TopicPartition, Long> until; // set by drain: read up to these, then stop
  private volatile boolean caughtUp;
  private volatile boolean stopping;

  private SoakOutput(EmbeddedKafka kafka, int partitionCount, OutputTally tally) {
    servers = kafka.bootstrapServers();
    consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                kafka.bootstrapServers(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer());
    for (int p = 0; p < partitionCount; p++) {
      partitions.add(new TopicPartition(SoakWorkload.OUTPUT, p));
    }
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
    thread =
        new Thread(
            () -> {
              try {
                while (!stopping && !caughtUp) {
                  for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    tally.output(
                        ByteBuffer.wrap(r.key()).getLong(), ByteBuffer.wrap(r.value()).getLong());
                  }
                  Map<TopicPartition, Long> end = until;
                  if (end != null) {
                    caughtUp =
                        end.entrySet().stream()
                            .allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
                  }
                }
              } catch (Exception e) {
                failure.set(e);
              }
            },
            "soak-output");
    thread.setDaemon(true);
    thread.start();
  }

  static SoakOutput start(EmbeddedKafka kafka, int partitions, OutputTally tally) {
    return new SoakOutput(kafka, partitions, tally);
  }

  /**
   * Reads what is committed now (the last stable offsets) and stops.
   *
   * @throws IllegalStateException if reading failed or did not catch up within {@code timeout}
   */
  void drain(Duration timeout) {
    try (KafkaConsumer<byte[], byte[]> probe =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                servers,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_committed"),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
      until = probe.endOffsets(partitions);
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!caughtUp && failure.get() == null && thread.isAlive()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the output was not read up to " + until + " in " + timeout);
      }
      LockSupport.parkNanos(50_000_000);
    }
    if (failure.get() != null) {
      throw new IllegalStateException("reading the soak's output failed", failure.get());
    }
  }

  @Override
  public void close() {
    stopping = true;
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    consumer.close();
  }
}
