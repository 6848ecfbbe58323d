package io.koala.samples.twitch;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.job.JobStatus;
import io.koala.runtime.JobHandle;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.KoalaRuntime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class TwitchPipelineTest {

  @Test
  void theThreeStagesComputeRetentionLoyaltyAndTrendLikeAPlainLoop() {
    int records = 3_000;
    TwitchGenerator gen = new TwitchGenerator(100, 30, 0, 1_000);
    long seed = 17;
    DataflowBuilder b = Dataflow.builder("twitch-test").parallelism(2);
    TwitchPipeline.registerTypes(b);
    // one partition: each streamer's events arrive in index order through all three stages
    TwitchPipeline.Stages s =
        TwitchPipeline.build(
            b.source(
                SourceSpec.generator("viewer-events", gen).partitions(1).count(records).seed(seed)),
            256,
            512);
    s.retention().sink(SinkSpec.collecting("retention"));
    s.loyalty().sink(SinkSpec.collecting("loyalty"));
    s.trend().sink(SinkSpec.collecting("trend"));

    Map<Long, List<List<Object>>> retention = new TreeMap<>();
    Map<Long, List<Double>> loyalty = new TreeMap<>();
    Map<String, List<List<Double>>> trend = new TreeMap<>();
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load().withWorkers(2))) {
      JobHandle job = runtime.submit(b.build());
      assertThat(job.await(Duration.ofSeconds(60))).isEqualTo(JobStatus.FINISHED);
      for (StreamerRetention r : job.<StreamerRetention>collected("retention")) {
        retention
            .computeIfAbsent(r.streamerId(), k -> new ArrayList<>())
            .add(List.of(r.event(), r.viewers(), r.events(), r.averageRatio(), r.retentionScore()));
      }
      for (StreamerLoyalty l : job.<StreamerLoyalty>collected("loyalty")) {
        loyalty.computeIfAbsent(l.streamerId(), k -> new ArrayList<>()).add(l.loyalty());
      }
      for (LoyaltyTrend t : job.<LoyaltyTrend>collected("trend")) {
        trend
            .computeIfAbsent(t.streamerName(), k -> new ArrayList<>())
            .add(List.of(t.loyalty(), t.trend()));
      }
    }

    // per streamer: enters, leaves, minutes watched by leavers, last score, trend
    Map<Long, long[]> counts = new TreeMap<>();
    Map<Long, double[]> smoothed = new TreeMap<>();
    Map<Long, List<List<Object>>> expectedRetention = new TreeMap<>();
    Map<Long, List<Double>> expectedLoyalty = new TreeMap<>();
    Map<String, List<List<Double>>> expectedTrend = new TreeMap<>();
    for (long i = 0; i < records; i++) {
      ViewerEvent e = gen.generate(i, seed);
      long[] c = counts.computeIfAbsent(e.streamerId(), k -> new long[3]);
      if (e.enter()) {
        c[0]++;
      } else {
        c[1]++;
        c[2] += e.watchedMinutes();
      }
      long events = c[0] + c[1];
      long viewers = Math.max(0, c[0] - c[1]);
      double ratio = c[1] == 0 ? 0 : c[2] / (240.0 * c[1]);
      double score = 100 * (0.5 * ratio + 0.5 * viewers / (double) events);
      expectedRetention
          .computeIfAbsent(e.streamerId(), k -> new ArrayList<>())
          .add(List.of(e, viewers, events, ratio, score));
      double loyaltyScore = (0.4 * c[0] + 0.3 * c[2] + 0.3 * events) / 100.0;
      expectedLoyalty.computeIfAbsent(e.streamerId(), k -> new ArrayList<>()).add(loyaltyScore);
      double[] t = smoothed.get(e.streamerId());
      double next = t == null ? 0 : 0.3 * (loyaltyScore - t[0]) + 0.7 * t[1];
      smoothed.put(e.streamerId(), new double[] {loyaltyScore, next});
      expectedTrend
          .computeIfAbsent("streamer-" + e.streamerId(), k -> new ArrayList<>())
          .add(List.of(loyaltyScore, next));
    }
    assertThat(expectedTrend).hasSize(100);
    assertThat(expectedLoyalty.get(0L)).hasSizeGreaterThan(100);
    assertThat(retention).isEqualTo(expectedRetention);
    assertThat(loyalty).isEqualTo(expectedLoyalty);
    assertThat(trend).isEqualTo(expectedTrend);
  }
}
