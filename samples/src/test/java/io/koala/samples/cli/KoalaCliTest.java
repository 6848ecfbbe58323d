package io.koala.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A command whose actor systems all live in this process does not warn about its own systems going
 * away at the end of a run; a node's command still does (issue 48: {@code ./koala demo} ended with
 * Artery's "irrecoverably failed" warnings about the workers it had just stopped).
 */
class KoalaCliTest {
  private static final Logger ASSOCIATION =
      (Logger) LoggerFactory.getLogger("org.apache.pekko.remote.artery.Association");

  @AfterEach
  void restore() {
    ASSOCIATION.setLevel(null);
  }

  private static void run(String... args) {
    KoalaCli.commandLine().setOut(new PrintWriter(new StringWriter())).execute(args);
  }

  @Test
  void theDemoDoesNotWarnAboutItsOwnSystemsGoingAway() {
    run("demo", "--help");
    assertThat(ASSOCIATION.getLevel()).isEqualTo(Level.ERROR);
  }

  @Test
  void aNodeStillWarnsAboutPeersThatWentAway() {
    run("node", "--help");
    assertThat(ASSOCIATION.getLevel()).as("as logback.xml configures it").isNull();
  }
}
