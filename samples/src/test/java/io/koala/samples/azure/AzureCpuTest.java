package io.koala.samples.azure;

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

class AzureCpuTest {

  @Test
  void emitsMedianMeanAndMaxOfTheLastReadingsOfEachVmLikeAPlainLoop() {
    int records = 3_000;
    AzureGenerator gen = new AzureGenerator(300, 40, 0, 1_000);
    long seed = 8;
    DataflowBuilder b = Dataflow.builder("azure-test").parallelism(2);
    AzureCpu.registerTypes(b);
    // one partition: each VM's readings arrive in index order, so its statistics are determined
    AzureCpu.cpuStats(
            b.source(SourceSpec.generator("readings", gen).partitions(1).count(records).seed(seed)),
            AzureCpu.OPERATOR,
            512)
        .sink(SinkSpec.collecting("stats"));

    Map<Long, List<VmCpuStats>> actual = new TreeMap<>();
    for (VmCpuStats s : SeriesStatsCheck.<VmCpuStats>collected(b, "stats")) {
      actual.computeIfAbsent(s.vmId(), k -> new ArrayList<>()).add(s);
    }

    LastValues last = new LastValues(48);
    Map<Long, List<VmCpuStats>> expected = new TreeMap<>();
    for (long i = 0; i < records; i++) {
      VmReading r = gen.generate(i, seed);
      double[] cpu = last.add(r.vmId(), r.avgCpu());
      expected
          .computeIfAbsent(r.vmId(), k -> new ArrayList<>())
          .add(
              new VmCpuStats(
                  r.vmId(),
                  cpu.length,
                  SeriesStatsCheck.median(cpu),
                  SeriesStatsCheck.mean(cpu),
                  SeriesStatsCheck.max(cpu)));
    }
    assertThat(expected).hasSize(300);
    assertThat(expected.values().stream().mapToInt(List::size).max().orElseThrow())
        .isGreaterThan(48); // some VM goes past its last 48 readings
    assertThat(actual).isEqualTo(expected);
  }
}
