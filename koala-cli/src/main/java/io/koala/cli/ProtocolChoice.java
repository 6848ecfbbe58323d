package io.koala.cli;

import io.koala.protocol.ReconfigurationProtocol;
import io.koala.runtime.KoalaConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * The protocols the command line compares (DESIGN §7): every {@link ReconfigurationProtocol} by its
 * configuration name, and {@code remote}, which is not a protocol but the remote state backend
 * ({@code koala.store.backend = remote}) under Koala's routing switch: state never moves.
 */
public final class ProtocolChoice {
  private ProtocolChoice() {}

  /** The name of the Remote baseline. */
  public static final String REMOTE = "remote";

  /**
   * The control run of a comparison, not a protocol: the target runs at its final parallelism from
   * the start at the capacity before in total, and at the rescale its capacity grows to the
   * capacity after with nothing to move (koala-bench's RescaleWorkload). Its recovery is the
   * measured ideal the protocols' are divided by.
   */
  public static final String CONTROL = "control";

  /** Every name {@link #configure} accepts, in the order comparisons run them. */
  public static List<String> names() {
    List<String> out = new ArrayList<>();
    for (ReconfigurationProtocol p : ReconfigurationProtocol.values()) {
      out.add(p.configName());
    }
    out.add(REMOTE);
    return out;
  }

  /**
   * {@code config} set up for {@code name}.
   *
   * @throws IllegalArgumentException listing the names allowed
   */
  public static KoalaConfig configure(KoalaConfig config, String name) {
    check(name);
    if (name.equals(CONTROL)) {
      return config; // it never reconfigures
    }
    if (name.equals(REMOTE)) {
      return config
          .with("koala.store.backend", "remote")
          .with("koala.reconfiguration.protocol", ReconfigurationProtocol.KOALA.configName());
    }
    return config.with("koala.reconfiguration.protocol", name);
  }

  /**
   * Checks that {@code name} is one of {@link #names}.
   *
   * @throws IllegalArgumentException listing the names allowed
   */
  public static void check(String name) {
    if (!names().contains(name) && !name.equals(CONTROL)) {
      throw new IllegalArgumentException(
          "no protocol \""
              + name
              + "\"; allowed: "
              + String.join(", ", names())
              + " (and "
              + CONTROL
              + ", the control run)");
    }
  }
}
