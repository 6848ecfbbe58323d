package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.koala.job.JobStatus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The workers' disk fills up while a checkpointed job runs: the tasks' commits are refused below
 * {@code koala.store.min-free-disk}, naming the space left, and the job rolls back and tries again;
 * once space returns it goes on and its counts are exact. The workers' data directory is a small
 * tmpfs the test mounts (as root; elsewhere the test is skipped), filled by a ballast file.
 */
class DiskFullRecoveryTest {

  @Test
  void aJobWhoseDiskFillsUpRollsBackWithTheSpaceLeftAndGoesOnOnceSpaceReturns(@TempDir Path dir)
      throws Exception {
    Path disk = dir.resolve("disk");
    Files.createDirectories(disk);
    Assumptions.assumeTrue(
        run("mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", disk.toString()),
        "mounting a 64 MiB tmpfs needs root");
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ListAppender<ILoggingEvent> log = new ListAppender<>();
    log.start();
    root.addAppender(log);
    try {
      KoalaConfig config =
          CheckpointRecoveryTest.config(disk, Duration.ofMillis(200))
              .withCheckpointDirectory(dir.resolve("checkpoints"))
              .withMaxRestarts(1_000)
              .with("koala.checkpoint.restart-backoff-max", "200 ms")
              .with("koala.store.min-free-disk", "16 MiB")
              .with("koala.store.initial-map-size", "1 MiB"); // the stores' files fit the disk
      try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
        JobHandle job = runtime.submit(CheckpointRecoveryTest.dataflow(4_000));
        LiveReconfigurationTest.awaitProgress(job, 2_000);
        Path ballast = disk.resolve("ballast");
        long usable = Files.getFileStore(disk).getUsableSpace();
        Files.write(ballast, new byte[(int) (usable - (8L << 20))]); // 8 MiB left
        Eventually.await(
            "rollbacks for the full disk",
            CheckpointRecoveryTest.WAIT,
            () -> job.metrics().rollbacks() >= 2 || job.status().isTerminal());
        assertThat(job.status()).isNotIn(JobStatus.FAILED, JobStatus.FINISHED);
        assertThat(List.copyOf(log.list))
            .as("the failure names the reserve and the space left")
            .anyMatch(
                e ->
                    e.getFormattedMessage().contains("disk nearly full")
                        && e.getFormattedMessage().contains("koala.store.min-free-disk"));
        Files.delete(ballast); // space returns
        assertThat(job.await(CheckpointRecoveryTest.WAIT)).isEqualTo(JobStatus.FINISHED);
        LiveReconfigurationTest.assertExactCounts(job);
      }
    } finally {
      root.detachAppender(log);
      assertThat(run("umount", "-l", disk.toString())).as("unmounted").isTrue();
    }
  }

  private static boolean run(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    boolean ok = p.waitFor() == 0;
    if (!ok) {
      System.out.println(String.join(" ", command) + ": " + out.strip());
    }
    return ok;
  }
}
