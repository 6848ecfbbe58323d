package io.koala.plan;

import io.koala.dataflow.KeySelector;
import java.util.Objects;

/**
 * An input of an operator: records from {@code from}, partitioned as {@code partitioning}; a keyed
 * edge carries the key selector.
 */
public record InputEdge(OperatorId from, Partitioning partitioning, KeySelector<?, ?> keySelector) {
  public InputEdge {
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(partitioning, "partitioning");
    if ((partitioning == Partitioning.KEYED) != (keySelector != null)) {
      throw new IllegalArgumentException("a key selector goes with exactly the KEYED partitioning");
    }
  }
}
