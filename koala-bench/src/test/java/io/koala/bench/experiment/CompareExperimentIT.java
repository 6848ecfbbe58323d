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
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code koala experiment compare} end to end at a tiny scale: every protocol runs the same
 * scenario, and so does the control run (the target at its final parallelism, its capacity growing
 * at the rescale); the baselines that move whole buckets move exactly the state of the moved
 * buckets, Koala only that of the keys touched after the warm-up, remote state and the control
 * nothing; the CSVs, the charts and the summary line are there and agree with the per-run lines.
 */
class CompareExperimentIT {

  @Test
  void everyProtocolRunsTheSameScenario(@TempDir Path dir) throws Exception {
    StringWriter out = new StringWriter();
    CommandLine cli = KoalaBench.commandLine().setOut(new PrintWriter(out));
    int code =
        cli.execute(
            "experiment",
            "compare",
            "--keys=2000",
            "--active-keys=500",
            "--state-bytes=128",
            "--task-capacity=500",
            "--rate=1200",
            "--steady-seconds=3",
            "--doubled-seconds=4",
            "--tail-seconds=1",
            "--timeout-seconds=60",
            "--out=" + dir,
            "--rotation=0",
            "--json");
    assertThat(code).as("exit code; stdout: %s", out).isZero();
    List<String> lines = out.toString().strip().lines().toList();
    List<String> protocols = List.of("koala", "stop-restart", "eager", "fluid", "remote");
    List<String> runs = new java.util.ArrayList<>(protocols);
    runs.add("control");
    assertThat(lines).hasSize(runs.size() + 1);
    for (int i = 0; i < runs.size(); i++) {
      Config j = ConfigFactory.parseString(lines.get(i));
      String p = runs.get(i);
      assertThat(j.getString("protocol")).isEqualTo(p);
      assertThat(j.getIsNull("error")).as(p).isTrue();
      assertThat(j.getDouble("capacityAfter")).isEqualTo(4_000);
      long moved = j.getLong("movedBucketsStateBytes");
      long transferred = j.getLong("stateBytesTransferred");
      if (p.equals("koala")) {
        assertThat(transferred).as(p).isPositive().isLessThan(moved);
      } else if (p.equals("remote")) {
        assertThat(transferred).as("the state stays at the services").isZero();
      } else if (p.equals("control")) {
        assertThat(transferred).as("nothing moves in the control").isZero();
        assertThat(j.getInt("to")).isEqualTo(8);
      } else {
        // every key was written in the warm-up: a whole-bucket move takes every key of them
        assertThat(transferred).as(p).isEqualTo(moved);
      }
      List<String> rows = Files.readAllLines(dir.resolve("compare-" + p + ".csv"));
      assertThat(rows.get(0)).startsWith("time,phase,");
      assertThat(rows).hasSizeGreaterThan(10);
    }
    for (String chart :
        List.of("throughput.png", "lag.png", "p99-batch-latency.png", "state-transferred.png")) {
      byte[] png = Files.readAllBytes(dir.resolve(chart));
      assertThat(new String(png, 1, 3, StandardCharsets.US_ASCII)).as(chart).isEqualTo("PNG");
    }
    Config summary = ConfigFactory.parseString(lines.get(runs.size()));
    assertThat(summary.getBoolean("summary")).isTrue();
    assertThat(summary.getString("experiment")).isEqualTo("compare");
    assertThat(summary.getObject("protocols").keySet())
        .containsExactlyInAnyOrderElementsOf(protocols);
    assertThat(summary.getStringList("order")).isEqualTo(runs);
    assertThat(summary.getStringList("invalid")).isEmpty();
    Config koala = ConfigFactory.parseString(lines.get(0));
    Config stopRestart = ConfigFactory.parseString(lines.get(1));
    Config control = ConfigFactory.parseString(lines.get(runs.size() - 1));
    assertThat(summary.getInt("protocols.koala.runs")).isEqualTo(1);
    assertThat(summary.getDouble("protocols.koala.recoveryMsMedian"))
        .isEqualTo(koala.getDouble("endToEndRecoveryMs"));
    assertThat(summary.getDouble("protocols.koala.controlRecoveryMsMedian"))
        .isEqualTo(control.getDouble("endToEndRecoveryMs"));
    assertThat(summary.getDouble("protocols.koala.recoveryOverControlMedian"))
        .isCloseTo(
            koala.getDouble("endToEndRecoveryMs") / control.getDouble("endToEndRecoveryMs"),
            org.assertj.core.api.Assertions.within(0.001));
    assertThat(summary.getDouble("protocols.stop-restart.stateBytesTransferredMedian"))
        .isEqualTo(stopRestart.getLong("stateBytesTransferred"))
        .isGreaterThan(summary.getDouble("protocols.koala.stateBytesTransferredMedian"));
    assertThat(summary.getDouble("protocols.stop-restart.stateOverLowerBoundMedian"))
        .isGreaterThan(1);
  }
}
