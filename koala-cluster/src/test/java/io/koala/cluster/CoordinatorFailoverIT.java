package io.koala.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.koala.connector.RateSchedule;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.job.JobStatus;
import io.koala.runtime.JobFailedException;
import io.koala.runtime.JobHandle;
import io.koala.runtime.internal.journal.JournalConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job's coordinator as a Cluster Sharding entity on a journal every node shares (DESIGN §9): when
 * the node it runs on is downed or leaves, it starts again on the other coordinator member and the
 * job resumes from its latest checkpoint. Three nodes in this JVM: the first submits and runs tasks
 * but no coordinator; the other two have the coordinator role. The judge is the reference run of
 * {@link KoalaClusterIT} (the same input and counts), read here from an exactly-once file sink.
 */
class CoordinatorFailoverIT {
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final String ROLE = "koala-coordinator";
  private static final Pattern COUNT = Pattern.compile("\"key\":(\\d+),\"value\":(\\d+)");

  /** {@link KoalaClusterIT#dataflow}'s counts, into JSON-lines files under {@code out}. */
  static Dataflow dataflow(String name, double rate, Path out) {
    DataflowBuilder b = Dataflow.builder(name).parallelism(2);
    b.source(
            SourceSpec.generator("n", (i, seed) -> (i * 7919) % KEYS)
                .partitions(3)
                .count(RECORDS)
                .rate(RateSchedule.constant(rate)))
        .parallelism(3)
        .keyBy(x -> x)
        .count("count")
        .sink(SinkSpec.jsonLines("counts", out));
    return b.build();
  }

  private static final int RECORDS = 24_000;
  private static final int KEYS = 300;

  private static Config coordinatorRole() {
    return ConfigFactory.parseString("koala.node.roles = [" + ROLE + "]");
  }

  /**
   * The settings of every node: checkpoints, coordinators on {@link #ROLE}, and one H2 database in
   * {@code dir} as the journal all nodes share ({@code koala.journal.store = jdbc}), its schema
   * created here as an operator would. The split-brain resolver's {@code stable-after} ({@code
   * koala.node.down-unreachable-after}) is also the margin the sharding coordinator, a cluster
   * singleton, waits after its node was downed before it starts on another: 5 s rather than the
   * default 20 s, so that the downed coordinator's takeover does not wait 20 s.
   */
  static Config settings(Path dir) {
    JournalConfig shared =
        JournalConfig.from(
            ConfigFactory.parseString("koala.journal.store = embedded")
                .withFallback(ConfigFactory.load()),
            dir.resolve("shared"));
    shared.createSchema();
    return ConfigFactory.parseString(
            "koala.journal.store = jdbc\n"
                + "koala.node.down-unreachable-after = 5 s\n"
                + "koala.checkpoint.interval = 200 ms\n"
                + "koala.cluster.coordinator-role = "
                + ROLE)
        .withFallback(shared.pekkoConfig());
  }

  @Test
  void aDownedCoordinatorStartsAgainOnAnotherNodeAndTheJobResumesExactly(@TempDir Path dir) {
    runsThroughTheLossOfItsCoordinator(dir, true);
  }

  @Test
  void aLeavingCoordinatorStartsAgainOnAnotherNodeAndTheJobResumesExactly(@TempDir Path dir) {
    runsThroughTheLossOfItsCoordinator(dir, false);
  }

  private static void runsThroughTheLossOfItsCoordinator(Path dir, boolean downed) {
    Path out = dir.resolve("out");
    Dataflow dataflow = dataflow("failover", 4_000, out);
    try (LocalCluster nodes = LocalCluster.start(1, dir, settings(dir), dataflow)) {
      KoalaCluster client = nodes.node(0);
      nodes.join(coordinatorRole());
      nodes.join(coordinatorRole());
      JobHandle job = client.submit(dataflow);
      LocalCluster.await("a committed part", WAIT, () -> !committed(out).isEmpty());
      assertThat(client.coordinatedJobs()).as("the client has no coordinator role").isEmpty();
      int host = nodes.node(1).coordinatedJobs().contains(job.id()) ? 1 : 2;
      KoalaCluster other = nodes.node(3 - host);
      assertThat(nodes.node(host).coordinatedJobs()).contains(job.id());
      assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
      assertThat(client.jobs()).as("the cluster's jobs, seen from the client").contains(job.id());
      JobHandle attached = other.attach(job.id()); // follows the coordinator to its next node

      if (downed) {
        nodes.down(host); // by the client, the first node in the cluster
      } else {
        nodes.leave(host);
      }
      LocalCluster.await(
          "the coordinator on the other node",
          WAIT,
          () -> other.coordinatedJobs().contains(job.id()));

      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertThat(attached.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertThat(outputs(out)).isEqualTo(KoalaClusterIT.reference(3));
      assertThat(job.metrics().rollbacks()).as("the takeover counts").isGreaterThanOrEqualTo(1);
      assertThat(client.remotingDrops()).isZero();
    }
  }

  @Test
  void aJobIdNamesOneRunAndAnEndedJobIsNotRunAgain(@TempDir Path dir) {
    Path out = dir.resolve("out");
    Dataflow dataflow = dataflow("once", 1e9, out);
    try (LocalCluster nodes = LocalCluster.start(0, dir, settings(dir), dataflow)) {
      KoalaCluster a = nodes.join(coordinatorRole());
      JobHandle first = a.submit(dataflow);
      assertThat(first.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertThat(outputs(out)).isEqualTo(KoalaClusterIT.reference(3));

      JobHandle again = a.submit(dataflow);
      assertThatThrownBy(() -> again.await(WAIT))
          .isInstanceOf(JobFailedException.class)
          .hasMessageContaining("ran on this cluster before and ended FINISHED")
          .hasMessageContaining("another name");
      assertThat(outputs(out)).as("nothing written again").isEqualTo(KoalaClusterIT.reference(3));
    }
  }

  /** The committed (visible) parts in {@code out}. */
  private static List<Path> committed(Path out) {
    if (!Files.isDirectory(out)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(out)) {
      return s.filter(p -> p.getFileName().toString().endsWith(".jsonl")).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Per key, the counts in the committed parts, sorted. */
  static Map<Long, List<Long>> outputs(Path out) {
    Map<Long, List<Long>> byKey = new TreeMap<>();
    for (Path part : committed(out)) {
      try {
        for (String line : Files.readAllLines(part, StandardCharsets.UTF_8)) {
          Matcher m = COUNT.matcher(line);
          assertThat(m.find()).as("a count in %s: %s", part, line).isTrue();
          byKey
              .computeIfAbsent(Long.parseLong(m.group(1)), k -> new ArrayList<>())
              .add(Long.parseLong(m.group(2)));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    byKey.values().forEach(l -> l.sort(null));
    return byKey;
  }
}
