package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.Stage;
import io.koala.function.KeyValue;
import io.koala.job.JobStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Union of two sources into one keyed aggregate, and the JSON-lines, logging and callback sinks.
 */
class UnionAndSinksTest {

  @Test
  void unionFeedsOneKeyedOperatorAndJsonLinesWritesEveryRecord(@TempDir Path dir)
      throws IOException {
    DataflowBuilder b = Dataflow.builder("union").parallelism(2);
    Stage<String> left = b.source(SourceSpec.collection("left", List.of("a", "b", "a")));
    Stage<String> right =
        b.source(SourceSpec.collection("right", List.of("b", "c", "a", "a")).partitions(2));
    Stage<KeyValue<String, Long>> counts = left.union(right).keyBy(s -> s).count("count");
    counts.sink(SinkSpec.jsonLines("json", dir));
    counts.sink(SinkSpec.logging("log"));
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load())) {
      JobHandle job = runtime.submit(b.build());
      assertThat(job.await(Duration.ofSeconds(30))).isEqualTo(JobStatus.FINISHED);
      assertThat(job.metrics().recordsIn("log")).isEqualTo(7);
    }
    List<String> lines = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.sorted().toList()) {
        assertThat(f.getFileName().toString()).matches("json-[01]\\.jsonl");
        lines.addAll(Files.readAllLines(f));
      }
    }
    assertThat(lines).hasSize(7);
    assertThat(lines)
        .contains(
            "{\"key\":\"a\",\"value\":4}",
            "{\"key\":\"b\",\"value\":2}",
            "{\"key\":\"c\",\"value\":1}");
  }

  @Test
  void forEachCallsTheFunctionWithEveryRecordInThisProcess() {
    List<String> words = new ArrayList<>();
    Map<String, Long> expected = new HashMap<>();
    for (int i = 0; i < 2_000; i++) {
      String w = "w" + (i * 7919 % 97);
      words.add(w);
      expected.merge(w, 1L, Long::sum);
    }
    Queue<KeyValue<String, Long>> seen = new ConcurrentLinkedQueue<>();
    DataflowBuilder b = Dataflow.builder("for-each").parallelism(2);
    b.source(SourceSpec.collection("words", words).partitions(2))
        .keyBy(s -> s)
        .count("count")
        .sink(SinkSpec.forEach("seen", seen::add));
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load())) {
      JobHandle job = runtime.submit(b.build());
      assertThat(job.await(Duration.ofSeconds(30))).isEqualTo(JobStatus.FINISHED);
    }
    // a count emits every running count of its key: the highest seen per key is its total
    Map<String, Long> last = new HashMap<>();
    for (KeyValue<String, Long> kv : seen) {
      last.merge(kv.key(), kv.value(), Math::max);
    }
    assertThat(seen).hasSize(words.size());
    assertThat(last).isEqualTo(expected);
  }
}
