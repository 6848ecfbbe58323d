package io.koala.testkit.verify;

import io.koala.dataflow.Dataflow;
import java.util.List;
import java.util.Map;

/**
 * A dataflow whose outputs a reconfiguration must not change: the same input gives the same outputs
 * whatever the operators' parallelism and whatever reconfigurations happen while it runs. Every
 * workload's outputs are compared as multisets; an order-sensitive workload puts what its result
 * depends on (e.g. a per-key sequence number) into each output, so a reordering shows up as a
 * different value.
 */
public interface Workload {

  String name();

  /** The keyed operators that may be reconfigured. */
  List<String> keyedOperators();

  /**
   * The stages without keyed input, sources among them, that may be rescaled or migrated (they own
   * no buckets, so they are never rebalanced); each starts with 2 tasks like the keyed operators.
   */
  default List<String> statelessOperators() {
    return List.of();
  }

  /**
   * A value state that only grows (a {@code Long} count), read by a simulated service while the
   * workload runs and moves; null when the workload has none.
   */
  default ReadState readState() {
    return null;
  }

  /** Value state {@code state} of keyed operator {@code operator}, and the keys it has. */
  record ReadState(String operator, String state, List<?> keys) {
    public ReadState {
      keys = List.copyOf(keys);
    }
  }

  /** The collecting sinks whose outputs are compared. */
  List<String> sinks();

  /**
   * The dataflow over {@code records} input records per source arriving at {@code rate} per second
   * (all at once if 0), with {@code parallelism} for each operator that may be reconfigured (others
   * run with 2, or as the workload says).
   */
  Dataflow dataflow(Map<String, Integer> parallelism, long records, double rate);
}
