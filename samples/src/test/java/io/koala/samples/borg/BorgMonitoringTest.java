package io.koala.samples.borg;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.samples.SeriesStatsCheck;
import io.koala.samples.SeriesStatsCheck.LastValues;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class BorgMonitoringTest {

  @Test
  void emitsMedianMeanAndMaxOfTheLastRequestsOfEachJobAndTypeLikeAPlainLoop() {
    int records = 3_000;
    BorgGenerator gen = new BorgGenerator(9 * 40, 9 * 6, 0, 1_000);
    long seed = 5;
    DataflowBuilder b = Dataflow.builder("borg-test").parallelism(2);
    BorgMonitoring.registerTypes(b);
    // one partition: each key's events arrive in index order, so its statistics are determined
    BorgMonitoring.requestStats(
            b.source(
                SourceSpec.generator("task-events", gen).partitions(1).count(records).seed(seed)),
            BorgMonitoring.OPERATOR,
            512)
        .sink(SinkSpec.collecting("stats"));

    Map<Long, List<JobRequestStats>> actual = new TreeMap<>();
    for (JobRequestStats s : SeriesStatsCheck.<JobRequestStats>collected(b, "stats")) {
      actual.computeIfAbsent(s.jobId() * 9 + s.type().ordinal(), k -> new ArrayList<>()).add(s);
    }

    LastValues last = new LastValues(32);
    Map<Long, List<JobRequestStats>> expected = new TreeMap<>();
    for (long i = 0; i < records; i++) {
      TaskEvent e = gen.generate(i, seed);
      long key = e.jobId() * 9 + e.type().ordinal();
      double[] requests = last.add(key, e.cpuRequest());
      expected
          .computeIfAbsent(key, k -> new ArrayList<>())
          .add(
              new JobRequestStats(
                  e.jobId(),
                  e.type(),
                  requests.length,
                  SeriesStatsCheck.median(requests),
                  SeriesStatsCheck.mean(requests),
                  SeriesStatsCheck.max(requests)));
    }
    assertThat(expected).hasSize(9 * 40);
    assertThat(expected.values().stream().mapToInt(List::size).max().orElseThrow())
        .isGreaterThan(64); // some key goes well past its last 32 requests
    assertThat(actual).isEqualTo(expected);
  }
}
