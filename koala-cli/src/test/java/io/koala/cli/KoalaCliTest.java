package io.koala.cli;

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
 * A command whose actor systems all live in this process does not warn about its own systems going
 * away at the end of a run (verify here, the demo in koala-bench's KoalaBenchTest); a node's
 * command still does (issue 48: {@code ./koala demo} ended with Artery's "irrecoverably failed"
 * warnings about the workers it had just stopped).
 */
class KoalaCliTest {
  private static final Logger ASSOCIATION =
      (Logger) LoggerFactory.getLogger("org.apache.pekko.remote.artery.Association");

  /** As logback.xml configures it: other tests in this JVM may have run a command before. */
  @BeforeEach
  @AfterEach
  void restore() {
    ASSOCIATION.setLevel(null);
  }

  private static void run(String... args) {
    KoalaCli.commandLine().setOut(new PrintWriter(new StringWriter())).execute(args);
  }

  @Test
  void verifyDoesNotWarnAboutItsOwnSystemsGoingAway() {
    run("verify", "--help");
    assertThat(ASSOCIATION.getLevel()).isEqualTo(Level.ERROR);
  }

  @Test
  void aNodeStillWarnsAboutPeersThatWentAway() {
    run("node", "--help");
    assertThat(ASSOCIATION.getLevel()).as("as logback.xml configures it").isNull();
  }
}
