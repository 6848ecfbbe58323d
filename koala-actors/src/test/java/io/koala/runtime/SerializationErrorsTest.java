package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.job.JobStatus;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A value class that is not registered gives an error naming it and how to register it. */
class SerializationErrorsTest {

  record Unregistered(long id) {}

  static Dataflow dataflow(boolean register) {
    DataflowBuilder b = Dataflow.builder("types").parallelism(2);
    if (register) {
      b.registerTypes(Unregistered.class);
    }
    b.source(SourceSpec.generator("n", (i, s) -> i).partitions(2).count(200))
        .map("wrap", Unregistered::new)
        .keyBy(Unregistered::id)
        .reduce("last", (a, v) -> v)
        .sink(SinkSpec.collecting("out"));
    return b.build();
  }

  @Test
  void unregisteredClassFailsTheEmittingOperatorWithTheFix() {
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load())) {
      JobHandle job = runtime.submit(dataflow(false));
      assertThatThrownBy(() -> job.await(Duration.ofSeconds(30)))
          .isInstanceOf(JobFailedException.class)
          .hasMessageContaining("operator 'wrap'")
          .hasMessageContaining(Unregistered.class.getName())
          .hasMessageContaining("registerTypes");
    }
  }

  @Test
  void registeredClassCrossesTcpBetweenSeparateSystems() {
    KoalaConfig config = KoalaConfig.load().withWorkers(2).withSeparateSystems(true);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(dataflow(true));
      assertThat(job.await(Duration.ofSeconds(60))).isEqualTo(JobStatus.FINISHED);
      List<Unregistered> out = job.collected("out");
      assertThat(out).hasSize(200);
      assertThat(out)
          .extracting(Unregistered::id)
          .containsExactlyInAnyOrderElementsOf(
              java.util.stream.LongStream.range(0, 200).boxed().toList());
    }
  }
}
