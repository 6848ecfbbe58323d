package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.RateSchedule;
import io.koala.connector.SinkContext;
import io.koala.connector.SinkSpec;
import io.koala.connector.SinkWriter;
import io.koala.connector.SourceSpec;
import io.koala.coordinator.PlannedCrash;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.job.JobStatus;
import io.koala.runtime.testing.TaskCrashes;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sink writer's {@link SinkWriter#pendingState} travels in the task's snapshot and comes back as
 * {@link SinkContext#restoredState()} to the writer restored from that checkpoint: here the state
 * is the number of records the task wrote up to the barrier, so with the state restored each task's
 * final number is exactly its share of the input, across planned crashes.
 */
class SinkStateRecoveryTest {
  private static final int RECORDS = 12_000;
  private static final Duration WAIT = Duration.ofSeconds(60);

  /** Per run: "<task>@<checkpoint>" -> the state saved at that barrier. */
  private static final Map<String, Long> SAVED = new ConcurrentHashMap<>();

  /** Per run: what each restored writer was given, and what it was saved as. */
  private static final List<String> MISMATCHES =
      java.util.Collections.synchronizedList(new ArrayList<>());

  private static final Map<Integer, Long> FINAL = new ConcurrentHashMap<>();
  private static final Map<Integer, Integer> RESTORES = new ConcurrentHashMap<>();

  /** Counts its records; the count so far is its state. */
  private static final class CountingWriter<T> implements SinkWriter<T> {
    private final int task;
    private long count;

    CountingWriter(SinkContext ctx) {
      task = ctx.taskIndex();
      byte[] restored = ctx.restoredState();
      long c = ctx.restoredCheckpoint();
      if (c > 0) {
        RESTORES.merge(task, 1, Integer::sum);
        Long saved = SAVED.get(task + "@" + c);
        Long got = restored == null ? null : ByteBuffer.wrap(restored).getLong();
        if (!java.util.Objects.equals(saved, got)) {
          MISMATCHES.add("task " + task + " at " + c + ": saved " + saved + ", restored " + got);
        }
        count = got == null ? 0 : got;
      } else if (restored != null) {
        MISMATCHES.add("task " + task + ": a state on a fresh start");
      }
    }

    @Override
    public void write(T value, long timestamp) {
      count++;
    }

    private long prepared = -1;

    @Override
    public void prepareCommit(long checkpointId) {
      prepared = checkpointId;
    }

    @Override
    public byte[] pendingState() {
      SAVED.put(task + "@" + prepared, count);
      return ByteBuffer.allocate(8).putLong(count).array();
    }

    @Override
    public void finish() {
      FINAL.put(task, count);
    }
  }

  private static final class CountingSink<T> implements SinkSpec<T> {
    @Override
    public String name() {
      return "counting";
    }

    @Override
    public SinkWriter<T> open(SinkContext ctx) {
      return new CountingWriter<>(ctx);
    }
  }

  @Test
  void aRestoredWriterGetsTheStateItSavedAtTheCheckpoint(@TempDir Path dir) throws Exception {
    DataflowBuilder b = Dataflow.builder("sink-state").parallelism(2);
    b.source(
            SourceSpec.generator("n", (i, seed) -> i)
                .partitions(2)
                .count(RECORDS)
                .rate(RateSchedule.constant(6_000)))
        .keyBy(x -> x % 97)
        .count("count")
        .sink(new CountingSink<>());
    KoalaConfig config =
        KoalaConfig.load()
            .withWorkers(2)
            .withDataDir(dir)
            .withCheckpointInterval(Duration.ofMillis(100))
            .withRestartBackoff(Duration.ofMillis(50));
    long seed = System.nanoTime();
    System.out.println("SinkStateRecoveryTest seed " + seed);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(b.build());
      job.checkpoint().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      TaskCrashes.plan(job, seed, List.of(new PlannedCrash.At(0), new PlannedCrash.AfterCommit()));
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertThat(TaskCrashes.injected(job)).hasSize(2);
    }
    assertThat(MISMATCHES).isEmpty();
    assertThat(RESTORES.values().stream().mapToInt(Integer::intValue).sum()).isGreaterThan(0);
    assertThat(FINAL.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(RECORDS);
  }
}
