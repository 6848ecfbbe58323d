package io.koala.plan;

/** How records travel from the tasks of one operator to the tasks of the next. */
public enum Partitioning {
  /** Task i sends to task i of the next operator (same parallelism). */
  FORWARD,
  /** Records are spread round-robin over the next operator's tasks. */
  REBALANCE,
  /** Records go to the task owning their key's bucket. */
  KEYED
}
