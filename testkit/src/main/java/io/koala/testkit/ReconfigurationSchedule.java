package io.koala.testkit;

import io.koala.coordinator.Change;
import io.koala.routing.PartitionPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Reconfigurations to make while a test input is fed, each after a given number of input records
 * (counted over all sources, in input order), for {@link KoalaAssertions}. Immutable: every method
 * returns a longer copy; steps must be added in non-decreasing order of their positions.
 *
 * <pre>{@code
 * ReconfigurationSchedule schedule = ReconfigurationSchedule.create()
 *     .rescale(100, "count", 4)
 *     .rebalance(250, "count", PartitionPolicy.consistentHashing())
 *     .migrate(300, "count", 0)
 *     .rescale(400, "count", 1);
 * }</pre>
 */
public final class ReconfigurationSchedule {
  /** One request, made once {@code afterRecords} input records have been fed. */
  record Step(long afterRecords, Change change) {
    @Override
    public String toString() {
      return "after " + afterRecords + ": " + change;
    }
  }

  private final List<Step> steps;

  private ReconfigurationSchedule(List<Step> steps) {
    this.steps = List.copyOf(steps);
  }

  /** An empty schedule. */
  public static ReconfigurationSchedule create() {
    return new ReconfigurationSchedule(List.of());
  }

  /** Adds a rescale of {@code operator} to {@code parallelism} tasks (even partitioning). */
  public ReconfigurationSchedule rescale(long afterRecords, String operator, int parallelism) {
    return with(afterRecords, new Change.Rescale(operator, parallelism, PartitionPolicy.even()));
  }

  /** Adds a rebalance of {@code operator} by {@code policy}. */
  public ReconfigurationSchedule rebalance(
      long afterRecords, String operator, PartitionPolicy policy) {
    return with(afterRecords, new Change.Rebalance(operator, Objects.requireNonNull(policy)));
  }

  /** Adds the replacement of task {@code task} of {@code operator} by a new task. */
  public ReconfigurationSchedule migrate(long afterRecords, String operator, int task) {
    return with(afterRecords, new Change.Migrate(operator, task, 0));
  }

  List<Step> steps() {
    return steps;
  }

  private ReconfigurationSchedule with(long afterRecords, Change change) {
    if (afterRecords < 0) {
      throw new IllegalArgumentException("a position must not be negative: " + afterRecords);
    }
    if (!steps.isEmpty() && afterRecords < steps.get(steps.size() - 1).afterRecords()) {
      throw new IllegalArgumentException(
          "steps go in order: " + afterRecords + " comes before " + steps.get(steps.size() - 1));
    }
    List<Step> next = new ArrayList<>(steps);
    Objects.requireNonNull(change.operator(), "operator");
    next.add(new Step(afterRecords, change));
    return new ReconfigurationSchedule(next);
  }

  @Override
  public String toString() {
    return steps.toString();
  }
}
