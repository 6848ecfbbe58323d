package io.koala.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

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
 * {@code koala demo}, the README's main job, end to end: it exits 0, prints a row per protocol, and
 * writes a report that embeds its charts. On the hidden smoke scenario (the quick one's shape on
 * 2,000 keys and a few seconds a phase: about 40 s rather than the quick run's 90): what is
 * asserted does not depend on the scenario's size.
 */
class DemoCommandIT {

  @Test
  void theQuickDemoWritesItsReport(@TempDir Path dir) throws Exception {
    StringWriter out = new StringWriter();
    CommandLine cli = KoalaBench.commandLine().setOut(new PrintWriter(out));
    int code = cli.execute("demo", "--smoke", "--out=" + dir);
    assertThat(code).as("exit code; stdout: %s", out).isZero();
    List<String> lines = out.toString().lines().toList();
    assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("koala "));
    assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("stop-restart "));
    Path index = dir.resolve("index.html").toAbsolutePath();
    assertThat(lines).anySatisfy(l -> assertThat(l).endsWith(index.toString()));
    String html = Files.readString(index, StandardCharsets.UTF_8);
    int charts = html.split("data:image/png;base64,", -1).length - 1;
    assertThat(charts).as("charts embedded").isGreaterThanOrEqualTo(3);
    assertThat(html).contains("<td>koala</td>", "<td>stop-restart</td>");
    assertThat(Files.readAllLines(dir.resolve("demo-koala.csv")).get(0)).startsWith("time,");
  }
}
