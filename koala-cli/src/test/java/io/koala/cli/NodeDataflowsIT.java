package io.koala.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.koala.cluster.DataflowProvider;
import io.koala.dataflow.Dataflow;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two {@code koala node} processes run a user's dataflow from a jar that is not on their class
 * path: the test compiles a provider, its records and its keyed function into that jar. Node A
 * starts with {@code --dataflows JAR --submit tally}, node B with {@code --dataflows JAR}; the
 * job's tasks run on both nodes, so the user's record class crosses between them on the keyed
 * exchange (registered by name through {@code koala.serialization.types}, which the jar's loader
 * must resolve), and node A's endpoint reads a key's state, the user's other record, decoded there.
 */
class NodeDataflowsIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  /** The user's code: the settings of the node file reach it ({@code tally.sensors}). */
  private static final String SOURCE =
      """
      package demo;

      import com.typesafe.config.Config;
      import io.koala.cluster.DataflowProvider;
      import io.koala.connector.RateSchedule;
      import io.koala.connector.SinkSpec;
      import io.koala.connector.SourceSpec;
      import io.koala.dataflow.Dataflow;
      import io.koala.dataflow.DataflowBuilder;
      import io.koala.function.Collector;
      import io.koala.function.KeyedProcessFunction;
      import io.koala.state.KeyedStateContext;
      import io.koala.state.ValueState;
      import java.util.List;

      public final class Tallies implements DataflowProvider {
        public record Reading(long sensor, long value) {}

        public record Tally(long readings, long sum) {}

        public static final class Total extends KeyedProcessFunction<Long, Reading, Tally> {
          private ValueState<Tally> total;

          @Override
          public void open(KeyedStateContext ctx) {
            total = ctx.valueState("total", Tally.class);
          }

          @Override
          public void process(Reading r, Context<Long> ctx, Collector<Tally> out) {
            Tally t = total.value();
            Tally next =
                t == null ? new Tally(1, r.value()) : new Tally(t.readings() + 1, t.sum() + r.value());
            total.update(next);
            out.collect(next);
          }
        }

        @Override
        public List<Dataflow> dataflows(Config node) {
          long sensors = node.getLong("tally.sensors");
          DataflowBuilder b = Dataflow.builder("tally").parallelism(2).registerTypes(Tally.class);
          b.source(
                  SourceSpec.generator("readings", (i, seed) -> new Reading(i % sensors, i))
                      .partitions(2)
                      .rate(RateSchedule.constant(2_000)))
              .keyBy(Reading::sensor)
              .process("tally", Total::new)
              .sink(SinkSpec.discarding("out"));
          return List.of(b.build());
        }
      }
      """;

  @Test
  void twoNodesRunADataflowFromAJarOffTheirClassPath(@TempDir Path dir) throws Exception {
    Path jar = userJar(dir);
    // the nodes run with this JVM's class path, which lacks the user's classes
    assertThatThrownBy(() -> Class.forName("demo.Tallies"))
        .isInstanceOf(ClassNotFoundException.class);
    int[] ports = NodeProcess.freePorts(4); // A, B, A's endpoint, B's endpoint
    String common =
        "koala.node.seed-nodes = [\"127.0.0.1:"
            + ports[0]
            + "\"]\n"
            + "koala.cluster.scale-on-join = [tally]\n" // onto B, should it join after the submit
            + "koala.serialization.types = [\"demo.Tallies$Reading\"]\n"
            + "tally.sensors = 50\n";
    Path a =
        NodeProcess.configFile(dir, 0, ports, common + "koala.node.http.port = " + ports[2] + "\n");
    Path b =
        NodeProcess.configFile(dir, 1, ports, common + "koala.node.http.port = " + ports[3] + "\n");
    try (NodeProcess nodeA =
            NodeProcess.start("A", a, "--dataflows", jar.toString(), "--submit", "tally");
        NodeProcess nodeB = NodeProcess.start("B", b, "--dataflows", jar.toString())) {
      nodeA.awaitUp(WAIT);
      nodeB.awaitUp(WAIT);
      assertThat(nodeA.awaitSubmitted(WAIT)).isEqualTo("tally");
      String base = "http://127.0.0.1:" + ports[2] + "/jobs/tally";

      // a tally task on one node counts readings that a source task on the other node sent
      long deadline = System.nanoTime() + WAIT.toNanos();
      JsonNode job = get(base);
      while (!crossed(job)) {
        assertThat(System.nanoTime() - deadline)
            .as("readings crossing between the nodes within %s: %s", WAIT, job)
            .isNegative();
        LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
        job = get(base);
      }
      assertThat(job.get("status").asText()).isEqualTo("RUNNING");

      JsonNode state = get(base + "/state/tally/total?key=7&keyType=long");
      assertThat(state.get("found").asBoolean()).as(state.toString()).isTrue();
      assertThat(state.get("value").get("readings").asLong()).as(state.toString()).isPositive();
      long readings = state.get("value").get("readings").asLong();
      assertThat(state.get("value").get("sum").asLong() % 50)
          .as("the sum of sensor 7's values i, each i mod 50 = 7")
          .isEqualTo(readings * 7 % 50);

      // B's admin API lists and operates the job A coordinates
      String other = "http://127.0.0.1:" + ports[3] + "/jobs";
      JsonNode listed = get(other);
      assertThat(listed.size()).as(listed.toString()).isEqualTo(1);
      assertThat(listed.get(0).get("id").asText()).isEqualTo("tally");
      assertThat(listed.get(0).get("node").asText())
          .as("the coordinating node")
          .endsWith("127.0.0.1:" + ports[0]);
      JsonNode later = get(other + "/tally/state/tally/total?key=7&keyType=long");
      assertThat(later.get("value").get("readings").asLong())
          .as("read through B, after A's answer")
          .isGreaterThanOrEqualTo(readings);
      send(
          HttpRequest.newBuilder(URI.create(other + "/tally/cancel"))
              .POST(HttpRequest.BodyPublishers.noBody())
              .build());
      assertThat(nodeB.stop(WAIT)).as("B's remoting drops").isZero();
      assertThat(nodeA.stop(WAIT)).as("A's remoting drops").isZero();
    }
  }

  /**
   * Whether a tally task that consumed readings runs on another node than a source task, and the
   * job's tasks are on two nodes.
   */
  private static boolean crossed(JsonNode job) {
    Set<String> nodes = new HashSet<>();
    Set<String> sources = new HashSet<>();
    for (JsonNode t : job.path("tasks")) {
      nodes.add(t.path("node").asText());
      if (t.path("operator").asText().equals("readings")) {
        sources.add(t.path("node").asText());
      }
    }
    for (JsonNode t : job.path("tasks")) {
      if (t.path("operator").asText().equals("tally")
          && t.path("recordsIn").asLong() > 0
          && sources.stream().anyMatch(s -> !s.equals(t.path("node").asText()))) {
        return nodes.size() == 2;
      }
    }
    return false;
  }

  private static JsonNode get(String url) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(URI.create(url)).build());
  }

  /** A node's answer to {@code request}, which must be 200. */
  private static JsonNode send(HttpRequest request) throws IOException, InterruptedException {
    HttpResponse<String> r = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(request.uri() + ": " + r.body()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  /** Where {@code classes} come from: what the user's code compiles against. */
  private static String classPath(Class<?>... classes) throws URISyntaxException {
    StringBuilder s = new StringBuilder();
    for (Class<?> c : classes) {
      s.append(Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()))
          .append(java.io.File.pathSeparator);
    }
    return s.toString();
  }

  /** The user's jar: {@link #SOURCE} compiled, with its services file. */
  private static Path userJar(Path dir) throws IOException, URISyntaxException {
    Path src = Files.createDirectories(dir.resolve("src/demo")).resolve("Tallies.java");
    Files.writeString(src, SOURCE);
    Path classes = Files.createDirectories(dir.resolve("classes"));
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    int code =
        javac.run(
            null,
            null,
            null,
            "-proc:none",
            "--release",
            "17",
            "-classpath",
            classPath(DataflowProvider.class, Dataflow.class, com.typesafe.config.Config.class),
            "-d",
            classes.toString(),
            src.toString());
    assertThat(code).as("javac").isZero();
    Path jar = dir.resolve("tallies.jar");
    try (OutputStream file = Files.newOutputStream(jar);
        JarOutputStream out = new JarOutputStream(file);
        Stream<Path> compiled = Files.walk(classes)) {
      for (Path c : compiled.filter(Files::isRegularFile).toList()) {
        out.putNextEntry(new JarEntry(classes.relativize(c).toString().replace('\\', '/')));
        out.write(Files.readAllBytes(c));
        out.closeEntry();
      }
      out.putNextEntry(new JarEntry("META-INF/services/io.koala.cluster.DataflowProvider"));
      out.write("demo.Tallies\n".getBytes(StandardCharsets.UTF_8));
      out.closeEntry();
    }
    return jar;
  }
}
