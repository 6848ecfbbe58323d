package io.koala.kafka.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.metadata.bootstrap.BootstrapMetadata;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A single Kafka node in this JVM for tests and benchmarks: one process that is broker and KRaft
 * controller at once, on free loopback ports, its logs in a temporary directory deleted on {@link
 * #close}. It starts in a few seconds and needs no network beyond loopback.
 *
 * <p>Configured as a production broker of its version would be, for one node: the metadata version
 * and feature levels are the latest <em>production</em> ones (transaction version 2 of KIP-890
 * included), unstable APIs and features are off, and the internal topics have one replica.
 * Two-phase commit (KIP-939, {@code transaction.two.phase.commit.enable}) is allowed on the broker;
 * whether a client can use it is another matter (see {@code TwoPhaseCommitSpikeTest}).
 *
 * <pre>{@code
 * try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
 *   kafka.createTopic("orders", 4);
 *   String servers = kafka.bootstrapServers();
 * }
 * }</pre>
 *
 * <p>Built on {@code KafkaClusterTestKit} ({@code org.apache.kafka:kafka-test-common-runtime}),
 * used directly, without its JUnit extension. Thread-safe.
 */
public final class EmbeddedKafka implements AutoCloseable {
  private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);

  private final KafkaClusterTestKit cluster;
  private final Admin admin;

  private EmbeddedKafka(KafkaClusterTestKit cluster) {
    this.cluster = cluster;
    this.admin = cluster.admin();
  }

  /** Starts a node with the default configuration; returns once it accepts clients. */
  public static EmbeddedKafka start() {
    return start(Map.of());
  }

  /**
   * Starts a node with the default configuration and {@code overrides} (broker configuration names
   * and values); returns once it accepts clients.
   */
  public static EmbeddedKafka start(Map<String, String> overrides) {
    KafkaClusterTestKit cluster = null;
    try {
      TestKitNodes nodes =
          new TestKitNodes.Builder(productionMetadata())
              .setCombined(true)
              .setNumBrokerNodes(1)
              .setNumControllerNodes(1)
              .build();
      KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(nodes);
      defaults().forEach(builder::setConfigProp);
      overrides.forEach(builder::setConfigProp);
      cluster = builder.build();
      cluster.format();
      cluster.startup();
      cluster.waitForReadyBrokers();
      return new EmbeddedKafka(cluster);
    } catch (Exception e) {
      if (cluster != null) {
        try {
          cluster.close();
        } catch (Exception suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new IllegalStateException("the embedded Kafka node did not start: " + e, e);
    }
  }

  /** The broker configuration every node starts with (before overrides). */
  static Map<String, String> defaults() {
    Map<String, String> c = new TreeMap<>();
    c.put("transaction.two.phase.commit.enable", "true"); // KIP-939
    c.put("transaction.state.log.replication.factor", "1");
    c.put("transaction.state.log.min.isr", "1");
    c.put("transaction.state.log.num.partitions", "4"); // fewer than 50: a faster first transaction
    c.put("offsets.topic.replication.factor", "1");
    c.put("offsets.topic.num.partitions", "4");
    c.put("group.initial.rebalance.delay.ms", "0");
    c.put("auto.create.topics.enable", "false"); // a test of a missing topic must see one
    c.put("num.partitions", "1");
    // tests stamp records with small event times (1970): a segment rolls at each append when its
    // first timestamp is older than segment.ms, and the retention pass 30 s after the start would
    // delete whatever is older than 7 days, that is every record but the latest
    c.put("log.retention.ms", "-1");
    // the kit's defaults are for Kafka's own tests of unreleased protocol: a production broker has
    // neither unstable APIs nor unstable features
    c.put("unstable.api.versions.enable", "false");
    c.put("unstable.feature.versions.enable", "false");
    return c;
  }

  /** The latest production metadata version, every production feature at its default level. */
  private static BootstrapMetadata productionMetadata() {
    MetadataVersion version = MetadataVersion.latestProduction();
    Map<String, Short> levels =
        Feature.PRODUCTION_FEATURES.stream()
            .collect(
                Collectors.toMap(
                    Feature::featureName, f -> f.defaultLevel(version), (a, b) -> a, TreeMap::new));
    return BootstrapMetadata.fromVersions(version, levels, "embedded-kafka");
  }

  /** {@code host:port} of the broker's listener, for {@code bootstrap.servers}. */
  public String bootstrapServers() {
    return cluster.bootstrapServers();
  }

  /** Creates {@code topic} with {@code partitions} partitions (one replica each); waits for it. */
  public void createTopic(String topic, int partitions) {
    await(
        "create topic '" + topic + "'",
        admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all());
    awaitLeaders(topic, partitions);
  }

  /**
   * Waits until each of the first {@code partitions} partitions of {@code topic} has a leader: the
   * controller answers a creation before the broker leads the new partitions (or even knows the
   * topic), and a producer that writes at once sees retriable errors (and, idempotent, out-of-order
   * sequences).
   */
  private void awaitLeaders(String topic, int partitions) {
    long deadline = System.nanoTime() + ADMIN_TIMEOUT.toNanos();
    while (true) {
      TopicDescription d;
      try {
        d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
          throw new IllegalStateException(
              "embedded Kafka: could not describe topic '" + topic + "': " + e.getCause(), e);
        }
        d = null; // the broker has not heard of the new topic yet
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("embedded Kafka: interrupted", e);
      }
      long led =
          d == null
              ? 0
              : d.partitions().stream()
                  .filter(p -> p.leader() != null && !p.leader().isEmpty())
                  .count();
      if (led >= partitions) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "embedded Kafka: topic '"
                + topic
                + "' has leaders for "
                + led
                + " of "
                + partitions
                + " partitions after "
                + ADMIN_TIMEOUT);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
  }

  /** Grows {@code topic} to {@code partitions} partitions in all; waits for it. */
  public void addPartitions(String topic, int partitions) {
    await(
        "grow topic '" + topic + "' to " + partitions + " partitions",
        admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(partitions))).all());
    awaitLeaders(topic, partitions);
  }

  /** An admin client of this node, owned by it (closed with it): do not close it. */
  public Admin admin() {
    return admin;
  }

  /** Properties of a client of this node: {@code bootstrap.servers} and {@code extra}. */
  public Properties clientProperties(Map<String, Object> extra) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrapServers());
    p.putAll(extra);
    return p;
  }

  /**
   * Writes {@code records} (each value to the partition {@code partitionOf} gives, no key) with an
   * idempotent producer, one request in flight, and waits until all are acknowledged. {@code
   * timestampOf} gives each record's timestamp.
   */
  public <T> void produce(
      String topic,
      Collection<T> records,
      Function<T, Integer> partitionOf,
      Function<T, byte[]> valueOf,
      Function<T, Long> timestampOf) {
    Properties p =
        clientProperties(
            Map.of(
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.LINGER_MS_CONFIG, "5",
                ProducerConfig.BATCH_SIZE_CONFIG, "262144",
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000",
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "20000",
                // one request in flight: a new partition's first batch may still be refused
                // (NOT_LEADER_OR_FOLLOWER) after its leader shows, and with five in flight the
                // batches sent behind it were refused as out of order until they expired
                ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1"));
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (T r : records) {
        sent.add(
            producer.send(
                new ProducerRecord<>(
                    topic, partitionOf.apply(r), timestampOf.apply(r), null, valueOf.apply(r))));
      }
      producer.flush();
      for (Future<RecordMetadata> f : sent) {
        f.get(); // flushed: done; a failed record fails the caller
      }
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "embedded Kafka: could not write to topic '" + topic + "': " + e.getCause(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("embedded Kafka: interrupted writing to '" + topic + "'", e);
    }
  }

  private static <T> T await(String what, org.apache.kafka.common.KafkaFuture<T> future) {
    try {
      return future.get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException("embedded Kafka: could not " + what + ": " + e.getCause(), e);
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "embedded Kafka: could not " + what + " within " + ADMIN_TIMEOUT, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("embedded Kafka: interrupted: " + what, e);
    }
  }

  /** Stops the node and deletes its logs. */
  @Override
  public void close() {
    try {
      admin.close(Duration.ofSeconds(5));
      cluster.close();
    } catch (Exception e) {
      throw new IllegalStateException("the embedded Kafka node did not stop cleanly: " + e, e);
    }
  }

  @Override
  public String toString() {
    return "EmbeddedKafka(" + bootstrapServers() + ")";
  }
}
