package io.koala.testkit;

import static io.koala.testkit.KoalaAssertions.assertEquivalentToReferenceRun;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.RateSchedule;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.KeyValue;
import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationReport;
import io.koala.runtime.JobHandle;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The examples of the README's "Testing your dataflow", run. The README shows the code between
 * {@code README-BEGIN} and {@code README-END} as it is here: the samples' {@code ReadmeExampleTest}
 * checks that every Java block of the README is such a region, here or in its own file.
 */
class ReadmeExamplesIT {

  static Dataflow wordCount() {
    DataflowBuilder b = Dataflow.builder("word-count").parallelism(2);
    b.source(
            SourceSpec.generator("words", (i, seed) -> "w" + (i % 100))
                .rate(RateSchedule.constant(5_000))
                .count(20_000))
        .keyBy(word -> word)
        .count("count")
        .sink(SinkSpec.collecting("counts"));
    return b.build();
  }

  // README-BEGIN
  @Test
  void countsWordsWhileRescaling() {
    DataflowBuilder b = Dataflow.builder("word-count").parallelism(2);
    b.source(SourceSpec.<String>collection("words", List.of())) // the driver feeds every source
        .keyBy(word -> word)
        .count("count")
        .sink(SinkSpec.collecting("counts"));
    Dataflow dataflow = b.build();

    try (DataflowTestDriver driver = new DataflowTestDriver(dataflow)) {
      TestInput<String> words = driver.input("words");
      words.pipeAll(List.of("to", "be", "or", "not", "to", "be"));
      assertThat(driver.state("count", "be", "accumulator", Long.class)).isEqualTo(2L);

      ReconfigurationReport report = driver.rescale("count", 4); // runs to completion
      assertThat(report.bucketsMoved()).isPositive();
      words.pipe("be");
      assertThat(driver.<KeyValue<String, Long>>readOutput("counts"))
          .endsWith(new KeyValue<>("be", 3L));
    }

    assertEquivalentToReferenceRun(
        dataflow,
        "words",
        List.of("to", "be", "or", "not", "to", "be", "that", "is", "the", "question"),
        ReconfigurationSchedule.create().rescale(3, "count", 4).migrate(6, "count", 1));
  }

  // README-END

  // README-BEGIN
  @RegisterExtension static final KoalaNodes nodes = KoalaNodes.start(3);

  @Test
  void countsWordsOnThreeNodes() {
    JobHandle job = nodes.submit(wordCount()); // a generator source: 20,000 words in 4 s
    job.rescale("count", 4).toCompletableFuture().join();
    job.migrate("count", 0, 2).toCompletableFuture().join(); // task 0 moves to node 2
    assertThat(job.await(Duration.ofMinutes(1))).isEqualTo(JobStatus.FINISHED);
    assertThat(job.<KeyValue<String, Long>>collected("counts")).hasSize(20_000);
  }

  // README-END
}
