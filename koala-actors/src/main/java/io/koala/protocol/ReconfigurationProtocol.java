package io.koala.protocol;

import java.util.Arrays;

/**
 * How a reconfiguration moves state (DESIGN §6, §7); one per runtime ({@code
 * koala.reconfiguration.protocol}), so every protocol runs the same epochs on the same runtime.
 */
public enum ReconfigurationProtocol {
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
  STOP_RESTART("stop-restart"),
  /**
   * Eager, after DRRS (DESIGN §7): the moved buckets move in steps of a few buckets (DRRS's
   * subscales), one epoch each; in a step the routing switches at once and each receiver pulls all
   * state of its new buckets from the old owner's state server at full speed in the background,
   * processing the records of keys whose state has arrived while the others wait (record
   * scheduling, bounded by the parking limit, beyond which it withholds credit).
   */
  EAGER("eager"),
  /**
   * Fluid, after Megaphone (DESIGN §7): the moved buckets move in steps of a few buckets (its
   * groups of bins), one epoch each, at the epoch's event-time point W*; the old owner pushes all
   * state of a step's buckets ahead of their hand-over, and their records wait until it is in.
   */
  FLUID("fluid");

  /** How a protocol moves the state of the buckets in one epoch. */
  public enum StateMove {
    /** Koala: nothing moves at hand-over; each key is fetched on its first access. */
    ON_ACCESS,
    /** The old owner pushes all state of a bucket, in chunks, ahead of its hand-over. */
    PUSH_AHEAD,
    /**
     * The new owner pulls all state of a bucket right after its hand-over; records of keys not yet
     * pulled wait.
     */
    PULL_AT_ONCE
  }

  private final String configName;

  ReconfigurationProtocol(String configName) {
    this.configName = configName;
  }

  /** Its name in configuration and on the command line. */
  public String configName() {
    return configName;
  }

  /** How the state of the buckets of an epoch moves. */
  public StateMove stateMove() {
    return switch (this) {
      case KOALA -> StateMove.ON_ACCESS;
      case STOP_RESTART, FLUID -> StateMove.PUSH_AHEAD;
      case EAGER -> StateMove.PULL_AT_ONCE;
    };
  }

  /**
   * Whether a reconfiguration moves its buckets a few at a time, one epoch per step ({@code
   * koala.reconfiguration.buckets-per-step}), rather than all in one epoch.
   */
  public boolean staged() {
    return this == EAGER || this == FLUID;
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
  public static ReconfigurationProtocol named(String name) {
    for (ReconfigurationProtocol p : values()) {
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
