package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.KeyedStage;
import io.koala.eventtime.WatermarkStrategy;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import io.koala.window.WindowAssigner;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Window joins end to end, against hand-computed results. */
class WindowJoinTest {

  /** A record of either side: key, name and timestamp. */
  record Ev(String key, String name, long ts) {}

  static Ev ev(String key, String name, long ts) {
    return new Ev(key, name, ts);
  }

  // Left and right records of three keys; "solo" has left records only. Each partition is out of
  // order by less than the watermark bound, so nothing is late.
  static final List<Ev> LEFT =
      List.of(
          ev("k", "a1", 1),
          ev("solo", "s1", 3),
          ev("j", "j1", 4),
          ev("k", "a2", 8),
          ev("k", "a3", 12),
          ev("solo", "s2", 14),
          ev("j", "j2", 26));
  static final List<Ev> RIGHT =
      List.of(
          ev("k", "b1", 5),
          ev("j", "i1", 9),
          ev("k", "b2", 10),
          ev("j", "i2", 21),
          ev("k", "b3", 19),
          ev("j", "i3", 29));

  static List<String> run(int parallelism, WindowAssigner windows) {
    DataflowBuilder b = Dataflow.builder("window-join").parallelism(parallelism);
    b.registerTypes(Ev.class);
    WatermarkStrategy wm = WatermarkStrategy.boundedOutOfOrderness(Duration.ofMillis(5));
    KeyedStage<String, Ev> left =
        b.source(SourceSpec.collection("left", LEFT).timestamps(Ev::ts).partitions(2), wm)
            .keyBy(Ev::key);
    KeyedStage<String, Ev> right =
        b.source(SourceSpec.collection("right", RIGHT).timestamps(Ev::ts), wm).keyBy(Ev::key);
    left.join(right)
        .window(windows)
        .apply("join", (a, r) -> a.name() + "+" + r.name())
        .sink(TimestampedSink.collecting("out"));
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load())) {
      JobHandle job = runtime.submit(b.build());
      assertThat(job.await(Duration.ofSeconds(30))).isEqualTo(JobStatus.FINISHED);
      JobMetrics metrics = job.metrics();
      assertThat(metrics.stateEntries()).as("every window is purged").isZero();
      assertThat(metrics.tasksOf("join").stream().mapToLong(t -> t.lateRecords()).sum()).isZero();
      return job.collected("out");
    }
  }

  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 3})
  void tumblingWindowsJoinPairsOfTheSameKeyAndWindowOnly(int parallelism) {
    // k: [0,10) a1 a2 | b1; [10,20) a3 | b2 b3.  j: [0,10) j1 | i1; [20,30) j2 | i2 i3.
    assertThat(run(parallelism, WindowAssigner.tumbling(Duration.ofMillis(10))))
        .containsExactlyInAnyOrder(
            "a1+b1@9", "a2+b1@9", "a3+b2@19", "a3+b3@19", "j1+i1@9", "j2+i2@29", "j2+i3@29");
  }

  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 3})
  void slidingWindowsJoinAPairInEveryWindowTheyShare(int parallelism) {
    // Size 10 every 5: a record at t is in the windows starting at the two multiples of 5 in
    // (t - 10, t]. k: a1(1) [-5,5) [0,10); a2(8) [0,10) [5,15); a3(12) [5,15) [10,20);
    // b1(5) [0,10) [5,15); b2(10) [5,15) [10,20); b3(19) [10,20) [15,25).
    // j: j1(4) [-5,5) [0,10); j2(26) [20,30) [25,35); i1(9) [0,10) [5,15);
    // i2(21) [15,25) [20,30); i3(29) [20,30) [25,35).
    assertThat(
            run(parallelism, WindowAssigner.sliding(Duration.ofMillis(10), Duration.ofMillis(5))))
        .containsExactlyInAnyOrder(
            "a1+b1@9",
            "a2+b1@9",
            "a2+b1@14",
            "a2+b2@14",
            "a3+b1@14",
            "a3+b2@14",
            "a3+b2@19",
            "a3+b3@19",
            "j1+i1@9",
            "j2+i2@29",
            "j2+i3@29",
            "j2+i3@34");
  }

  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 3})
  void sessionsSpanBothInputs(int parallelism) {
    // Gap 5 ([t, t + 5) merged while they touch). k: 1, 5, 8, 10, 12 chain into [1,17); 19 alone.
    // j: 4, 9 → [4,14); 21, 26, 29 → [21,34). solo: left only.
    assertThat(run(parallelism, WindowAssigner.session(Duration.ofMillis(5))))
        .containsExactlyInAnyOrder(
            "a1+b1@16",
            "a2+b1@16",
            "a3+b1@16",
            "a1+b2@16",
            "a2+b2@16",
            "a3+b2@16",
            "j1+i1@13",
            "j2+i2@33",
            "j2+i3@33");
  }
}
