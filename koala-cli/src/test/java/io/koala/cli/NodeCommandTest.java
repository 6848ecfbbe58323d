package io.koala.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.Config;
import io.koala.cluster.DataflowProvider;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code koala node} refuses bad input with one line naming it, before starting anything. */
class NodeCommandTest {
  private static final String NL = System.lineSeparator();

  private static String run(String... args) {
    StringWriter err = new StringWriter();
    var cli = KoalaCli.commandLine();
    cli.setErr(new PrintWriter(err, true));
    int code = cli.execute(args);
    assertThat(code).as("exit code").isEqualTo(2);
    return err.toString();
  }

  @Test
  void aMissingFileIsNamed(@TempDir Path dir) {
    Path missing = dir.resolve("node.conf");
    assertThat(run("node", "--config", missing.toString()))
        .isEqualTo("koala: --config " + missing + ": no such readable file" + NL);
  }

  @Test
  void aBadSettingIsNamedWithoutAStackTrace(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("node.conf"), "koala.node.port = 99999\n");
    assertThat(run("node", "--config", file.toString()))
        .isEqualTo("koala: koala.node.port = 99999 is outside 0..65535" + NL);
  }

  @Test
  void aRestoreStartsExactlyOneSubmittedJob(@TempDir Path dir) throws Exception {
    Path conf = Files.writeString(dir.resolve("node.conf"), "");
    Path sp = dir.resolve("sp");
    assertThat(run("node", "--config", conf.toString(), "--restore-from", sp.toString()))
        .isEqualTo(
            "koala: --restore-from "
                + sp
                + " starts one job: give exactly one --submit NAME (got 0)"
                + NL);
    assertThat(run("node", "--config", conf.toString(), "--allow-dropping-state", "a,b"))
        .isEqualTo("koala: --allow-dropping-state [a, b] goes with --restore-from DIR" + NL);
  }

  // --dataflows: the providers are this test's classes, listed by a jar that holds only the
  // services file (the jar's loader finds them through its parent)

  @Test
  void aMissingJarAndAJarWithoutProviderAreNamed(@TempDir Path dir) throws Exception {
    Path conf = Files.writeString(dir.resolve("node.conf"), "");
    Path missing = dir.resolve("missing.jar");
    assertThat(run("node", "--config", conf.toString(), "--dataflows", missing.toString()))
        .isEqualTo("koala: --dataflows " + missing + ": no such readable file" + NL);
    Path empty = jar(dir, "empty.jar", "# no provider here");
    assertThat(run("node", "--config", conf.toString(), "--dataflows", empty + "," + missing))
        .isEqualTo(
            "koala: --dataflows "
                + empty
                + ": lists no dataflow provider (a "
                + UserDataflows.SERVICES
                + " entry naming a class that implements it)"
                + NL);
  }

  @Test
  void aProviderThatThrowsIsNamed(@TempDir Path dir) throws Exception {
    Path conf = Files.writeString(dir.resolve("node.conf"), "");
    Path jar = jar(dir, "bad.jar", Throwing.class.getName());
    assertThat(run("node", "--config", conf.toString(), "--dataflows", jar.toString()))
        .isEqualTo(
            "koala: --dataflows: provider "
                + Throwing.class.getName()
                + " failed: java.lang.IllegalStateException: orders.customers is missing"
                + NL);
  }

  @Test
  void twoDataflowsOfOneNameAndAnUnknownSubmitAreNamed(@TempDir Path dir) throws Exception {
    Path conf = Files.writeString(dir.resolve("node.conf"), "");
    Path one = jar(dir, "one.jar", One.class.getName());
    Path again = jar(dir, "again.jar", AlsoOne.class.getName());
    String twice =
        run(
            "node",
            "--config",
            conf.toString(),
            "--dataflows",
            one.toString(),
            "--dataflows",
            again.toString());
    assertThat(twice)
        .isEqualTo(
            "koala: --dataflows: two dataflows are named \"one\": one from provider "
                + One.class.getName()
                + ", one from provider "
                + AlsoOne.class.getName()
                + " (a job's id is its dataflow's name)"
                + NL);
    assertThat(
            run(
                "node",
                "--config",
                conf.toString(),
                "--dataflows",
                one.toString(),
                "--submit",
                "one",
                "--submit",
                "two"))
        .isEqualTo("koala: --submit two: no such dataflow; this node defines [one]" + NL);
  }

  /** A jar with a services file of {@code lines}. */
  private static Path jar(Path dir, String name, String... lines) throws IOException {
    Path jar = dir.resolve(name);
    try (OutputStream file = Files.newOutputStream(jar);
        JarOutputStream out = new JarOutputStream(file)) {
      out.putNextEntry(new JarEntry(UserDataflows.SERVICES));
      out.write((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
      out.closeEntry();
    }
    return jar;
  }

  private static Dataflow dataflow(String name) {
    DataflowBuilder b = Dataflow.builder(name);
    b.source(SourceSpec.generator("n", (i, seed) -> i).count(10)).sink(SinkSpec.discarding("out"));
    return b.build();
  }

  /** Fails, as a provider missing a setting would. */
  public static final class Throwing implements DataflowProvider {
    @Override
    public List<Dataflow> dataflows(Config nodeConfig) {
      throw new IllegalStateException("orders.customers is missing");
    }
  }

  /** Gives dataflow "one". */
  public static final class One implements DataflowProvider {
    @Override
    public List<Dataflow> dataflows(Config nodeConfig) {
      return List.of(dataflow("one"));
    }
  }

  /** Gives dataflow "one" too. */
  public static final class AlsoOne implements DataflowProvider {
    @Override
    public List<Dataflow> dataflows(Config nodeConfig) {
      return List.of(dataflow("one"));
    }
  }
}
