package io.koala.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.koala.checkpoint.CheckpointStorage;
import io.koala.coordinator.PlannedCrash;
import io.koala.dataflow.Dataflow;
import io.koala.job.JobStatus;
import io.koala.runtime.JobFailedException;
import io.koala.runtime.JobHandle;
import io.koala.runtime.SubmitOptions;
import io.koala.runtime.testing.TaskCrashes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job that FAILED on a cluster whose coordinators fail over (a shared journal) is taken up again
 * from its latest checkpoint, under a new name: {@code SubmitOptions.restoreFrom} on a sharded
 * cluster. The restored job's coordinator is then downed before the job took a checkpoint of its
 * own (an hour between checkpoints), and the coordinator that takes over resumes from the restored
 * checkpoint too, which its predecessor recorded in the journal as it started. The two jobs'
 * committed output (exactly-once file sinks, one directory each) is the reference run's, each count
 * once: the failed job's counts up to its checkpoint, the restored job's from there.
 */
class RestoreOnClusterIT {
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final String ROLE = "koala-coordinator";

  private static Config coordinatorRole() {
    return ConfigFactory.parseString("koala.node.roles = [" + ROLE + "]");
  }

  @Test
  void aFailedJobsCheckpointStartsANewJobThatSurvivesItsCoordinatorsLoss(@TempDir Path dir)
      throws Exception {
    Path out = dir.resolve("out");
    Path restoredOut = dir.resolve("restored-out"); // its own: no part of it replaces the first's
    Dataflow failing = CoordinatorFailoverIT.dataflow("failing", 4_000, out);
    Dataflow restored = CoordinatorFailoverIT.dataflow("restored", 2_000, restoredOut);
    Path checkpoint;
    Config once =
        ConfigFactory.parseString("koala.checkpoint.max-restarts = 0")
            .withFallback(CoordinatorFailoverIT.settings(dir));
    try (LocalCluster nodes = LocalCluster.start(1, dir, once, failing)) {
      nodes.join(coordinatorRole());
      JobHandle job = nodes.node(0).submit(failing);
      LocalCluster.await(
          "two checkpoints", WAIT, () -> job.metrics().checkpoints().completed() >= 2);
      TaskCrashes.plan(job, 7, List.of(new PlannedCrash.At(0)));
      assertThatThrownBy(() -> job.await(WAIT))
          .as("no restart allowed: the crash fails the job")
          .isInstanceOf(JobFailedException.class);
      assertThat(job.status()).isEqualTo(JobStatus.FAILED);
      checkpoint = latestCheckpoint(dir.resolve("checkpoints"), job.id());
      System.out.println(job.id() + " failed; restoring from " + checkpoint);
    }

    Config hourly =
        ConfigFactory.parseString("koala.checkpoint.interval = 1 h")
            .withFallback(CoordinatorFailoverIT.settings(dir));
    try (LocalCluster nodes = LocalCluster.start(1, dir, hourly, failing, restored)) {
      KoalaCluster client = nodes.node(0);
      nodes.join(coordinatorRole());
      nodes.join(coordinatorRole());
      JobHandle again = client.submit(failing, SubmitOptions.restoreFrom(checkpoint));
      assertThatThrownBy(() -> again.await(WAIT))
          .as("a job id names one run")
          .isInstanceOf(JobFailedException.class)
          .hasMessageContaining("job failing ran on this cluster")
          .hasMessageContaining("FAILED");

      JobHandle job = client.submit(restored, SubmitOptions.restoreFrom(checkpoint));
      LocalCluster.await(
          "the restored job counting", WAIT, () -> job.metrics().recordsIn("count") > 2_000);
      assertThat(job.metrics().checkpoints().completed()).as("none of its own yet").isZero();
      String coordinator = client.coordinatorNode(job.id());
      int host = nodes.node(1).coordinatedJobs().contains(job.id()) ? 1 : 2;
      KoalaCluster other = nodes.node(3 - host);
      nodes.down(host);
      LocalCluster.await(
          "the coordinator on the other node",
          WAIT,
          () -> other.coordinatedJobs().contains(job.id()));
      System.out.println(
          "downed " + coordinator + "; the job resumes on " + client.coordinatorNode(job.id()));

      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      // the failed job's counts up to its checkpoint, then the restored job's from there
      Map<Long, List<Long>> both = new TreeMap<>(CoordinatorFailoverIT.outputs(out));
      CoordinatorFailoverIT.outputs(restoredOut)
          .forEach(
              (key, counts) ->
                  both.merge(
                      key,
                      counts,
                      (a, b) -> Stream.concat(a.stream(), b.stream()).sorted().toList()));
      assertThat(both).isEqualTo(KoalaClusterIT.reference(3));
    }
  }

  /** The newest checkpoint of {@code jobId} under {@code root} whose metadata was written. */
  private static Path latestCheckpoint(Path root, String jobId) {
    CheckpointStorage storage = new CheckpointStorage(root);
    List<Long> ids = storage.checkpointIds(jobId);
    for (int i = ids.size() - 1; i >= 0; i--) {
      Path d = storage.checkpointDirectory(jobId, ids.get(i));
      if (Files.exists(d.resolve("_metadata"))) {
        return d;
      }
    }
    throw new AssertionError("no complete checkpoint of " + jobId + " in " + root);
  }
}
