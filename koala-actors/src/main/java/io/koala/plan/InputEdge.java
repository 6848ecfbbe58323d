package io.koala.plan;

import io.koala.function.KeySelector;
import java.util.Objects;

/**
 * An input of an operator: records from {@code from} (its main output, or the side output named
 * {@code sideOutput}), partitioned as {@code partitioning}; a keyed edge carries the key selector.
 * {@code logicalInput} is the input the operator sees them on: 0, or 1 for the second input of a
 * two-input operator (a union gives several edges the same logical input).
 */
public record InputEdge(
    OperatorId from,
    Partitioning partitioning,
    KeySelector<?, ?> keySelector,
    int logicalInput,
    String sideOutput) {

  /**
   * The side output on which a vertex sends its dead letters ({@link
   * io.koala.function.RecordErrorPolicy#deadLetter}): an edge from each vertex's tail, outside the
   * dead letters' own operators, into each operator that reads {@code
   * DataflowBuilder.deadLetters()}.
   */
  public static final String DEAD_LETTERS = "koala.dead-letters";

  public InputEdge {
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(partitioning, "partitioning");
    if ((partitioning == Partitioning.KEYED) != (keySelector != null)) {
      throw new IllegalArgumentException("a key selector goes with exactly the KEYED partitioning");
    }
    if (logicalInput < 0 || logicalInput > 1) {
      throw new IllegalArgumentException("logical input must be 0 or 1, got " + logicalInput);
    }
  }

  /** An edge from the main output of {@code from} into input 0. */
  public InputEdge(OperatorId from, Partitioning partitioning, KeySelector<?, ?> keySelector) {
    this(from, partitioning, keySelector, 0, null);
  }

  /** Whether the edge reads the main output (not a side output). */
  public boolean isMain() {
    return sideOutput == null;
  }
}
