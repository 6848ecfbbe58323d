package io.koala.runtime;

import static io.koala.runtime.LiveReconfigurationTest.WAIT;
import static io.koala.runtime.LiveReconfigurationTest.done;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.RateSchedule;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.Collector;
import io.koala.function.KeyValue;
import io.koala.function.KeyedProcessFunction;
import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationReport;
import io.koala.state.KeyedStateContext;
import io.koala.state.ValueState;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Live rescales and migrations of a source: its partitions move between its tasks with their
 * offsets while the job runs. Every record is read exactly once, and each key's records (all from
 * one partition) reach the keyed operator in the order of their partition — a record read twice,
 * skipped, or overtaken by a later one read by the partition's next task shows.
 */
class SourceRescaleTest {
  static final int RECORDS = 40_000;
  static final int PARTITIONS = 8;
  static final long KEYS = 40; // a multiple of the partitions: record i is in partition i % 8

  /** Fails the job when a key's records come out of their partition's order; else passes them. */
  static final class InOrder extends KeyedProcessFunction<Long, Long, KeyValue<Long, Long>> {
    private ValueState<Long> last;

    @Override
    public void open(KeyedStateContext ctx) {
      last = ctx.valueState("last", Long.class);
    }

    @Override
    public void process(Long i, Context<Long> ctx, Collector<KeyValue<Long, Long>> out) {
      Long before = last.value();
      if (before != null && i <= before) {
        throw new IllegalStateException(
            "record " + i + " of key " + ctx.currentKey() + " came after record " + before);
      }
      last.update(i);
      out.collect(new KeyValue<>(ctx.currentKey(), i));
    }
  }

  /**
   * source "n" (8 partitions, 2 tasks, reading as fast as its output lets it) → keyBy(i % 40) →
   * "order" (2 tasks of 2,500 records/s each) → sink. With small windows ({@link #config}) the
   * source's output channels are full: a partition's next task would overtake the records its last
   * one still has queued if it started reading before they were all consumed.
   */
  static Dataflow dataflow() {
    DataflowBuilder b = Dataflow.builder("sources").parallelism(2);
    b.source(
            SourceSpec.generator("n", (i, seed) -> i)
                .partitions(PARTITIONS)
                .count(RECORDS)
                .rate(RateSchedule.unlimited()))
        .keyBy(i -> i % KEYS)
        .process("order", InOrder::new)
        .capacity(2_500)
        .sink(SinkSpec.collecting("out"));
    return b.build();
  }

  /**
   * Workers in separate actor systems: the new source tasks' records cross TCP. Three requests in
   * the 8 s the job takes, each waiting for the one before; one more, for more tasks than the
   * source has partitions, refused.
   */
  @Test
  void aSourceScalesOutMigratesAndScalesInWhileRunning() throws Exception {
    KoalaConfig config = config(3).withSeparateSystems(true);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(dataflow());
      awaitRead(job, 2_000);
      LiveReconfigurationTest.assertRefused(
          job.rescale("n", PARTITIONS + 1),
          "parallelism 9 for source 'n' is above the 8 tasks that can have something to read");
      ReconfigurationReport out = done(job.rescale("n", 5));
      assertThat(out.tasksAfter()).hasSize(5);
      ReconfigurationReport moved = done(job.migrate("n", 0, 2));
      assertThat(moved.tasksAfter()).hasSize(5).doesNotContain(0);
      ReconfigurationReport in = done(job.rescale("n", 1));
      assertThat(in.tasksAfter()).hasSize(1);
      System.out.printf(
          "source epochs: 2 -> 5 tasks in %d ms, a migration in %d ms, 5 -> 1 in %d ms%n",
          out.durationMillis(), moved.durationMillis(), in.durationMillis());
      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertEveryRecordOnce(job.collected("out"));
      assertThat(job.metrics().recordsIn("n")).isEqualTo(RECORDS);
      assertThat(job.metrics().rollbacks()).as("rollbacks").isZero();
    }
  }

  /**
   * Batches of at most 64 records, 2 in flight per channel: each source task reads ahead little.
   */
  static KoalaConfig config(int workers) {
    return KoalaConfig.load()
        .withWorkers(workers)
        .with("koala.batch.max-records", 64)
        .with("koala.channel.credits", 2);
  }

  static void awaitRead(JobHandle job, long records) {
    Eventually.await(
        "the job to be running and to have read " + records + " records",
        WAIT,
        () -> job.status() == JobStatus.RUNNING && job.metrics().recordsIn("order") >= records);
  }

  static void assertEveryRecordOnce(List<KeyValue<Long, Long>> out) {
    TreeSet<Long> seen = new TreeSet<>();
    for (KeyValue<Long, Long> kv : out) {
      assertThat(kv.key()).as("key of record %d", kv.value()).isEqualTo(kv.value() % KEYS);
      assertThat(seen.add(kv.value())).as("record %d twice", kv.value()).isTrue();
    }
    assertThat(out).hasSize(RECORDS);
  }
}
