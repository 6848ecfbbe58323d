package io.koala.plan;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The stable, unique name of an operator within a dataflow. It names the operator's state on disk
 * and in checkpoints, so it must not change between runs of the same dataflow.
 */
public record OperatorId(String name) {
  private static final Pattern VALID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

  public OperatorId {
    Objects.requireNonNull(name, "operator name");
  }

  /** Whether {@code name} is a legal operator name: letters, digits, '.', '_', '-'; ≤ 64 chars. */
  public static boolean isValid(String name) {
    return name != null && VALID.matcher(name).matches();
  }

  @Override
  public String toString() {
    return name;
  }
}
