package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.KeyedStage;
import io.koala.eventtime.WatermarkStrategy;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Interval joins end to end, against hand-computed results, leaving no state behind. */
class IntervalJoinTest {

  /** A record of either side: key, name and timestamp. */
  record Ev(String key, String name, long ts) {}

  static Ev ev(String key, String name, long ts) {
    return new Ev(key, name, ts);
  }

  static final WatermarkStrategy WATERMARKS =
      WatermarkStrategy.boundedOutOfOrderness(Duration.ofMillis(5));

  private static List<String> run(DataflowBuilder b) {
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load())) {
      JobHandle job = runtime.submit(b.build());
      assertThat(job.await(Duration.ofSeconds(30))).isEqualTo(JobStatus.FINISHED);
      JobMetrics metrics = job.metrics();
      assertThat(metrics.stateEntries()).as("the end of input fires every clean-up timer").isZero();
      assertThat(metrics.tasksOf("join").stream().mapToLong(t -> t.lateRecords()).sum()).isZero();
      return job.collected("out");
    }
  }

  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 3})
  void inclusiveBoundsWithANegativeLowerBound(int parallelism) {
    List<Ev> clicks = List.of(ev("u2", "c3", 5), ev("u1", "c1", 10), ev("u1", "c2", 20));
    List<Ev> views =
        List.of(
            ev("u2", "w2", 2),
            ev("u1", "v6", 6),
            ev("u1", "v7", 7),
            ev("u2", "w8", 8),
            ev("u3", "x10", 10),
            ev("u1", "v12", 12),
            ev("u1", "v17", 17),
            ev("u1", "v22", 22),
            ev("u1", "v23", 23));
    DataflowBuilder b = Dataflow.builder("interval").parallelism(parallelism);
    b.registerTypes(Ev.class);
    KeyedStage<String, Ev> left =
        b.source(SourceSpec.collection("clicks", clicks).timestamps(Ev::ts), WATERMARKS)
            .keyBy(Ev::key);
    KeyedStage<String, Ev> right =
        b.source(SourceSpec.collection("views", views).timestamps(Ev::ts).partitions(2), WATERMARKS)
            .keyBy(Ev::key);
    // A view matches a click when click.ts - 3 <= view.ts <= click.ts + 2.
    left.intervalJoin(right)
        .between(Duration.ofMillis(-3), Duration.ofMillis(2))
        .apply("join", (c, v) -> c.name() + "+" + v.name())
        .sink(TimestampedSink.collecting("out"));
    assertThat(run(b))
        .containsExactlyInAnyOrder("c1+v7@10", "c1+v12@12", "c2+v17@20", "c2+v22@22", "c3+w2@5");
  }

  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 3})
  void aStageJoinsItself(int parallelism) {
    List<Ev> events =
        List.of(ev("k", "e1", 1), ev("k", "e2", 2), ev("k", "e3", 2), ev("k", "e4", 5));
    DataflowBuilder b = Dataflow.builder("self").parallelism(parallelism);
    b.registerTypes(Ev.class);
    KeyedStage<String, Ev> s =
        b.source(SourceSpec.collection("events", events).timestamps(Ev::ts), WATERMARKS)
            .keyBy(Ev::key);
    s.intervalJoin(s)
        .between(Duration.ZERO, Duration.ofMillis(1))
        .apply("join", (x, y) -> x.name() + "+" + y.name())
        .sink(TimestampedSink.collecting("out"));
    assertThat(run(b))
        .containsExactlyInAnyOrder(
            "e1+e1@1", "e1+e2@2", "e1+e3@2", "e2+e2@2", "e2+e3@2", "e3+e2@2", "e3+e3@2", "e4+e4@5");
  }

  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 3})
  void anEmptyInputJoinsNothingAndLeavesNothing(int parallelism) {
    DataflowBuilder b = Dataflow.builder("empty").parallelism(parallelism);
    b.registerTypes(Ev.class);
    KeyedStage<String, Ev> left =
        b.source(
                SourceSpec.collection("left", List.of(ev("k", "a", 1), ev("j", "b", 2)))
                    .timestamps(Ev::ts),
                WATERMARKS)
            .keyBy(Ev::key);
    KeyedStage<String, Ev> right =
        b.source(
                SourceSpec.collection("right", List.<Ev>of()).timestamps(Ev::ts).partitions(2),
                WATERMARKS)
            .keyBy(Ev::key);
    left.intervalJoin(right)
        .between(Duration.ofMillis(-100), Duration.ofMillis(100))
        .apply("join", (x, y) -> x.name() + "+" + y.name())
        .sink(TimestampedSink.collecting("out"));
    assertThat(run(b)).isEmpty();
  }
}
