package io.koala.samples.azure;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.SinkSpec;
import io.koala.dataflow.SourceSpec;
import io.koala.runtime.JobHandle;
import io.koala.runtime.JobStatus;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.KoalaRuntime;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
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
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load().withWorkers(2))) {
      JobHandle job = runtime.submit(b.build());
      assertThat(job.await(Duration.ofSeconds(60))).isEqualTo(JobStatus.FINISHED);
      for (VmCpuStats s : job.<VmCpuStats>collected("stats")) {
        actual.computeIfAbsent(s.vmId(), k -> new ArrayList<>()).add(s);
      }
    }

    Map<Long, Deque<Double>> last = new TreeMap<>();
    Map<Long, List<VmCpuStats>> expected = new TreeMap<>();
    for (long i = 0; i < records; i++) {
      VmReading r = gen.generate(i, seed);
      Deque<Double> cpu = last.computeIfAbsent(r.vmId(), k -> new ArrayDeque<>());
      cpu.addLast(r.avgCpu());
      if (cpu.size() > 48) {
        cpu.removeFirst();
      }
      double[] sorted = cpu.stream().mapToDouble(Double::doubleValue).sorted().toArray();
      int n = sorted.length;
      double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
      double sum = 0;
      for (double c : cpu) {
        sum += c;
      }
      expected
          .computeIfAbsent(r.vmId(), k -> new ArrayList<>())
          .add(new VmCpuStats(r.vmId(), n, median, sum / n, sorted[n - 1]));
    }
    assertThat(expected).hasSize(300);
    assertThat(expected.values().stream().mapToInt(List::size).max().orElseThrow())
        .isGreaterThan(48); // some VM goes past its last 48 readings
    assertThat(actual).isEqualTo(expected);
  }
}
