package io.koala.plan;

import java.util.Objects;

/**
 * A task: one data-parallel instance of an operator chain, named by the chain's head operator and
 * an index. Logical and never reused for another task.
 */
public record TaskId(OperatorId operator, int index) {
  public TaskId {
    Objects.requireNonNull(operator, "operator");
    if (index < 0) {
      throw new IllegalArgumentException("task index must not be negative: " + index);
    }
  }

  @Override
  public String toString() {
    return operator.name() + "#" + index;
  }
}
