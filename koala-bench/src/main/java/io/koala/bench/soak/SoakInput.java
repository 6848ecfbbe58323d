package io.koala.bench.soak;

import io.koala.kafka.testing.EmbeddedKafka;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The soak's input: record i has the key {@code i * 7919 mod keys} (every key equally often),
 * written to {@value SoakWorkload#INPUT} at {@code rate} records/s by an idempotent producer on a
 * thread of its own, each counted in the tally once the broker acknowledged it. {@link #stop} stops
 * it and waits for the records sent.
 */
final class SoakInput implements AutoCloseable {
  private final KafkaProducer<byte[], byte[]> producer;
  private final Thread thread;
  private final AtomicReference<Exception> failure = new AtomicReference<>();
  private volatile boolean stopping;
  private boolean closed;

  private SoakInput(EmbeddedKafka kafka, double rate, int keys, OutputTally tally) {
    producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                kafka.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG,
                "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                true,
                ProducerConfig.LINGER_MS_CONFIG,
                5),
            new ByteArraySerializer(),
            new ByteArraySerializer());
    thread =
        new Thread(
            () -> {
              long start = System.nanoTime();
              long sent = 0;
              while (!stopping && failure.get() == null) {
                long due = (long) ((System.nanoTime() - start) / 1e9 * rate);
                for (; sent < due; sent++) {
                  long key = (sent * 7919) % keys;
                  byte[] bytes = SoakWorkload.bytes(key);
                  producer.send(
                      new ProducerRecord<>(SoakWorkload.INPUT, bytes, bytes),
                      (meta, e) -> {
                        if (e == null) {
                          tally.written(key);
                        } else {
                          failure.compareAndSet(null, e);
                        }
                      });
                }
                LockSupport.parkNanos(10_000_000);
              }
            },
            "soak-input");
    thread.setDaemon(true);
    thread.start();
  }

  static SoakInput start(EmbeddedKafka kafka, double rate, int keys, OutputTally tally) {
    return new SoakInput(kafka, rate, keys, tally);
  }

  /**
   * Stops writing and waits until every record sent is acknowledged.
   *
   * @throws IllegalStateException if the broker refused a record: the tally does not know it
   */
  void stop() {
    if (closed) {
      return;
    }
    closed = true;
    stopping = true;
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    producer.close();
    if (failure.get() != null) {
      throw new IllegalStateException("the soak's input was refused a record", failure.get());
    }
  }

  /** {@link #stop}, when the soak ended before it did. */
  @Override
  public void close() {
    stop();
  }
}
