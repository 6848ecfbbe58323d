package io.koala.core.reconfig;

import java.util.Arrays;

/**
 * How a reconfiguration moves state (DESIGN §6, §7); one per runtime ({@code
 * koala.reconfiguration.protocol}), so every protocol runs the same epochs on the same runtime.
 */
public enum Protocol {
  /**
   * Koala: ownership moves in milliseconds with a small lookup table, state follows each key on its
   * first access, retired tasks are drained in the background.
   */
  KOALA("koala"),
  /**
   * Stop-and-restart (DESIGN §7, optimised: only the moved buckets' state moves): the sources
   * pause, every record in flight is processed, the old owners ship all state of the moved buckets
   * by range scans in chunks ahead of their hand-over, the routing switches, and the sources
   * resume.
   */
  STOP_RESTART("stop-restart");

  private final String configName;

  Protocol(String configName) {
    this.configName = configName;
  }

  /** Its name in configuration and on the command line. */
  public String configName() {
    return configName;
  }

  /** Whether the old owners push all state of their moved buckets with the hand-over. */
  public boolean movesAllState() {
    return this == STOP_RESTART;
  }

  /** Whether the sources pause for the whole reconfiguration. */
  public boolean pausesSources() {
    return this == STOP_RESTART;
  }

  /**
   * The protocol named {@code name}.
   *
   * @throws IllegalArgumentException listing the names allowed
   */
  public static Protocol named(String name) {
    for (Protocol p : values()) {
      if (p.configName.equals(name)) {
        return p;
      }
    }
    throw new IllegalArgumentException(
        "no protocol \""
            + name
            + "\"; allowed: "
            + Arrays.stream(values()).map(p -> "\"" + p.configName + "\"").toList());
  }
}
