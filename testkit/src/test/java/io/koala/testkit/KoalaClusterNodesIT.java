package io.koala.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.typesafe.config.ConfigFactory;
import io.koala.connector.RateSchedule;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.KeyValue;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationReport;
import io.koala.runtime.JobHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * Cluster nodes for a test class: a keyed count runs on two nodes, a third joins and takes some of
 * its tasks, then leaves gracefully and hands them back, and every running count comes out exactly
 * once. With no {@code application.conf} here, no node warns that its JMX MBean is registered
 * already.
 */
class KoalaClusterNodesIT {
  /** Pekko's log, attached before the extension starts the nodes (class initialization order). */
  private static final ListAppender<ILoggingEvent> PEKKO_LOG = capture("org.apache.pekko");

  @RegisterExtension
  static final KoalaClusterNodes nodes =
      KoalaClusterNodes.start(
          2, ConfigFactory.parseString("koala.cluster.scale-on-join = [count]"));

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int RECORDS = 20_000;
  private static final int KEYS = 70;

  /** The key of record {@code i}: the squares modulo 70, 24 keys, some four times as often. */
  static long key(long i) {
    return (i * i) % KEYS;
  }

  /** 20,000 records in 8 s, from two source tasks → running count per key (2 tasks) → "counts". */
  static Dataflow counting() {
    DataflowBuilder b = Dataflow.builder("cluster-nodes-count").parallelism(2);
    b.source(
            SourceSpec.generator("n", (i, seed) -> key(i))
                .partitions(2)
                .count(RECORDS)
                .rate(RateSchedule.constant(2_500)))
        .keyBy(k -> k)
        .count("count")
        .sink(SinkSpec.collecting("counts"));
    return b.build();
  }

  @Test
  void aNodeJoinsAndLeavesUnderARunningCountWhoseResultsStayExact() {
    JobHandle job = nodes.submit(counting());
    await("first counts", () -> !job.collected("counts").isEmpty());

    nodes.join(); // node 2, worker 2 of the job
    assertThat(nodes.size()).isEqualTo(3);
    await("count scaled onto the new node", () -> !job.metrics().reconfigurations().isEmpty());
    assertThat(job.metrics().tasksOnWorker(2))
        .isNotEmpty()
        .allMatch(t -> t.operator().name().equals("count"));
    assertThat(job.status())
        .as("the job still runs when the node leaves")
        .isEqualTo(JobStatus.RUNNING);

    nodes.leave(2);
    assertThat(nodes.cluster().members()).containsExactly(0, 1);
    JobMetrics left = job.metrics();
    assertThat(left.tasksOnWorker(2)).as("tasks on the node that left").isEmpty();
    assertThat(left.rollbacks()).as("moved by migration, not restored").isZero();
    assertThat(left.reconfigurations())
        .extracting(ReconfigurationReport::kind)
        .containsExactly("rescale", "migrate");

    assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
    assertThat(countsByKey(job.collected("counts"))).isEqualTo(expectedCounts());

    assertThat(ConfigFactory.defaultApplication().hasPath("pekko.cluster.jmx"))
        .as("no application.conf turns multi-mbeans-in-same-jvm on")
        .isFalse();
    assertThat(messages(PEKKO_LOG)).noneMatch(m -> m.contains("MBean"));
  }

  /** Per key, the running counts 1..n it must emit, from the same keys in plain Java. */
  private static Map<Long, List<Long>> expectedCounts() {
    Map<Long, Long> seen = new HashMap<>();
    Map<Long, List<Long>> expected = new TreeMap<>();
    for (long i = 0; i < RECORDS; i++) {
      long k = key(i);
      expected.computeIfAbsent(k, x -> new ArrayList<>()).add(seen.merge(k, 1L, Long::sum));
    }
    return expected;
  }

  /** Per key, the counts emitted, sorted. */
  private static Map<Long, List<Long>> countsByKey(List<KeyValue<Long, Long>> counts) {
    Map<Long, List<Long>> byKey = new TreeMap<>();
    for (KeyValue<Long, Long> kv : counts) {
      byKey.computeIfAbsent(kv.key(), k -> new ArrayList<>()).add(kv.value());
    }
    byKey.values().forEach(l -> l.sort(null));
    return byKey;
  }

  private static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waited %s for %s", WAIT, what).isLessThan(deadline);
      LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
    }
  }

  @AfterAll
  static void detachLog() {
    ((Logger) LoggerFactory.getLogger("org.apache.pekko")).detachAppender(PEKKO_LOG);
  }

  private static ListAppender<ILoggingEvent> capture(String logger) {
    ListAppender<ILoggingEvent> log = new ListAppender<>();
    log.start();
    ((Logger) LoggerFactory.getLogger(logger)).addAppender(log);
    return log;
  }

  private static List<String> messages(ListAppender<ILoggingEvent> log) {
    synchronized (log) {
      return log.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }
  }
}
