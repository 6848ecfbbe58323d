package io.koala.bench;

import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.KeyValue;
import io.koala.kafka.KafkaSerializer;
import io.koala.kafka.KafkaSink;
import io.koala.kafka.KafkaSource;
import io.koala.kafka.testing.EmbeddedKafka;
import io.koala.runtime.KoalaConfig;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Kafka to Kafka with exactly-once: a broker in this process ({@link EmbeddedKafka}), a topic
 * preloaded with uniformly random 8-byte keys over {@code --keys}, read by a {@link KafkaSource},
 * counted per key ({@code count}, LMDB state) and written to a second topic by an exactly-once
 * {@link KafkaSink}, with a checkpoint every {@code --checkpoint-interval-ms}. Measures the records
 * the count consumes after a warm-up, as {@link BenchRunner} does for the other benches. The topic
 * holds {@value #PRELOAD_PER_SECOND} records per second of warm-up and measurement: a run that
 * reads them all before it ends is reported invalid.
 */
public final class KafkaCountBench {
  static final long PRELOAD_PER_SECOND = 500_000;

  private KafkaCountBench() {}

  static Dataflow dataflow(BenchSettings s, String servers) {
    DataflowBuilder b = Dataflow.builder("kafka-count").parallelism(s.parallelism());
    b.source(
            KafkaSource.<Long>builder("events")
                .bootstrapServers(servers)
                .topic("events")
                .deserializer(r -> ByteBuffer.wrap(r.value()).getLong())
                .build())
        .keyBy((Long k) -> k)
        .count("count")
        .sink(
            KafkaSink.<KeyValue<Long, Long>>builder("counts")
                .bootstrapServers(servers)
                .topic("counts")
                .serializer(
                    KafkaSerializer.keyValue(
                        kv -> ByteBuffer.allocate(8).putLong(kv.key()).array(),
                        kv -> ByteBuffer.allocate(8).putLong(kv.value()).array()))
                .exactlyOnce("kafka-count")
                .build());
    return b.build();
  }

  /** Writes {@code n} records of uniformly random keys (record i: key {@code keyOf(i)}). */
  static void preload(String servers, BenchSettings s, long n) {
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                servers,
                ProducerConfig.LINGER_MS_CONFIG,
                20,
                ProducerConfig.BATCH_SIZE_CONFIG,
                512 * 1024,
                ProducerConfig.ACKS_CONFIG,
                "1"),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      for (long i = 0; i < n; i++) {
        byte[] key =
            ByteBuffer.allocate(8).putLong(KeyedCountBench.keyOf(i, s.seed(), s.keys())).array();
        producer.send(new ProducerRecord<>("events", key, key));
      }
      producer.flush();
    }
  }

  /** Starts the broker, preloads the topic, runs the bench and returns its figures. */
  public static BenchResult run(BenchSettings s, KoalaConfig base, Duration checkpointInterval)
      throws Exception {
    Path dir = Files.createTempDirectory("kafka-count");
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      int partitions = 2 * s.parallelism();
      kafka.createTopic("events", partitions);
      kafka.createTopic("counts", partitions);
      long preloaded = (s.warmupSeconds() + s.seconds()) * PRELOAD_PER_SECOND;
      long t0 = System.nanoTime();
      preload(kafka.bootstrapServers(), s, preloaded);
      System.err.printf(
          "kafka-count: preloaded %,d records in %.1f s%n",
          preloaded, (System.nanoTime() - t0) / 1e9);
      BenchResult r =
          BenchRunner.run(
              "kafka-count",
              dataflow(s, kafka.bootstrapServers()),
              "count",
              m -> s.keys(),
              s,
              base.withDataDir(dir).withCheckpointInterval(checkpointInterval));
      long lag = (Long) r.get("sourceLagRecords");
      return r.put("exactlyOnce", true)
          .put("checkpointIntervalMs", checkpointInterval.toMillis())
          .put("preloaded", preloaded)
          .put("partitions", partitions)
          .put("valid", lag > 0); // the topic was not read dry before the measurement ended
    }
  }
}
