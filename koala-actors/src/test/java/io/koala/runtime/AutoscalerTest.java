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
 * The autoscaler ({@code koala.autoscaler}) in a running job: it measures a keyed operator's and a
 * round-robin stage's true rates from their tasks' busy time, scales both out live when their input
 * outgrows them, lists its decisions with the reasons in the job's metrics, and the job's output is
 * what one task of each would have given.
 */
class AutoscalerTest {
  private static final int KEYS = 40;
  private static final long RECORDS = 16_000;

  @Test
  void scalesOverloadedOperatorsOutLiveAndLosesNothing() {
    DataflowBuilder b = Dataflow.builder("autoscaled");
    b.source(
            SourceSpec.generator("n", (i, s) -> i % KEYS)
                .rate(RateSchedule.constant(2_000))
                .count(RECORDS))
        .parallelism(1)
        .map("parse", (Long x) -> x) // a stage without keyed input, fed round-robin
        .parallelism(2)
        .capacity(500) // two tasks serve half the input
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
            .with("koala.autoscaler.operators", List.of("count", "parse"));
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(b.build());
      Eventually.await(
          "a scale-out of each decided and carried out",
          Duration.ofSeconds(30),
          () ->
              job.metrics().autoscaler().decisions().stream()
                      .filter(d -> d.outcome().startsWith("completed"))
                      .map(AutoscalerDecision::operator)
                      .distinct()
                      .count()
                  == 2);
      AutoscalerStatus status = job.metrics().autoscaler();
      assertThat(status.enabled()).isTrue();
      for (String op : List.of("count", "parse")) {
        AutoscalerDecision first =
            status.decisions().stream()
                .filter(d -> d.operator().equals(op))
                .findFirst()
                .orElseThrow();
        assertThat(first.kind()).as(op).isEqualTo(AutoscalerDecision.Kind.SCALE_OUT);
        assertThat(first.fromParallelism()).as(op).isEqualTo(op.equals("count") ? 1 : 2);
        // the input alone needs 2,000 / 500 x 1.25 = 5 tasks, and the backlog more
        assertThat(first.toParallelism()).as(op).isBetween(5, 8);
        assertThat(first.reason()).as(op).contains("true rate", "per task");
      }
      assertThat(status.scaleOuts()).isPositive();
      AutoscalerEvaluation count =
          status.evaluations().stream()
              .filter(e -> e.operator().equals("count"))
              .findFirst()
              .orElseThrow();
      assertThat(count.trueRatePerTask()).as("the emulated capacity").isBetween(400.0, 600.0);
      assertThat(status.evaluations())
          .filteredOn(e -> e.operator().equals("n"))
          .allMatch(e -> e.verdict().contains("not in koala.autoscaler.operators"));
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
