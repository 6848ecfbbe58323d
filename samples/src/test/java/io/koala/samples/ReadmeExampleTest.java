package io.koala.samples;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.IngestSource;
import io.koala.connector.RateSchedule;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.eventtime.WatermarkStrategy;
import io.koala.function.Collector;
import io.koala.function.KeyValue;
import io.koala.function.KeyedProcessFunction;
import io.koala.job.ReconfigurationReport;
import io.koala.routing.PartitionPolicy;
import io.koala.runtime.Ingest;
import io.koala.runtime.JobHandle;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.KoalaRuntime;
import io.koala.state.KeyedStateContext;
import io.koala.state.ValueState;
import io.koala.window.WindowAssigner;
import io.koala.window.WindowResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The README's examples, compiled and run. Every Java block of the README must appear in one of the
 * regions between {@code README-BEGIN} and {@code README-END} below or in the testkit's {@code
 * ReadmeExamplesIT} (the examples of "Testing your dataflow"), the cluster's {@code
 * KoalaClusterIT}, koala-kafka's {@code KafkaSinkTest}, koala-actors' {@code StateQueryTest} and
 * {@code HostActorSystemTest}, or koala-micrometer's {@code KoalaMetricsTest}.
 */
class ReadmeExampleTest {
  /** The test classes holding the README's examples: this one, and the testkit's. */
  private static final List<String> TESTED =
      List.of(
          "src/test/java/io/koala/samples/ReadmeExampleTest.java",
          "../testkit/src/test/java/io/koala/testkit/ReadmeExamplesIT.java",
          "../koala-cluster/src/test/java/io/koala/cluster/KoalaClusterIT.java",
          "../koala-kafka/src/test/java/io/koala/kafka/KafkaSinkTest.java",
          "../koala-actors/src/test/java/io/koala/runtime/StateQueryTest.java",
          "../koala-actors/src/test/java/io/koala/runtime/HostActorSystemTest.java",
          "../koala-micrometer/src/test/java/io/koala/micrometer/KoalaMetricsTest.java");

