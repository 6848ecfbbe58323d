package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.DeadLetter;
import io.koala.function.KeyValue;
import io.koala.function.RecordErrorPolicy;
import io.koala.job.JobStatus;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A job's {@link RecordErrorPolicy}: under {@code skip} a record that fails a user function, a key
 * selector, or the key-length check is counted against the operator it failed in and the job goes
 * on with every other record; under {@code deadLetter} it also reaches the dataflow's dead letters,
 * once; past the budget, and under the default {@code fail}, the job fails naming the operator (and
 * the budget).
 */
class RecordErrorPolicyTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int RECORDS = 2_000;
  private static KoalaRuntime runtime;

  @BeforeAll
  static void start() {
    runtime = KoalaRuntime.embedded(KoalaConfig.load());
  }

  @AfterAll
  static void stop() {
    runtime.close();
  }

  /** Every 100th record (7, 107, ...) is poison to {@code parse}. */
  private static boolean poison(long i) {
    return i % 100 == 7;
  }

  private static Dataflow parseAndCount(String name, RecordErrorPolicy policy) {
    return parseAndCount(Dataflow.builder(name).parallelism(2).onRecordError(policy));
  }

  private static Dataflow parseAndCount(DataflowBuilder b) {
    b.source(SourceSpec.generator("n", (i, s) -> i).partitions(2).count(RECORDS))
        .map(
            "parse",
            (Long i) -> {
              if (poison(i)) {
                throw new IllegalArgumentException("cannot parse record " + i);
              }
              return i;
            })
        .keyBy((Long i) -> i % 10)
        .count("count")
        .sink(SinkSpec.collecting("counts"));
    return b.build();
  }

  /** The final count of each key, of the records that are not poison. */
  private static Map<Long, Long> expectedCounts() {
    Map<Long, Long> want = new HashMap<>();
    LongStream.range(0, RECORDS)
        .filter(i -> !poison(i))
        .forEach(i -> want.merge(i % 10, 1L, Long::sum));
    return want;
  }

  private static Map<Long, Long> finalCounts(JobHandle job) {
    Map<Long, Long> last = new HashMap<>();
    List<KeyValue<Long, Long>> counts = job.collected("counts");
    counts.forEach(kv -> last.merge(kv.key(), kv.value(), Math::max));
    return last;
  }

  @Test
  void underSkipAFailingRecordIsCountedAndTheJobGoesOnWithTheOthers() {
    JobHandle job = runtime.submit(parseAndCount("skip-parse", RecordErrorPolicy.skip(100)));
    assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
    assertThat(job.metrics().recordsSkipped("parse")).isEqualTo(RECORDS / 100);
    assertThat(job.metrics().recordsSkipped("count")).isZero();
    assertThat(finalCounts(job)).isEqualTo(expectedCounts());
  }

  @Test
  void underDeadLetterEachFailingRecordReachesTheDeadLettersOnceAndTheJobGoesOn() {
    DataflowBuilder b =
        Dataflow.builder("dead-letter-parse")
            .parallelism(2)
            .onRecordError(RecordErrorPolicy.deadLetter(100));
    b.deadLetters().sink(SinkSpec.collecting("dead"));
    JobHandle job = runtime.submit(parseAndCount(b));
    assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);

    List<DeadLetter> dead = job.collected("dead");
    assertThat(dead)
        .extracting(DeadLetter::record)
        .containsExactlyInAnyOrderElementsOf(
            LongStream.range(0, RECORDS).filter(i -> poison(i)).mapToObj(Long::toString).toList());
    assertThat(dead)
        .allSatisfy(
            d -> {
              assertThat(d.operator()).isEqualTo("parse");
              assertThat(d.task()).startsWith("n#"); // the source's task runs parse, chained
              assertThat(d.recordType()).isEqualTo(Long.class.getName());
              assertThat(d.error())
                  .startsWith(IllegalArgumentException.class.getName())
                  .contains("cannot parse record " + d.record());
            });
    assertThat(job.metrics().recordsSkipped("parse")).isEqualTo(RECORDS / 100);
    assertThat(finalCounts(job)).isEqualTo(expectedCounts());
  }

  @Test
  void pastItsBudgetATaskFailsNamingTheBudget() {
    // 20 poison records over 2 tasks: one of them skips its 5th and fails at its 6th
    JobHandle job = runtime.submit(parseAndCount("skip-budget", RecordErrorPolicy.skip(5)));
    assertThatThrownBy(() -> job.await(WAIT))
        .isInstanceOf(JobFailedException.class)
        .hasMessageContaining("operator 'parse'")
        .hasMessageContaining("skipped 5 records it could not process, its budget (skip(5))")
        .hasMessageContaining("cannot parse record");
  }

  @Test
  void underTheDefaultAFailingRecordFailsTheJob() {
    JobHandle job = runtime.submit(parseAndCount("fail-parse", RecordErrorPolicy.fail()));
    assertThatThrownBy(() -> job.await(WAIT))
        .isInstanceOf(JobFailedException.class)
        .hasMessageContaining("operator 'parse'")
        .hasMessageContaining("cannot parse record 7");
  }

  @Test
  void aNullKeyAndAKeyTooLongForTheStoreAreSkippedWhereTheyAreTaken() {
    String tooLong = "k".repeat(1_000);
    DataflowBuilder b = Dataflow.builder("bad-keys").onRecordError(RecordErrorPolicy.skip(10));
    b.source(SourceSpec.generator("n", (i, s) -> i).count(RECORDS))
        .keyBy((Long i) -> i == 5 ? null : i == 9 ? tooLong : "k" + (i % 10))
        .count("count")
        .sink(SinkSpec.collecting("counts"));
    JobHandle job = runtime.submit(b.build());
    assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
    // the source's task runs the count's key selector as it emits: the skips are the source's
    assertThat(job.metrics().recordsSkipped("n")).isEqualTo(2);
    assertThat(job.metrics().recordsIn("count")).isEqualTo(RECORDS - 2);
  }
}
