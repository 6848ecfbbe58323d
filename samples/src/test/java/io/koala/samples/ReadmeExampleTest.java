package io.koala.samples;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.dataflow.Collector;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.KeyValue;
import io.koala.dataflow.SinkSpec;
import io.koala.dataflow.SourceSpec;
import io.koala.runtime.JobHandle;
import io.koala.runtime.KoalaRuntime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The README's example, compiled and run; the README must show exactly this code. */
class ReadmeExampleTest {

  @Test
  void readmeExampleRuns() {
    Map<String, Long> result = wordCount();
    assertThat(result)
        .containsEntry("to", 2L)
        .containsEntry("be", 2L)
        .containsEntry("question", 1L)
        .hasSize(8);
  }

  static Map<String, Long> wordCount() {
    // README-BEGIN
    DataflowBuilder b = Dataflow.builder("word-count").parallelism(2);
    b.source(SourceSpec.collection("lines", List.of("to be or not to be", "that is the question")))
        .flatMap(
            "split",
            (String line, Collector<String> out) -> {
              for (String word : line.split(" ")) {
                out.collect(word);
              }
            })
        .keyBy(word -> word)
        .count("count")
        .sink(SinkSpec.collecting("counts"));

    try (KoalaRuntime runtime = KoalaRuntime.embedded()) {
      JobHandle job = runtime.submit(b.build());
      job.await(Duration.ofSeconds(30));
      List<KeyValue<String, Long>> counts = job.collected("counts"); // running counts
      return counts.stream()
          .collect(Collectors.toMap(KeyValue::key, KeyValue::value, Math::max, TreeMap::new));
    }
    // README-END
  }

  @Test
  void readmeShowsTheTestedCode() throws IOException {
    String source =
        Files.readString(Path.of("src/test/java/io/koala/samples/ReadmeExampleTest.java"));
    String tested =
        source.substring(
            source.indexOf("// README-BEGIN") + "// README-BEGIN".length(),
            source.indexOf("    // README-END"));
    String readme = Files.readString(Path.of("../README.md"));
    assertThat(normalize(readme)).contains(normalize(tested));
  }

  private static String normalize(String code) {
    return code.lines()
        .map(String::strip)
        .filter(l -> !l.isEmpty())
        .collect(Collectors.joining("\n"));
  }
}
