package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.dataflow.Collector;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.KeyValue;
import io.koala.dataflow.SinkSpec;
import io.koala.dataflow.SourceSpec;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WordCountSmokeTest {
  @Test
  void countsWords() {
    DataflowBuilder b = Dataflow.builder("words").parallelism(2);
    b.source(SourceSpec.collection("lines", List.of("a b", "b c", "c c")).partitions(2))
        .flatMap(
            "split",
            (String line, Collector<String> out) -> {
              for (String w : line.split(" ")) {
                out.collect(w);
              }
            })
        .keyBy(w -> w)
        .count("count")
        .sink(SinkSpec.collecting("out"));
    try (KoalaRuntime rt = KoalaRuntime.embedded(KoalaConfig.load())) {
      JobHandle job = rt.submit(b.build());
      assertThat(job.await(Duration.ofSeconds(30))).isEqualTo(JobStatus.FINISHED);
      List<KeyValue<String, Long>> out = job.collected("out");
      Map<String, Long> last = new HashMap<>();
      out.forEach(kv -> last.merge(kv.key(), kv.value(), Math::max));
      assertThat(last).containsExactlyInAnyOrderEntriesOf(Map.of("a", 1L, "b", 2L, "c", 3L));
    }
  }
}
