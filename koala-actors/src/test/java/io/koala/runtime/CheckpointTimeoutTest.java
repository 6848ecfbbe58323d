package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.RateSchedule;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.KeyValue;
import io.koala.job.JobStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A task stuck in a blocking function never takes its snapshot: without a timeout its checkpoint,
 * and every one after it, would wait forever. With {@code koala.checkpoint.timeout} the checkpoint
 * is abandoned: by default the job rolls back, and the next checkpoint commits while the stuck
 * thread is still blocked; with {@code koala.checkpoint.tolerable-failures} the job goes on, and
 * once the function returns the next checkpoint commits with no rollback. The output stays exactly
 * once.
 */
class CheckpointTimeoutTest {
  static final Duration WAIT = Duration.ofSeconds(90);

  /** Armed by the test: the next record through the map blocks until {@link #RELEASE}. */
  static final AtomicBoolean BLOCK_ONCE = new AtomicBoolean();

  static final AtomicBoolean BLOCKED = new AtomicBoolean();

  /** What the blocked function waits for; a new one for each test. */
  static volatile CountDownLatch release = new CountDownLatch(1);

  static Dataflow dataflow() {
    DataflowBuilder b = Dataflow.builder("stuck").parallelism(2);
    var counts =
        b.source(
                SourceSpec.generator("n", (i, seed) -> (i * 7919) % LiveReconfigurationTest.KEYS)
                    .partitions(2)
                    .count(LiveReconfigurationTest.RECORDS)
                    .rate(RateSchedule.constant(4_000)))
            .map(
                "maybe-block",
                (Long x) -> {
                  if (BLOCK_ONCE.compareAndSet(true, false)) {
                    BLOCKED.set(true);
                    release.await(); // a user function that blocks, as on a call that hangs
                  }
                  return x;
                })
            .keyBy(x -> x)
            .count("count");
    counts.sink(SinkSpec.collecting("counts"));
    counts.keyBy(KeyValue::key).count("recount").sink(SinkSpec.collecting("recounts"));
    return b.build();
  }

  /** Two workers, checkpoints only when asked for, {@code timeout}, and a short backoff. */
  private static KoalaConfig config(Path dir, Duration timeout) {
    return KoalaConfig.load()
        .withWorkers(2)
        .withDataDir(dir)
        .withCheckpointInterval(Duration.ofHours(1)) // only the checkpoints asked for here
        .withCheckpointTimeout(timeout)
        .withRestartBackoff(Duration.ofMillis(50));
  }

  /** Takes a checkpoint, then has a task block in the map; returns the checkpoint. */
  private static long checkpointThenBlock(JobHandle job) throws Exception {
    release = new CountDownLatch(1);
    BLOCKED.set(false);
    long first = job.checkpoint().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    BLOCK_ONCE.set(true);
    Eventually.await("a task blocked in the map", WAIT, BLOCKED::get);
    return first;
  }

  @Test
  void aCheckpointHeldByAStuckTaskTimesOutAndTheNextCommits(@TempDir Path dir) throws Exception {
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config(dir, Duration.ofSeconds(2)))) {
      JobHandle job = runtime.submit(dataflow());
      long first = checkpointThenBlock(job);

      long next = job.checkpoint().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(next).isGreaterThan(first);
      assertThat(release.getCount()).as("the stuck thread is still blocked").isEqualTo(1);
      assertThat(job.metrics().rollbacks()).as("the timed-out checkpoint rolled back").isPositive();
      assertThat(job.metrics().checkpoints().timedOut()).as("checkpoints timed out").isEqualTo(1);
      assertThat(job.status()).isEqualTo(JobStatus.RUNNING);

      release.countDown();
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      LiveReconfigurationTest.assertExactCounts(job);
    } finally {
      release.countDown();
    }
  }

  @Test
  void withATolerableFailureTheTimedOutCheckpointIsAbandonedAndTheJobGoesOnWithoutARollback(
      @TempDir Path dir) throws Exception {
    KoalaConfig config = config(dir, Duration.ofSeconds(4)).withTolerableCheckpointFailures(1);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(dataflow());
      long first = checkpointThenBlock(job);

      var next = job.checkpoint().toCompletableFuture();
      Eventually.await(
          "the checkpoint abandoned", WAIT, () -> job.metrics().checkpoints().timedOut() == 1);
      assertThat(next).as("who asked waits for the next").isNotDone();
      release.countDown(); // the function returns: the next checkpoint's barriers get through

      assertThat(next.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isGreaterThan(first + 1);
      assertThat(job.metrics().rollbacks()).as("no rollback").isZero();
      assertThat(job.metrics().checkpoints().timedOut()).isEqualTo(1);
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      LiveReconfigurationTest.assertExactCounts(job);
    } finally {
      release.countDown();
    }
  }
}
