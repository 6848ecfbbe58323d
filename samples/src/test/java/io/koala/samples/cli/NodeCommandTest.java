package io.koala.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code koala node} refuses bad input with one line naming it, before starting anything. */
class NodeCommandTest {

  private static String run(String... args) {
    StringWriter err = new StringWriter();
    CommandLine cli = KoalaCli.commandLine();
    cli.setErr(new PrintWriter(err, true));
    int code = cli.execute(args);
    assertThat(code).as("exit code").isEqualTo(2);
    return err.toString();
  }

  @Test
  void aMissingFileIsNamed(@TempDir Path dir) {
    Path missing = dir.resolve("node.conf");
    assertThat(run("node", "--config", missing.toString()))
        .isEqualTo(
            "koala: --config " + missing + ": no such readable file" + System.lineSeparator());
  }

  @Test
  void aBadSettingIsNamedWithoutAStackTrace(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("node.conf"), "koala.node.port = 99999\n");
    assertThat(run("node", "--config", file.toString()))
        .isEqualTo("koala: koala.node.port = 99999 is outside 0..65535" + System.lineSeparator());
  }
}
