package io.koala.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** {@code koala verify} runs every workload under reconfiguration and reports it in JSON. */
class VerifyCommandIT {

  private static int run(StringWriter out, StringWriter err, String... args) {
    return KoalaCli.commandLine()
        .setOut(new PrintWriter(out))
        .setErr(new PrintWriter(err))
        .execute(args);
  }

  @Test
  void anUnknownWorkloadIsRefusedNamingTheChoices() {
    StringWriter err = new StringWriter();
    int code = run(new StringWriter(), err, "verify", "--workload=nope");
    assertThat(code).isEqualTo(2);
    assertThat(err.toString()).contains("--workload").contains("keyed-count");
  }

  @Test
  void anUnknownEngineIsRefusedNamingTheChoices() {
    StringWriter err = new StringWriter();
    int code = run(new StringWriter(), err, "verify", "--engine=nope");
    assertThat(code).isEqualTo(2);
    assertThat(err.toString()).contains("--engine").contains("runtime").contains("simulator");
  }

  @Test
  void faultsInTheSimulatorReportTheEngineAndTheCrashes() {
    Config j =
        lastJsonLine("--seeds=1", "--workload=keyed-count", "--faults", "--engine=simulator");
    assertThat(j.getString("engine")).isEqualTo("simulator");
    assertThat(j.getBoolean("faults")).isTrue();
    assertThat(j.getInt("crashes")).isPositive();
    assertThat(j.getInt("recoveries")).isEqualTo(j.getInt("crashes"));
    assertThat(j.getInt("mismatches")).isZero();
  }

  @Test
  void randomSeedsAreDrawnAndRunInTheSimulator() {
    Config j = lastJsonLine("--random-seeds=2", "--workload=keyed-count", "--engine=simulator");
    assertThat(j.getBoolean("randomSeeds")).isTrue();
    assertThat(j.getInt("seeds")).isEqualTo(2);
    assertThat(j.getInt("runs")).isEqualTo(2);
    assertThat(j.getLong("firstSeed")).as("a drawn seed").isNotEqualTo(1);
    assertThat(j.getInt("mismatches")).isZero();
  }

  @Test
  void randomSeedsAreRefusedWithFixedOnes() {
    StringWriter err = new StringWriter();
    int code = run(new StringWriter(), err, "verify", "--random-seeds=3", "--first-seed=5");
    assertThat(code).isEqualTo(2);
    assertThat(err.toString()).contains("--random-seeds draws its seeds");
  }

  /** Runs {@code koala verify} with {@code args} and --json; its summary line. */
  private static Config lastJsonLine(String... args) {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    java.io.PrintStream previous = System.out;
    System.setOut(new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      java.util.List<String> all = new java.util.ArrayList<>();
      all.add("verify");
      all.addAll(java.util.List.of(args));
      all.add("--json");
      run(new StringWriter(), new StringWriter(), all.toArray(new String[0]));
    } finally {
      System.setOut(previous);
    }
    String[] lines = bytes.toString(java.nio.charset.StandardCharsets.UTF_8).strip().split("\n");
    return ConfigFactory.parseString(lines[lines.length - 1]);
  }

  @Test
  void theSummaryIsOneJsonObject() {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    java.io.PrintStream previous = System.out;
    System.setOut(new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8));
    int code;
    try {
      code =
          run(
              new StringWriter(),
              new StringWriter(),
              "verify",
              "--seeds=1",
              "--workload=window",
              "--workload=last10-avg",
              "--json");
    } finally {
      System.setOut(previous);
    }
    String[] lines = bytes.toString(java.nio.charset.StandardCharsets.UTF_8).strip().split("\n");
    Config j = ConfigFactory.parseString(lines[lines.length - 1]);
    assertThat(code).isZero();
    assertThat(j.getInt("seeds")).isEqualTo(1);
    assertThat(j.getInt("runs")).isEqualTo(2);
    assertThat(j.getInt("reconfigurations")).isPositive();
    assertThat(j.getInt("requests")).isGreaterThanOrEqualTo(j.getInt("reconfigurations"));
    assertThat(j.getInt("lateRequests") * 10).isLessThanOrEqualTo(j.getInt("requests"));
    assertThat(j.getInt("mismatches")).isZero();
    assertThat(j.getInt("invariantViolations")).isZero();
    assertThat(j.getList("failingSeeds")).isEmpty();
  }
}