  @Test
  void wordCountRuns() {
    assertThat(wordCount())
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

  // README-BEGIN
  class CountPerKey extends KeyedProcessFunction<String, String, Long> {
    private ValueState<Long> count;

    public void open(KeyedStateContext ctx) {
      count = ctx.valueState("count", Long.class);
    }

    public void process(String word, Context<String> ctx, Collector<Long> out) {
      long n = count.value() == null ? 1 : count.value() + 1;
      count.update(n);
      out.collect(n);
    }
  }

  // README-END

  @Test
  void countPerKeyRuns() {
    DataflowBuilder b = Dataflow.builder("count-per-key");
    b.source(SourceSpec.collection("words", List.of("a", "b", "a")))
        .keyBy(w -> w)
        .process("count", CountPerKey::new)
        .sink(SinkSpec.collecting("out"));
    try (KoalaRuntime runtime = KoalaRuntime.embedded()) {
      JobHandle job = runtime.submit(b.build());
      job.await(Duration.ofSeconds(30));
      List<Long> out = job.collected("out");
      assertThat(out).containsExactlyInAnyOrder(1L, 1L, 2L);
    }
  }

  // README-BEGIN
  record Click(String page, long time) {}

  // README-END

  @Test
  void clicksPerMinuteRuns() {
    List<Click> clicks =
        List.of(
            new Click("/home", 5_000),
            new Click("/cart", 20_000),
            new Click("/home", 59_000),
            new Click("/home", 61_000),
            new Click("/cart", 125_000));
    List<WindowResult<String, Long>> out = clicksPerMinute(clicks);
    assertThat(out)
        .containsExactlyInAnyOrder(
            new WindowResult<>("/home", 0, 60_000, 2L),
            new WindowResult<>("/cart", 0, 60_000, 1L),
            new WindowResult<>("/home", 60_000, 120_000, 1L),
            new WindowResult<>("/cart", 120_000, 180_000, 1L));
  }

  static List<WindowResult<String, Long>> clicksPerMinute(List<Click> clicks) {
    // README-BEGIN
    DataflowBuilder b = Dataflow.builder("clicks").registerTypes(Click.class);
    b.source(
            SourceSpec.collection("clicks", clicks).timestamps(Click::time),
            WatermarkStrategy.boundedOutOfOrderness(Duration.ofSeconds(5)))
        .keyBy(Click::page)
        .window(WindowAssigner.tumbling(Duration.ofMinutes(1)))
        .count("clicks-per-minute")
        .sink(SinkSpec.collecting("per-minute"));
    // README-END
    try (KoalaRuntime runtime = KoalaRuntime.embedded()) {
      JobHandle job = runtime.submit(b.build());
      job.await(Duration.ofSeconds(30));
      return new ArrayList<>(job.<WindowResult<String, Long>>collected("per-minute"));
    }
  }

  @Test
  void liveReconfigurationRuns() {
    DataflowBuilder b = Dataflow.builder("live").parallelism(2);
    b.source(
            SourceSpec.generator("events", (i, seed) -> i % 1_000)
                .partitions(2)
                .count(40_000)
                .rate(RateSchedule.constant(10_000)))
        .keyBy(k -> k)
        .count("count")
        .sink(SinkSpec.collecting("counts"));
    List<KeyValue<Long, Long>> counts = liveReconfiguration(b.build());
    assertThat(counts).hasSize(40_000);
    Map<Long, Long> last = new TreeMap<>();
    counts.forEach(kv -> last.merge(kv.key(), kv.value(), Math::max));
    assertThat(last).hasSize(1_000).allSatisfy((k, n) -> assertThat(n).isEqualTo(40L));
  }

  static List<KeyValue<Long, Long>> liveReconfiguration(Dataflow dataflow) {
    // README-BEGIN
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load().withWorkers(2))) {
      JobHandle job = runtime.submit(dataflow); // with a keyed operator named "count"
      ReconfigurationReport out = job.rescale("count", 4).toCompletableFuture().join();
      job.rebalance("count", PartitionPolicy.consistentHashing()).toCompletableFuture().join();
      job.migrate("count", 0, 1).toCompletableFuture().join(); // task 0 moves to worker 1
      job.await(Duration.ofMinutes(1));
      System.out.println(out.bucketsMoved() + " buckets moved in " + out.durationMillis() + " ms");
      return job.collected("counts");
    }
    // README-END
  }

  @Test
  void checkpointsRun(@org.junit.jupiter.api.io.TempDir Path dataDir) {
    DataflowBuilder b = Dataflow.builder("checkpointed").parallelism(2);
    b.source(
            SourceSpec.generator("events", (i, seed) -> i % 1_000)
                .partitions(2)
                .count(20_000)
                .rate(RateSchedule.constant(10_000)))
        .keyBy(k -> k)
        .count("count")
        .sink(SinkSpec.collecting("counts"));
    List<KeyValue<Long, Long>> counts = checkpointed(b.build(), dataDir);
    assertThat(counts).hasSize(20_000);
    Map<Long, Long> last = new TreeMap<>();
    counts.forEach(kv -> last.merge(kv.key(), kv.value(), Math::max));
    assertThat(last).hasSize(1_000).allSatisfy((k, n) -> assertThat(n).isEqualTo(20L));
  }

  static List<KeyValue<Long, Long>> checkpointed(Dataflow dataflow, Path dataDir) {
    // README-BEGIN
    KoalaConfig config =
        KoalaConfig.load()
            .withDataDir(dataDir)
            .withCheckpointInterval(Duration.ofSeconds(10))
            .withCheckpointsRetained(2);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(dataflow); // resumes from its latest checkpoint if it has one
      long id = job.checkpoint().toCompletableFuture().join(); // one now, once committed
      job.await(Duration.ofHours(1));
      return job.collected("counts");
    }
    // README-END
  }

  @Test
  void pushedOrdersAreCounted() throws InterruptedException {
    assertThat(ordersPerCustomer(List.of("ann", "bob", "ann", "ann")))
        .isEqualTo(Map.of("ann", 3L, "bob", 1L));
  }

  static Map<String, Long> ordersPerCustomer(List<String> customers) throws InterruptedException {
    DataflowBuilder b = Dataflow.builder("orders");
    Map<String, Long> totals = new ConcurrentHashMap<>();
    // README-BEGIN
    IngestSource<String> orders = SourceSpec.ingest("orders", 10_000);
    b.source(orders)
        .keyBy(customer -> customer)
        .count("per-customer")
        .sink(SinkSpec.forEach("totals", kv -> totals.put(kv.key(), kv.value())));
    try (KoalaRuntime runtime = KoalaRuntime.embedded()) {
      JobHandle job = runtime.submit(b.build());
      Ingest<String> in = job.ingest(orders);
      for (String customer : customers) {
        in.put(customer); // waits while the job is behind; offer(..) returns a CompletionStage
      }
      in.complete(); // no more records: the job finishes once it has read them all
      job.await(Duration.ofSeconds(30));
    }
    // README-END
    return totals;
  }

  @Test
  void readmeShowsOnlyTestedCode() throws IOException {
    List<String> tested = new ArrayList<>();
    for (String file : TESTED) {
      Matcher regions =
          Pattern.compile("// README-BEGIN\n(.*?)// README-END", Pattern.DOTALL)
              .matcher(Files.readString(Path.of(file)));
      while (regions.find()) {
        tested.add(normalize(regions.group(1)));
      }
    }
    String allTested = String.join("\n", tested);
    String readme = Files.readString(Path.of("../README.md"));
    Matcher blocks = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL).matcher(readme);
    int lines = 0;
    while (blocks.find()) {
      String block = normalize(blocks.group(1));
      assertThat(allTested).as("a README block is tested code").contains(block);
      lines += block.split("\n").length;
    }
    assertThat(lines).as("every tested line is shown").isEqualTo(allTested.split("\n").length);
  }

  private static String normalize(String code) {
    return code.lines()
        .map(String::strip)
        .filter(l -> !l.isEmpty() && !l.equals("// README-END"))
        .collect(Collectors.joining("\n"));
  }
}
