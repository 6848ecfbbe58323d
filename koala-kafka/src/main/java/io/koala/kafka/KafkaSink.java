package io.koala.kafka;

import io.koala.connector.SinkContext;
import io.koala.connector.SinkSpec;
import io.koala.connector.SinkWriter;
import io.koala.function.DataflowDefinitionException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * A sink writing to Kafka, at least once or exactly once.
 *
 * <pre>{@code
 * SinkSpec<KeyValue<String, Long>> out = KafkaSink.<KeyValue<String, Long>>builder("counts-out")
 *     .bootstrapServers("localhost:9092")
 *     .topic("counts")
 *     .serializer(KafkaSerializer.keyValue(kv -> kv.key().getBytes(UTF_8),
 *                                          kv -> Long.toString(kv.value()).getBytes(UTF_8)))
 *     .exactlyOnce("orders-job")
 *     .build();
 * counts.sink(out);
 * }</pre>
 *
 * <p><b>At least once</b> (the default, {@link Builder#atLeastOnce}): one idempotent producer per
 * sink task ({@code acks=all}), flushed at every checkpoint's barrier; a rollback replays what came
 * after the checkpoint, so records can be written twice, never lost.
 *
 * <p><b>Exactly once</b> ({@link Builder#exactlyOnce}, needs a job that takes checkpoints, {@code
 * koala.checkpoint.interval}): the records of each checkpoint interval are written in a Kafka
 * transaction that is committed once the checkpoint is durably recorded, so consumers with {@code
 * isolation.level=read_committed} see each record once, even across crashes, rollbacks and the loss
 * of a worker; they see it a checkpoint interval plus a commit later. Kafka 4.3 clients cannot take
 * over a prepared transaction (no public KIP-939 API), so the sink keeps a write-ahead log of the
 * records of the checkpoints not yet committed in Koala's checkpoint, and a marker per transaction
 * in a compacted marker topic (default {@code <prefix>-<sink>-markers}, one partition per sink
 * task, created if missing) tells a restored task which to publish again. Costs: the log (the
 * sink's output of up to {@link Builder#producerPool} uncommitted intervals, bounded by {@link
 * Builder#maxUncommittedBytes}: a checkpoint is asked for early, and the task backpressures, as it
 * fills) is held in memory and written into every checkpoint; a marker per task and checkpoint; a
 * blocking flush at each barrier and a commit per interval. A sink task holds {@code producerPool}
 * transactional producers, ids {@code <prefix>-<sink>-<task>-<k>}: with all of them waiting for
 * their commit the task backpressures the job. Transactional ids and the marker topic must be the
 * job's own: two jobs (or two sinks) with the same prefix fence each other. A restore must keep the
 * sink's parallelism: the uncommitted output of a task that is not restored stays unpublished.
 * {@code transaction.timeout.ms} (the producer's default, 60 s) must exceed a checkpoint interval
 * plus its completion; a transaction the broker aborts before its commit is published again from
 * the log.
 *
 * <p>Producer defaults that differ from Kafka's: {@code acks=all}, {@code linger.ms=5}, {@code
 * batch.size=262144}; {@link Builder#property} overrides them.
 *
 * <p>Immutable and thread-safe.
 */
public final class KafkaSink<T> implements SinkSpec<T> {
  /** {@link Builder#maxUncommittedBytes}'s default: 64 MiB. */
  public static final long DEFAULT_MAX_UNCOMMITTED_BYTES = 64L << 20;

  /** Producer properties the sink sets itself; {@link Builder#property} refuses them. */
  private static final Set<String> RESERVED =
      Set.of(
          ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
          ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
          ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
          ProducerConfig.TRANSACTIONAL_ID_CONFIG,
          ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG);

  /** Properties that are the producer's alone (not given to the marker topic's reader, admin). */
  private static final Set<String> PRODUCER_ONLY =
      Set.of(
          ProducerConfig.ACKS_CONFIG,
          ProducerConfig.LINGER_MS_CONFIG,
          ProducerConfig.BATCH_SIZE_CONFIG,
          ProducerConfig.COMPRESSION_TYPE_CONFIG,
          ProducerConfig.TRANSACTION_TIMEOUT_CONFIG,
          ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
          ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION,
          ProducerConfig.BUFFER_MEMORY_CONFIG,
          ProducerConfig.MAX_BLOCK_MS_CONFIG,
          ProducerConfig.MAX_REQUEST_SIZE_CONFIG,
          ProducerConfig.PARTITIONER_CLASS_CONFIG,
          ProducerConfig.RETRIES_CONFIG,
          ProducerConfig.CLIENT_ID_CONFIG);

  private final String name;
  private final String bootstrapServers;
  private final String topic;
  private final KafkaSerializer<T> serializer;
  private final Map<String, String> properties;
  private final String transactionalIdPrefix; // null: at least once
  private final String markerTopic;
  private final int producerPool;
  private final long maxUncommittedBytes;
  private final Duration timeout;

  private KafkaSink(Builder<T> b) {
    this.name = b.name;
    this.bootstrapServers = b.bootstrapServers;
    this.topic = b.topic;
    this.serializer = b.serializer;
    this.properties = Map.copyOf(b.properties);
    this.transactionalIdPrefix = b.transactionalIdPrefix;
    this.markerTopic =
        b.markerTopic != null || b.transactionalIdPrefix == null
            ? b.markerTopic
            : b.transactionalIdPrefix + "-" + b.name + "-markers";
    this.producerPool = b.producerPool;
    this.maxUncommittedBytes = b.maxUncommittedBytes;
    this.timeout = b.timeout;
  }

  /** A builder of the sink named {@code name} (the sink operator's name in the dataflow). */
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

  /** Whether the sink writes exactly once (in transactions committed on checkpoints). */
  public boolean exactlyOnce() {
    return transactionalIdPrefix != null;
  }

  /** The prefix of its transactional ids; null when at least once. */
  public String transactionalIdPrefix() {
    return transactionalIdPrefix;
  }

  /** The topic of its commit markers; null when at least once. */
  public String markerTopic() {
    return markerTopic;
  }

  /** Transactional producers per sink task (exactly once). */
  public int producerPool() {
    return producerPool;
  }

  /** The bound of a sink task's log of uncommitted output (exactly once), in bytes. */
  public long maxUncommittedBytes() {
    return maxUncommittedBytes;
  }

  /** How long the sink waits for the broker's answers about its marker topic. */
  Duration timeout() {
    return timeout;
  }

  /** Transactional id {@code k} of sink task {@code task}. */
  String transactionalId(String sinkName, int task, int k) {
    return transactionalIdPrefix + "-" + sinkName + "-" + task + "-" + k;
  }

  /**
   * The producer configuration of sink task {@code task}: the sink's defaults, the user's
   * properties, then what the sink always sets; transactional when {@code transactionalId} is set.
   */
  Map<String, Object> producerConfig(String transactionalId, int task) {
    Map<String, Object> c = new TreeMap<>();
    c.put(ProducerConfig.ACKS_CONFIG, "all");
    c.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    // a sink writes in bursts of a whole input batch: 256 KiB batches (Kafka's default is 16 KiB)
    // took the exactly-once kafka-count bench from 222,577 to 252,008 records/s
    // (docs/experiments.md)
    c.put(ProducerConfig.BATCH_SIZE_CONFIG, "262144");
    c.put(
        ProducerConfig.CLIENT_ID_CONFIG,
        transactionalId != null ? transactionalId : "koala-" + name + "-" + task);
    c.putAll(properties);
    c.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    c.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    if (transactionalId != null) {
      c.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    }
    return c;
  }

  /** The configuration of the marker topic's reader: the user's connection properties. */
  Map<String, Object> consumerConfig() {
    Map<String, Object> c = new TreeMap<>(connectionProperties());
    c.put(ConsumerConfig.CLIENT_ID_CONFIG, "koala-" + name + "-markers");
    return c;
  }

  /** The configuration of the admin client that creates the marker topic. */
  Map<String, Object> adminConfig() {
    Map<String, Object> c = new TreeMap<>(connectionProperties());
    c.put(AdminClientConfig.CLIENT_ID_CONFIG, "koala-" + name + "-admin");
    return c;
  }

  /** The user's properties but the producer's own (security settings, say), and the servers. */
  private Map<String, Object> connectionProperties() {
    Map<String, Object> c = new TreeMap<>();
    properties.forEach(
        (k, v) -> {
          if (!PRODUCER_ONLY.contains(k)
              && !k.startsWith("key.")
              && !k.startsWith("value.")
              && !k.startsWith("transaction")) {
            c.put(k, v);
          }
        });
    c.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    return c;
  }

  /** The record of {@code value}; a failure of the serializer names sink, topic and class. */
  ProducerRecord<byte[], byte[]> serialize(T value, long timestamp) {
    ProducerRecord<byte[], byte[]> r;
    try {
      r = serializer.serialize(value, topic, timestamp);
    } catch (Exception e) {
      throw new KafkaSinkException(
          describe() + ": its serializer failed on a " + value.getClass().getName() + ": " + e, e);
    }
    if (r == null) {
      throw new KafkaSinkException(
          describe() + ": its serializer returned null for a " + value.getClass().getName());
    }
    return r;
  }

  /** What an error of this sink starts with: the sink, its topic and servers. */
  String describe() {
    return "Kafka sink '" + name + "' (topic '" + topic + "' at " + bootstrapServers + ")";
  }

  @Override
  public SinkWriter<T> open(SinkContext ctx) {
    return exactlyOnce()
        ? ExactlyOnceKafkaWriter.open(this, ctx)
        : new AtLeastOnceKafkaWriter<>(this, ctx);
  }

  @Override
  public String toString() {
    return describe() + (exactlyOnce() ? ", exactly once" : ", at least once");
  }

  /**
   * Builds a {@link KafkaSink}; {@link #build} checks it and fails with a {@link
   * DataflowDefinitionException} naming the sink. Not thread-safe.
   */
  public static final class Builder<T> {
    private final String name;
    private String bootstrapServers;
    private String topic;
    private KafkaSerializer<T> serializer;
    private final Map<String, String> properties = new TreeMap<>();
    private String transactionalIdPrefix;
    private String markerTopic;
    private int producerPool = 3;
    private long maxUncommittedBytes = DEFAULT_MAX_UNCOMMITTED_BYTES;
    private Duration timeout = Duration.ofSeconds(60);

    private Builder(String name) {
      this.name = Objects.requireNonNull(name, "name");
    }

    /** {@code host:port[,host:port...]}; required. */
    public Builder<T> bootstrapServers(String servers) {
      this.bootstrapServers = Objects.requireNonNull(servers, "servers");
      return this;
    }

    /** The topic to write (a serializer may name others per record); required. */
    public Builder<T> topic(String topic) {
      this.topic = Objects.requireNonNull(topic, "topic");
      return this;
    }

    /** Makes each value's record; required. */
    public Builder<T> serializer(KafkaSerializer<T> serializer) {
      this.serializer = Objects.requireNonNull(serializer, "serializer");
      return this;
    }

    /**
     * A producer property ({@code linger.ms}, {@code compression.type}, {@code
     * transaction.timeout.ms}, {@code security.protocol}, ...); overrides the sink's defaults.
     * Connection and security properties also apply to the marker topic's reader and admin client.
     * The servers, the serializers, {@code transactional.id} and {@code enable.idempotence} are the
     * sink's own.
     */
    public Builder<T> property(String key, String value) {
      properties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /**
     * Exactly once: transactions committed on checkpoints, with ids {@code
     * <transactionalIdPrefix>-<sink>-<task>-<k>}; the prefix must be this job's alone (and stay the
     * same across its restarts). The job must take checkpoints, or the sink fails at start.
     */
    public Builder<T> exactlyOnce(String transactionalIdPrefix) {
      Objects.requireNonNull(transactionalIdPrefix, "transactionalIdPrefix");
      this.transactionalIdPrefix = transactionalIdPrefix;
      return this;
    }

    /** At least once (the default): records may be written twice after a rollback. */
    public Builder<T> atLeastOnce() {
      this.transactionalIdPrefix = null;
      return this;
    }

    /**
     * The compacted topic of the exactly-once sink's commit markers; default {@code
     * <transactionalIdPrefix>-<sink>-markers}. Created if missing (compacted, one partition per
     * sink task); it must not be shared with another sink.
     */
    public Builder<T> markerTopic(String topic) {
      this.markerTopic = Objects.requireNonNull(topic, "topic");
      return this;
    }

    /**
     * Transactional producers per sink task (exactly once), so that many checkpoint intervals can
     * wait for their commit; 3 by default. Keep it across restores of a job.
     */
    public Builder<T> producerPool(int producers) {
      if (producers < 1) {
        throw new IllegalArgumentException("a producer pool needs at least 1 producer");
      }
      this.producerPool = producers;
      return this;
    }

    /**
     * Bounds a sink task's log of output not yet committed (exactly once), in bytes of serialized
     * records; 64 MiB by default. Once the current checkpoint interval's output reaches half of it,
     * the task asks the job for a checkpoint before its interval is due; while the intervals
     * prepared and waiting for their commit hold it all, the task takes no input (it backpressures
     * the job, stall reason {@code sink_busy}) until a commit frees it. The log then holds at most
     * about this much plus what reaches the sink before the asked checkpoint's barrier (more while
     * no checkpoint may start: during a reconfiguration, or one in progress).
     */
    public Builder<T> maxUncommittedBytes(long bytes) {
      if (bytes < 1024) {
        throw new IllegalArgumentException(
            "maxUncommittedBytes must be at least 1024 bytes, not " + bytes);
      }
      this.maxUncommittedBytes = bytes;
      return this;
    }

    /** How long to wait for the broker about the marker topic (create, read); 60 s by default. */
    public Builder<T> timeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("timeout must be positive: " + timeout);
      }
      this.timeout = timeout;
      return this;
    }

    public KafkaSink<T> build() {
      String what = "Kafka sink '" + name + "'";
      if (name.isBlank()) {
        throw new DataflowDefinitionException("a Kafka sink needs a name");
      }
      if (bootstrapServers == null || bootstrapServers.isBlank()) {
        throw new DataflowDefinitionException(what + ": bootstrapServers(...) is required");
      }
      if (topic == null || topic.isBlank()) {
        throw new DataflowDefinitionException(what + ": topic(...) is required");
      }
      if (serializer == null) {
        throw new DataflowDefinitionException(
            what + " (topic '" + topic + "'): serializer(...) is required");
      }
      for (String key : properties.keySet()) {
        if (RESERVED.contains(key)) {
          throw new DataflowDefinitionException(
              what
                  + ": property '"
                  + key
                  + "' is set by the sink itself (use bootstrapServers(...), serializer(...),"
                  + " exactlyOnce(prefix))");
        }
      }
      if (transactionalIdPrefix != null && transactionalIdPrefix.isBlank()) {
        throw new DataflowDefinitionException(
            what + ": exactlyOnce(prefix) needs a non-blank transactional id prefix");
      }
      if (transactionalIdPrefix == null && markerTopic != null) {
        throw new DataflowDefinitionException(
            what + ": markerTopic(...) is for exactlyOnce(prefix) only");
      }
      if (transactionalIdPrefix != null && "0".equals(properties.get(ProducerConfig.ACKS_CONFIG))) {
        throw new DataflowDefinitionException(what + ": exactly once needs acks=all");
      }
      return new KafkaSink<>(this);
    }
  }
}
