package io.koala.bench.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.koala.bench.cli.KoalaBench;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The experiments other than rescale and compare, end to end at a tiny scale: each exits 0, writes
 * its CSVs and charts, and ends with a JSON summary whose figures hang together.
 */
class ExperimentsIT {

  /** A scenario small and slow enough for any machine: 2,000 keys, tasks of 500 records/s. */
  static final List<String> TINY =
      List.of(
          "--keys=2000",
          "--active-keys=500",
          "--task-capacity=500",
          "--rate=1200",
          "--steady-seconds=3",
          "--doubled-seconds=4",
          "--tail-seconds=1",
          "--timeout-seconds=60");

  /** Runs {@code koala experiment NAME} with {@code args}; returns the last stdout line parsed. */
  static Config run(Path dir, String name, String... args) throws Exception {
    StringWriter out = new StringWriter();
    CommandLine cli = KoalaBench.commandLine().setOut(new PrintWriter(out));
    List<String> all = new ArrayList<>(List.of("experiment", name, "--out=" + dir));
    all.addAll(List.of(args));
    int code = cli.execute(all.toArray(String[]::new));
    assertThat(code).as("exit code of %s; stdout: %s", name, out).isZero();
    List<String> lines = out.toString().strip().lines().toList();
    Config summary = ConfigFactory.parseString(lines.get(lines.size() - 1));
    // a comparison's summary says "summary": true and names its experiment
    assertThat(
            summary.hasPath("experiment")
                ? summary.getString("experiment")
                : summary.getString("summary"))
        .isEqualTo(name);
    return summary;
  }

  /** {@link #TINY} with {@code more}, which replace options of the same name. */
  static List<String> tiny(String... more) {
    List<String> args = new ArrayList<>();
    for (String option : TINY) {
      String name = option.substring(0, option.indexOf('='));
      if (java.util.Arrays.stream(more).noneMatch(m -> m.startsWith(name + "="))) {
        args.add(option);
      }
    }
    args.addAll(List.of(more));
    return args;
  }

  static void assertPngs(Path dir, String... names) throws Exception {
    for (String name : names) {
      byte[] png = Files.readAllBytes(dir.resolve(name));
      assertThat(new String(png, 1, 3, StandardCharsets.US_ASCII)).as(name).isEqualTo("PNG");
    }
  }

  @Test
  void repeatedReportsEveryStepAndWaitsForTheScaleInsToDrain(@TempDir Path dir) throws Exception {
    Config s =
        run(
            dir,
            "repeated",
            tiny("--state-bytes=128", "--next=6,4", "--step-seconds=8", "--protocols=koala")
                .toArray(String[]::new));
    Config koala = s.getConfig("runs.koala");
    assertThat(koala.getIsNull("error")).as("%s", koala).isTrue();
    List<? extends Config> steps = koala.getConfigList("steps");
    assertThat(steps)
        .extracting(c -> c.getString("step"))
        .satisfiesExactly(
            a -> assertThat(a).contains("4 -> 8"),
            b -> assertThat(b).contains("8 -> 6"),
            c -> assertThat(c).contains("6 -> 4"));
    // the scale-out moves only touched keys
    assertThat(steps.get(0).getLong("stateBytesTransferred"))
        .isPositive()
        .isLessThan(steps.get(0).getLong("movedBucketsStateBytes"));
    // the run ends only once the four tasks the scale-ins retired are drained and released
    assertThat(koala.getInt("tasksReleased")).isEqualTo(4);
    assertThat(steps.get(2).getLong("stateBytesTransferred")).isPositive();
    assertPngs(dir, "throughput.png", "state-per-step.png");
    assertThat(Files.readAllLines(dir.resolve("repeated-koala.csv")).get(0)).startsWith("time,");
  }

