package io.koala.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * {@code ./koala} has the operator's commands and the benchmarks' ones, and the demo, whose actor
 * systems all live in this process, does not warn about them going away at its end (issue 48).
 */
class KoalaBenchTest {
  private static final Logger ASSOCIATION =
      (Logger) LoggerFactory.getLogger("org.apache.pekko.remote.artery.Association");

  /** As logback.xml configures it: other tests in this JVM may have run a command before. */
  @BeforeEach
  @AfterEach
  void restore() {
    ASSOCIATION.setLevel(null);
  }

  @Test
  void hasTheOperatorsCommandsAndTheBenchmarks() {
    assertThat(KoalaBench.commandLine().getSubcommands().keySet())
        .contains("node", "admin", "verify", "bench", "demo", "experiment", "help");
  }

  @Test
  void theDemoDoesNotWarnAboutItsOwnSystemsGoingAway() {
    KoalaBench.commandLine().setOut(new PrintWriter(new StringWriter())).execute("demo", "--help");
    assertThat(ASSOCIATION.getLevel()).isEqualTo(Level.ERROR);
  }
}
