package io.koala.samples.cluster;

import com.typesafe.config.Config;
import io.koala.connector.RateSchedule;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.runtime.ConfigurationException;

/**
 * The workload every node of {@code ./koala node} defines, and that {@code ./koala experiment
 * cluster} runs: {@code records} generated records over {@code keys} keys ({@code i * 7919 mod
 * keys}, every key equally often) read by {@code sources} source tasks at {@code rate} records/s in
 * all, a keyed running count ({@value #TARGET}, {@code parallelism} tasks) that keeps {@code
 * state-bytes} bytes per key and emits (key, count), and a collecting sink ({@value #SINK}). A key
 * with n records emits 1..n, each once: the reference run's output, whatever the reconfigurations
 * and failures. With {@code capacity} above 0 each count task processes at most that many records
 * per second (an emulated capacity, DESIGN §4.7), so that the offered rate can overload it.
 * Settings from {@code koala.node.workload} (the same on every node).
 */
public record ClusterWorkload(
    long records,
    int keys,
    int sources,
    int parallelism,
    double rate,
    int stateBytes,
    double capacity) {

  /** Where a node's file keeps this workload's settings. */
  public static final String SETTINGS = "koala.node.workload";

  public static final String NAME = "cluster-count";
  public static final String TARGET = "count";
  public static final String SINK = "counts";

  public ClusterWorkload {
    check(records >= 1, "records", records);
    check(keys >= 1, "keys", keys);
    check(sources >= 1, "sources", sources);
    check(parallelism >= 1, "parallelism", parallelism);
    check(rate > 0, "rate", rate);
    check(stateBytes >= 8, "state-bytes", stateBytes);
    check(capacity >= 0, "capacity", capacity);
  }

  private static void check(boolean ok, String name, Object value) {
    if (!ok) {
      throw new ConfigurationException(SETTINGS + "." + name + " = " + value + " is out of range");
    }
  }

  /** The workload {@code koala.node.workload} of {@code config} describes. */
  public static ClusterWorkload from(Config config) {
    Config w = config.getConfig(SETTINGS);
    try {
      return new ClusterWorkload(
          w.getLong("records"),
          w.getInt("keys"),
          w.getInt("sources"),
          w.getInt("parallelism"),
          w.getDouble("rate"),
          w.getInt("state-bytes"),
          w.hasPath("capacity") ? w.getDouble("capacity") : 0);
    } catch (com.typesafe.config.ConfigException e) {
      throw new ConfigurationException(SETTINGS + ": " + e.getMessage(), e);
    }
  }

  /** The HOCON of this workload, for a node's configuration file. */
  public String hocon() {
    return SETTINGS
        + " { records = "
        + records
        + ", keys = "
        + keys
        + ", sources = "
        + sources
        + ", parallelism = "
        + parallelism
        + ", rate = "
        + rate
        + ", state-bytes = "
        + stateBytes
        + ", capacity = "
        + capacity
        + " }\n";
  }

  /** The key of record {@code index}. */
  public long keyOf(long index) {
    return (index * 7919) % keys;
  }

  /** The same input read as fast as it can be processed: for the reference run. */
  public ClusterWorkload flatOut() {
    return new ClusterWorkload(records, keys, sources, parallelism, 1e12, stateBytes, 0);
  }

  /** The dataflow. */
  public Dataflow dataflow() {
    int k = keys;
    int bytes = stateBytes;
    DataflowBuilder b = Dataflow.builder(NAME).parallelism(parallelism);
    var counts =
        b.source(
                SourceSpec.generator("n", (i, seed) -> (i * 7919) % k)
                    .partitions(sources)
                    .count(records)
                    .rate(RateSchedule.constant(rate)))
            .parallelism(sources)
            .keyBy(x -> x)
            .process(TARGET, () -> new PaddedCount(bytes));
    if (capacity > 0) {
      counts.capacity(capacity); // emulated (DESIGN §4.7)
    }
    counts.sink(SinkSpec.collecting(SINK));
    return b.build();
  }
}