  @Test
  void skewRebalancesByLoadOverTheSameTasks(@TempDir Path dir) throws Exception {
    // the doubled input (2,400/s) is more than the 4 tasks serve (2,000/s) under any map, so the
    // lag does not recover and the run lasts until its timeout after the rebalance request: 20 s
    // (not 60) leave the rebalance, about 6 s here, ample time to complete under load
    Config s =
        run(
            dir,
            "skew",
            tiny(
                    "--state-bytes=1204",
                    "--workload=taxi",
                    "--from=4",
                    "--to=4",
                    "--timeout-seconds=20")
                .toArray(String[]::new));
    double before = s.getDoubleList("sharesBefore").stream().max(Double::compare).orElseThrow();
    double after = s.getDoubleList("sharesAfter").stream().max(Double::compare).orElseThrow();
    assertThat(after).isLessThan(before);
    Config koala = s.getConfig("runs.koala");
    assertThat(koala.getIsNull("error")).as("%s", koala).isTrue();
    assertThat(koala.getInt("movedBuckets")).isPositive();
    // the map came from the runtime's counters: under it the busiest task's share of the loads
    // they measured falls, and at the end no task has the share the even map gave the busiest
    double measuredBefore = max(koala.getDoubleList("measuredSharesBefore"));
    double planned = max(koala.getDoubleList("plannedSharesAfter"));
    List<Double> measuredAfter = koala.getDoubleList("measuredSharesAfter");
    assertThat(koala.getDoubleList("measuredSharesBefore")).hasSize(4);
    assertThat(planned).as("%s", koala).isLessThan(measuredBefore);
    assertThat(measuredAfter.stream().mapToDouble(Double::doubleValue).sum())
        .isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-6));
    assertThat(max(measuredAfter)).as("%s", koala).isLessThan(before);
    assertPngs(dir, "lag.png");
  }

  private static double max(List<Double> values) {
    return values.stream().max(Double::compare).orElseThrow();
  }

  @Test
  void migrateReleasesEveryOldTask(@TempDir Path dir) throws Exception {
    Config s =
        run(
            dir,
            "migrate",
            tiny("--state-bytes=128", "--from=2", "--to=2", "--rate=300", "--piggyback=25")
                .toArray(String[]::new));
    Config run = s.getConfig("runs.\"N=25\"");
    assertThat(run.getIsNull("error")).as("%s", run).isTrue();
    assertThat(run.getInt("tasksReleased")).isEqualTo(2);
    assertThat(run.getLong("stateBytesTransferred")).isPositive();
  }

  @Test
  void multiOperatorRescalesBothKeyedStages(@TempDir Path dir) throws Exception {
    Config s =
        run(
            dir,
            "multi-operator",
            tiny("--state-bytes=128", "--protocols=koala", "--json").toArray(String[]::new));
    assertThat(s.getStringList("invalid")).isEmpty();
    assertPngs(dir, "throughput.png");
  }

  @Test
  void sweepAndUniformAndMicroReportEveryPoint(@TempDir Path dir) throws Exception {
    List<String> sweep = tiny("--state-bytes=128", "--keys-list=1000,2000");
    sweep.remove("--keys=2000");
    Config s = run(dir.resolve("sweep"), "sweep", sweep.toArray(String[]::new));
    List<? extends Config> points = s.getConfigList("points");
    assertThat(points).extracting(p -> p.getLong("keys")).containsExactly(1000L, 2000L);
    assertThat(points.get(1).getLong("stateBytesTotal"))
        .isEqualTo(2 * points.get(0).getLong("stateBytesTotal"));
    assertPngs(dir.resolve("sweep"), "recovery-vs-state.png", "transferred-vs-state.png");

    Config u =
        run(
            dir.resolve("uniform"),
            "uniform",
            tiny("--state-bytes=128", "--protocols=koala,stop-restart").toArray(String[]::new));
    assertThat(u.getObject("protocols").keySet())
        .containsExactlyInAnyOrder("koala", "stop-restart");
    assertThat(u.getInt("protocols.koala.runs")).isEqualTo(1);

    // --smoke: the JMH lookup benchmark in this JVM with iterations of 100 ms (not forked JVMs
    // with 1 s ones): the share below is a smoke check, the filter figures are exact either way
    Config m =
        run(dir.resolve("micro"), "micro", "--keys-list=10000,100000", "--iterations=1", "--smoke");
    List<? extends Config> memory = m.getConfigList("kltMemory");
    assertThat(memory).hasSize(2);
    for (Config row : memory) {
      double bitsPerKey = 8.0 * row.getLong("filterBytes") / row.getLong("keys");
      assertThat(bitsPerKey).as("%s", row).isBetween(9.0, 13.0);
      assertThat(row.getDouble("falsePositiveRate")).isLessThan(0.05);
    }
    assertThat(m.getDouble("lookupShareMovedTouched")).isBetween(0.0, 1.0);
  }
}
