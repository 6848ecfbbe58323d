package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.DataflowDefinitionException;
import io.koala.job.JobStatus;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** An operator's emulated capacity bounds how fast its tasks process, and loses nothing. */
class CapacityTest {

  @Test
  void tasksProcessNoFasterThanTheirCapacity() {
    int records = 20_000;
    DataflowBuilder b = Dataflow.builder("capped").parallelism(2);
    b.source(SourceSpec.generator("n", (i, s) -> i % 50).partitions(2).count(records))
        .keyBy(x -> x)
        .count("count")
        .capacity(5_000)
        .sink(SinkSpec.collecting("out"));
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load())) {
      long t0 = System.nanoTime();
      JobHandle job = runtime.submit(b.build());
      assertThat(job.await(Duration.ofSeconds(60))).isEqualTo(JobStatus.FINISHED);
      double seconds = (System.nanoTime() - t0) / 1e9;
      // 2 tasks × 5 000/s: 2 s for 20 000 records, less the 50 ms burst each task starts with
      assertThat(seconds).isGreaterThan(1.9);
      assertThat(job.<Object>collected("out")).hasSize(records);
    }
  }

  @Test
  void aSourceHasARateNotACapacity() {
    DataflowBuilder b = Dataflow.builder("bad");
    assertThatThrownBy(() -> b.source(SourceSpec.collection("n", java.util.List.of(1))).capacity(5))
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("source 'n'");
  }
}
