package io.koala.bench.soak;

import com.typesafe.config.Config;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.Collector;
import io.koala.function.KeyValue;
import io.koala.kafka.KafkaSerializer;
import io.koala.kafka.KafkaSink;
import io.koala.kafka.KafkaSource;
import io.koala.runtime.ConfigurationException;
import io.koala.samples.cluster.PaddedCount;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * The soak's job: 8-byte keys read from the Kafka topic {@value #INPUT} ({@code partitions}
 * partitions, as many source tasks), a running count per key ({@value #TARGET}, {@code parallelism}
 * tasks, {@code stateBytes} bytes of state per key) that emits (key, count), and an exactly-once
 * Kafka sink to {@value #OUTPUT}. A key read n times emits 1..n, each once, whatever the
 * reconfigurations and failures: what the soak checks in the committed output. The count looks for
 * the faults the soak injects ({@link InjectedFaults}) in {@code faultDir}. Settings from {@value
 * #SETTINGS}, the same on every node.
 */
public record SoakWorkload(
    String bootstrapServers, int partitions, int parallelism, int stateBytes, String faultDir) {

  /** Where a node's file keeps this workload's settings. */
  public static final String SETTINGS = "koala.node.soak";

  public static final String NAME = "soak-count";
  public static final String INPUT = "soak-in";
  public static final String OUTPUT = "soak-out";
  public static final String TARGET = "count";

  public SoakWorkload {
    if (partitions < 1 || parallelism < 1 || stateBytes < Long.BYTES) {
      throw new ConfigurationException(
          SETTINGS
              + ": partitions "
              + partitions
              + ", parallelism "
              + parallelism
              + " and state-bytes "
              + stateBytes
              + " must be at least 1, 1 and "
              + Long.BYTES);
    }
  }

  /** The workload {@value #SETTINGS} of {@code config} describes. */
  public static SoakWorkload from(Config config) {
    Config w = config.getConfig(SETTINGS);
    try {
      return new SoakWorkload(
          w.getString("bootstrap-servers"),
          w.getInt("partitions"),
          w.getInt("parallelism"),
          w.getInt("state-bytes"),
          w.getString("fault-dir"));
    } catch (com.typesafe.config.ConfigException e) {
      throw new ConfigurationException(SETTINGS + ": " + e.getMessage(), e);
    }
  }

  /** The HOCON of this workload, for a node's configuration file. */
  public String hocon() {
    return SETTINGS
        + " { bootstrap-servers = \""
        + bootstrapServers
        + "\", partitions = "
        + partitions
        + ", parallelism = "
        + parallelism
        + ", state-bytes = "
        + stateBytes
        + ", fault-dir = \""
        + faultDir
        + "\" }\n";
  }

  /** The faults of this workload's directory. */
  InjectedFaults faults() {
    return new InjectedFaults(Path.of(faultDir));
  }

  /** An 8-byte big-endian key or count. */
  static byte[] bytes(long value) {
    return ByteBuffer.allocate(Long.BYTES).putLong(value).array();
  }

  /** The dataflow. */
  public Dataflow dataflow() {
    int bytes = stateBytes;
    String faults = faultDir;
    DataflowBuilder b = Dataflow.builder(NAME).parallelism(parallelism);
    b.source(
            KafkaSource.<Long>builder("events")
                .bootstrapServers(bootstrapServers)
                .topic(INPUT)
                .deserializer(r -> ByteBuffer.wrap(r.value()).getLong())
                .build())
        .parallelism(partitions)
        .keyBy((Long k) -> k)
        .process(TARGET, () -> new FaultyCount(bytes, faults))
        .sink(
            KafkaSink.<KeyValue<Long, Long>>builder("counts")
                .bootstrapServers(bootstrapServers)
                .topic(OUTPUT)
                .serializer(
                    KafkaSerializer.keyValue(kv -> bytes(kv.key()), kv -> bytes(kv.value())))
                .exactlyOnce("soak")
                .build());
    return b.build();
  }

  /** The count of {@link PaddedCount}, that takes the injected faults. */
  static final class FaultyCount extends PaddedCount {
    private final InjectedFaults faults;

    FaultyCount(int stateBytes, String faultDir) {
      super(stateBytes);
      this.faults = new InjectedFaults(Path.of(faultDir));
    }

    @Override
    public void process(Long key, Context<Long> ctx, Collector<KeyValue<Long, Long>> out) {
      faults.check();
      super.process(key, ctx, out);
    }
  }
}
