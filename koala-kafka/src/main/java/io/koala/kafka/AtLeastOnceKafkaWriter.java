package io.koala.kafka;

import io.koala.connector.SinkContext;
import io.koala.connector.SinkWriter;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The writer of an at-least-once {@link KafkaSink} task: one idempotent producer ({@code acks=all})
 * sending as records arrive, flushed at each checkpoint's barrier and at the end, so that a
 * checkpoint never covers a record the broker has not acknowledged. A failed send fails the task
 * (at the next write, barrier or end); a rollback replays the records after the checkpoint, which
 * may then be written twice.
 */
final class AtLeastOnceKafkaWriter<T> implements SinkWriter<T> {
  private final KafkaSink<T> sink;
  private final int task;
  private final KafkaProducer<byte[], byte[]> producer;
  private final AtomicReference<Exception> sendError = new AtomicReference<>();
  private final Callback onSent =
      (metadata, e) -> {
        if (e != null) {
          sendError.compareAndSet(null, e);
        }
      };

  AtLeastOnceKafkaWriter(KafkaSink<T> sink, SinkContext ctx) {
    this.sink = sink;
    this.task = ctx.taskIndex();
    try {
      this.producer =
          new KafkaProducer<>(
              sink.producerConfig(null, task),
              new ByteArraySerializer(),
              new ByteArraySerializer());
    } catch (KafkaException e) {
      throw new KafkaSinkException(sink.describe() + ": cannot create its producer: " + e, e);
    }
  }

  @Override
  public void write(T value, long timestamp) {
    checkSent();
    try {
      producer.send(sink.serialize(value, timestamp), onSent);
    } catch (KafkaException e) {
      throw new KafkaSinkException(
          sink.describe() + ", task " + task + ": could not send a record: " + e, e);
    }
  }

  @Override
  public void prepareCommit(long checkpointId) {
    flushAll();
  }

  @Override
  public void finish() {
    flushAll();
  }

  private void flushAll() {
    try {
      producer.flush();
    } catch (KafkaException e) {
      throw new KafkaSinkException(sink.describe() + ", task " + task + ": flush failed: " + e, e);
    }
    checkSent();
  }

  private void checkSent() {
    Exception e = sendError.get();
    if (e != null) {
      throw new KafkaSinkException(
          sink.describe() + ", task " + task + ": a write failed: " + e, e);
    }
  }

  @Override
  public void close() {
    producer.close(Duration.ZERO);
  }
}
