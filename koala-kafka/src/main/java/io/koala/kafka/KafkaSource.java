package io.koala.kafka;

import io.koala.connector.SourceContext;
import io.koala.connector.SourceReader;
import io.koala.connector.SourceSpec;
import io.koala.function.DataflowDefinitionException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * A source reading one Kafka topic: each partition is a split (id {@code "<topic>-<partition>"}),
 * its position the offset of the next record to read, kept in Koala's checkpoints — the truth after
 * a restore, whatever Kafka's consumer group says. Source task {@code t} of {@code p} reads the
 * partitions whose number modulo {@code p} is {@code t}, with {@code assign} (no consumer group
 * rebalancing); partitions added to the topic while the job runs are found and read from their
 * start. Each record's event time is its Kafka timestamp (the source's {@code WatermarkStrategy}
 * applies on top, per partition).
 *
 * <pre>{@code
 * SourceSpec<String> orders = KafkaSource.<String>builder("orders")
 *     .bootstrapServers("localhost:9092")
 *     .topic("orders")
 *     .deserializer(KafkaDeserializer.utf8Values())
 *     .build();
 * b.source(orders, WatermarkStrategy.boundedOutOfOrderness(Duration.ofSeconds(5)))...
 * }</pre>
 *
 * <p>Each source task runs one consumer on a fetch thread of its own, which polls, deserializes and
 * hands batches to the task through a bounded queue (the task never blocks on Kafka). Defaults that
 * differ from the consumer's: {@code isolation.level=read_committed} (only committed transactions
 * are read), {@code auto.offset.reset=none} (a position no longer in the log fails the source
 * rather than silently skipping data), {@code allow.auto.create.topics=false}, {@code
 * enable.auto.commit=false} (always), {@code max.poll.records=2000}, {@code metadata.max.age.ms} =
 * the partition discovery interval (discovery reads the consumer's metadata). Immutable and
 * thread-safe.
 */
public final class KafkaSource<T> implements SourceSpec<T> {
  /** Consumer properties the source sets itself; {@link Builder#property} refuses them. */
  private static final Set<String> RESERVED =
      Set.of(
          ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
          ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
          ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
          ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG);

  private final String name;
  private final String bootstrapServers;
  private final String topic;
  private final KafkaDeserializer<T> deserializer;
  private final Map<String, String> properties;
  private final StartingOffsets startingOffsets;
  private final boolean commitOffsetsOnCheckpoint;
  private final Duration partitionDiscoveryInterval;
  private final boolean bounded;
  private final Duration connectTimeout;

  private KafkaSource(Builder<T> b) {
    this.name = b.name;
    this.bootstrapServers = b.bootstrapServers;
    this.topic = b.topic;
    this.deserializer = b.deserializer;
    this.properties = Map.copyOf(b.properties);
    this.startingOffsets = b.startingOffsets;
    this.commitOffsetsOnCheckpoint = b.commitOffsetsOnCheckpoint;
    this.partitionDiscoveryInterval = b.partitionDiscoveryInterval;
    this.bounded = b.bounded;
    this.connectTimeout = b.connectTimeout;
  }

  /** A builder of the source named {@code name} (the source operator's name in the dataflow). */
  public static <T> Builder<T> builder(String name) {
    return new Builder<>(name);
  }

  @Override
  public String name() {
    return name;
  }

  public String bootstrapServers() {
    return bootstrapServers;
  }

  public String topic() {
    return topic;
  }

  KafkaDeserializer<T> deserializer() {
    return deserializer;
  }

  public StartingOffsets startingOffsets() {
    return startingOffsets;
  }

  public boolean commitOffsetsOnCheckpoint() {
    return commitOffsetsOnCheckpoint;
  }

  /** How often a running reader looks for new partitions; {@link Duration#ZERO}: never. */
  public Duration partitionDiscoveryInterval() {
    return partitionDiscoveryInterval;
  }

  /** Whether each partition ends at the end offset it had when its reader started. */
  public boolean bounded() {
    return bounded;
  }

  /** How long a reader waits for the broker's first answer before it fails. */
  public Duration connectTimeout() {
    return connectTimeout;
  }

  /** The split id of {@code partition}. */
  public String splitId(int partition) {
    return topic + "-" + partition;
  }

  /** The partition of split {@code "<topic>-<partition>"}, or -1 when it is not of this topic. */
  int partitionOf(String split) {
    String prefix = topic + "-";
    if (!split.startsWith(prefix)) {
      return -1;
    }
    try {
      return Integer.parseInt(split.substring(prefix.length()));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /**
   * A Kafka source can be rescaled while it runs: its partitions move between tasks with their
   * offsets (each task then opens a new consumer).
   */
  @Override
  public boolean rescalable() {
    return true;
  }

  /** Partition {@code p} is read by the task at slot {@code p % parallelism}. */
  @Override
  public int slotOf(String split, int parallelism) {
    int p = partitionOf(split);
    if (p < 0) {
      throw new IllegalArgumentException(describe() + ": '" + split + "' is no split of it");
    }
    return p % parallelism;
  }

  /**
   * The consumer configuration of source task {@code taskIndex}: the source's defaults, then the
   * user's properties, then what the source always sets.
   */
  Map<String, Object> consumerConfig(int taskIndex) {
    Map<String, Object> c = new TreeMap<>();
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
    c.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
    c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
    c.put(ConsumerConfig.CLIENT_ID_CONFIG, "koala-" + name + "-" + taskIndex);
    if (!bounded && !partitionDiscoveryInterval.isZero()) {
      // discovery reads the consumer's metadata, which it refreshes this often
      long age = Math.max(100, partitionDiscoveryInterval.toMillis());
      c.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, Long.toString(age));
    }
    c.putAll(properties);
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    return c;
  }

  /** What an error of this source starts with: the source, its servers and topic. */
  String describe() {
    return "Kafka source '" + name + "' (topic '" + topic + "' at " + bootstrapServers + ")";
  }

  @Override
  public SourceReader<T> createReader(SourceContext ctx) {
    return new KafkaReader<>(this, ctx);
  }

  @Override
  public String toString() {
    return describe();
  }

  /**
   * Builds a {@link KafkaSource}; {@link #build} checks it and fails with a {@link
   * DataflowDefinitionException} naming the source. Not thread-safe.
   */
  public static final class Builder<T> {
    private final String name;
    private String bootstrapServers;
    private String topic;
    private KafkaDeserializer<T> deserializer;
    private final Map<String, String> properties = new TreeMap<>();
    private StartingOffsets startingOffsets = StartingOffsets.EARLIEST;
    private boolean commitOffsetsOnCheckpoint;
    private Duration partitionDiscoveryInterval = Duration.ofSeconds(10);
    private boolean bounded;
    private Duration connectTimeout = Duration.ofSeconds(30);

    private Builder(String name) {
      this.name = Objects.requireNonNull(name, "name");
    }

    /** {@code host:port[,host:port...]}; required. */
    public Builder<T> bootstrapServers(String servers) {
      this.bootstrapServers = Objects.requireNonNull(servers, "servers");
      return this;
    }

    /** The topic to read; required. */
    public Builder<T> topic(String topic) {
      this.topic = Objects.requireNonNull(topic, "topic");
      return this;
    }

    /** Makes each record's value; required. */
    public Builder<T> deserializer(KafkaDeserializer<T> deserializer) {
      this.deserializer = Objects.requireNonNull(deserializer, "deserializer");
      return this;
    }

    /**
     * A consumer property ({@code security.protocol}, {@code group.id}, {@code max.poll.records},
     * ...); overrides the source's defaults. The bootstrap servers, the deserializers and {@code
     * enable.auto.commit} are the source's own.
     */
    public Builder<T> property(String key, String value) {
      properties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /** Where partitions without a checkpointed position start; {@link StartingOffsets#EARLIEST}. */
    public Builder<T> startingOffsets(StartingOffsets from) {
      this.startingOffsets = Objects.requireNonNull(from, "from");
      return this;
    }

    /**
     * Commits each completed checkpoint's positions to the consumer group ({@code group.id} must be
     * set), so Kafka's tools show the job's progress. For monitoring only: a restore reads from the
     * checkpoint, never from these commits. Off by default.
     */
    public Builder<T> commitOffsetsOnCheckpoint(boolean commit) {
      this.commitOffsetsOnCheckpoint = commit;
      return this;
    }

    /** How often to look for partitions added to the topic; 10 s by default; zero: never. */
    public Builder<T> partitionDiscoveryInterval(Duration interval) {
      if (interval.isNegative()) {
        throw new IllegalArgumentException("negative partition discovery interval: " + interval);
      }
      this.partitionDiscoveryInterval = interval;
      return this;
    }

    /**
     * Reads each partition up to the end offset it has when the reader starts (after a restore:
     * when the restored reader starts), then ends: the source's input is complete once every
     * partition reached its end. No partition discovery. For tests and benchmarks.
     */
    public Builder<T> boundedAtEndOffsets() {
      this.bounded = true;
      return this;
    }

    /**
     * How long a reader waits for the broker's first answer (the topic's partitions) before the
     * source fails naming the servers and the topic; 30 s by default.
     */
    public Builder<T> connectTimeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("connect timeout must be positive: " + timeout);
      }
      this.connectTimeout = timeout;
      return this;
    }

    public KafkaSource<T> build() {
      String what = "Kafka source '" + name + "'";
      if (name.isBlank()) {
        throw new DataflowDefinitionException("a Kafka source needs a name");
      }
      if (bootstrapServers == null || bootstrapServers.isBlank()) {
        throw new DataflowDefinitionException(what + ": bootstrapServers(...) is required");
      }
      if (topic == null || topic.isBlank()) {
        throw new DataflowDefinitionException(what + ": topic(...) is required");
      }
      if (deserializer == null) {
        throw new DataflowDefinitionException(
            what + " (topic '" + topic + "'): deserializer(...) is required");
      }
      for (String key : properties.keySet()) {
        if (RESERVED.contains(key)) {
          throw new DataflowDefinitionException(
              what
                  + ": property '"
                  + key
                  + "' is set by the source itself (use bootstrapServers(...) and"
                  + " deserializer(...); offsets are committed only with"
                  + " commitOffsetsOnCheckpoint)");
        }
      }
      boolean hasGroup = properties.containsKey(ConsumerConfig.GROUP_ID_CONFIG);
      if (commitOffsetsOnCheckpoint && !hasGroup) {
        throw new DataflowDefinitionException(
            what + ": commitOffsetsOnCheckpoint(true) needs property group.id");
      }
      if (startingOffsets == StartingOffsets.COMMITTED && !hasGroup) {
        throw new DataflowDefinitionException(
            what + ": startingOffsets(COMMITTED) needs property group.id");
      }
      return new KafkaSource<>(this);
    }
  }
}
