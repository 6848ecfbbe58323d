package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.RateSchedule;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.KeyValue;
import io.koala.job.AutoscalerDecision;
import io.koala.job.AutoscalerEvaluation;
import io.koala.job.AutoscalerStatus;
import io.koala.job.JobStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The autoscaler ({@code koala.autoscaler}) in a running job: it measures a keyed operator's true
 * rate from its tasks' busy time, scales it out live when its input outgrows it, lists its decision
 * with the reasons in the job's metrics, and the job's output is what one task would have given.
 */
class AutoscalerTest {
  private static final int KEYS = 40;
  private static final long RECORDS = 16_000;

  @Test
  void scalesAnOverloadedOperatorOutLiveAndLosesNothing() {
    DataflowBuilder b = Dataflow.builder("autoscaled");
    b.source(
            SourceSpec.generator("n", (i, s) -> i % KEYS)
                .rate(RateSchedule.constant(2_000))
                .count(RECORDS))
        .keyBy(x -> x)
        .count("count")
        .parallelism(1)
        .capacity(500) // one task serves a quarter of the input
        .sink(SinkSpec.collecting("out"));
    KoalaConfig config =
        KoalaConfig.load()
            .with("koala.autoscaler.enabled", true)
            .with("koala.autoscaler.interval", "1 s")
            .with("koala.autoscaler.max-parallelism", 8)
            .with("koala.autoscaler.operators", List.of("count"));
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(b.build());
      Eventually.await(
          "a scale-out decided and carried out",
          Duration.ofSeconds(30),
          () ->
              job.metrics().autoscaler().decisions().stream()
                  .anyMatch(d -> d.outcome().startsWith("completed")));
      AutoscalerStatus status = job.metrics().autoscaler();
      assertThat(status.enabled()).isTrue();
      AutoscalerDecision first = status.decisions().get(0);
      assertThat(first.kind()).isEqualTo(AutoscalerDecision.Kind.SCALE_OUT);
      assertThat(first.operator()).isEqualTo("count");
      assertThat(first.fromParallelism()).isEqualTo(1);
      // the input alone needs 2,000 / 500 x 1.25 = 5 tasks, and the backlog more
      assertThat(first.toParallelism()).isBetween(5, 8);
      assertThat(first.reason()).contains("true rate", "per task");
      assertThat(status.scaleOuts()).isPositive();
      AutoscalerEvaluation count =
          status.evaluations().stream()
              .filter(e -> e.operator().equals("count"))
              .findFirst()
              .orElseThrow();
      assertThat(count.trueRatePerTask()).as("the emulated capacity").isBetween(400.0, 600.0);
      assertThat(status.evaluations())
          .filteredOn(e -> e.operator().equals("n"))
          .allMatch(e -> e.verdict().contains("not rescalable live"));
      assertThat(job.await(Duration.ofSeconds(60))).isEqualTo(JobStatus.FINISHED);
      Map<Long, List<Long>> counts = new HashMap<>();
      for (KeyValue<Long, Long> kv : job.<KeyValue<Long, Long>>collected("out")) {
        counts.computeIfAbsent(kv.key(), k -> new ArrayList<>()).add(kv.value());
      }
      assertThat(counts).hasSize(KEYS);
      for (var e : counts.entrySet()) {
        List<Long> seen = e.getValue();
        seen.sort(Long::compare);
        List<Long> expected = new ArrayList<>();
        for (long c = 1; c <= RECORDS / KEYS; c++) {
          expected.add(c);
        }
        assertThat(seen).as("key %d: each count once", e.getKey()).isEqualTo(expected);
      }
    }
  }
}
