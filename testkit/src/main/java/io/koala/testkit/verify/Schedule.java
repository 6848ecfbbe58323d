package io.koala.testkit.verify;

import io.koala.coordinator.Change;
import io.koala.routing.PartitionPolicy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;

/**
 * A seeded random sequence of reconfigurations of a workload's keyed operators and stateless stages
 * — scale-out, scale-in, rebalance (keyed operators only) and migration, repeated, and some
 * requested together with the one before (on another operator) — with the parallelism each operator
 * ends at.
 */
public final class Schedule {
  /** The largest parallelism a schedule scales to. */
  public static final int MAX_PARALLELISM = 6;

  /**
   * One request: made once the run is {@code at} of the way through its input (0..1), and, if
   * {@code withPrevious}, without waiting for the previous request to complete.
   */
  public record Step(double at, Change change, boolean withPrevious) {
    @Override
    public String toString() {
      return String.format("%.2f%s %s", at, withPrevious ? "+" : "", change);
    }
  }

  private final List<Step> steps;
  private final Map<String, Integer> finalParallelism;

  private Schedule(List<Step> steps, Map<String, Integer> finalParallelism) {
    this.steps = List.copyOf(steps);
    this.finalParallelism = Map.copyOf(finalParallelism);
  }

  public List<Step> steps() {
    return steps;
  }

  /** Each reconfigured operator's parallelism after the last step. */
  public Map<String, Integer> finalParallelism() {
    return finalParallelism;
  }

  /**
   * A random schedule for {@code w}'s keyed operators and stateless stages, each starting with
   * tasks 0 and 1; {@code workers} bounds migration targets; the bucket count bounds explicit
   * rebalance maps.
   */
  public static Schedule random(Workload w, long seed, int workers, int buckets) {
    Random rnd = new Random(seed);
    Map<String, TreeSet<Integer>> live = new HashMap<>();
    Map<String, Integer> highest = new HashMap<>();
    List<String> operators = new ArrayList<>(w.keyedOperators());
    operators.addAll(w.statelessOperators());
    for (String op : operators) {
      live.put(op, new TreeSet<>(List.of(0, 1)));
      highest.put(op, 1);
    }
    int n = 1 + rnd.nextInt(4);
    double[] at = new double[n];
    for (int i = 0; i < n; i++) {
      at[i] = 0.1 + 0.6 * rnd.nextDouble();
    }
    Arrays.sort(at);
    List<Step> steps = new ArrayList<>();
    String previous = null;
    for (int i = 0; i < n; i++) {
      String op = operators.get(rnd.nextInt(operators.size()));
      TreeSet<Integer> tasks = live.get(op);
      int p = tasks.size();
      Change change;
      int kind = rnd.nextInt(4);
      if (kind == 0 && p < MAX_PARALLELISM) {
        int to = p + 1 + rnd.nextInt(Math.min(3, MAX_PARALLELISM - p));
        change = new Change.Rescale(op, to, PartitionPolicy.even());
        for (int k = p; k < to; k++) {
          int next = highest.merge(op, 1, Integer::sum);
          tasks.add(next);
        }
      } else if (kind == 1 && p > 1) {
        int to = 1 + rnd.nextInt(p - 1);
        change = new Change.Rescale(op, to, PartitionPolicy.even());
        while (tasks.size() > to) {
          tasks.pollLast(); // a scale-in removes the highest indices
        }
      } else if (kind == 2 && w.keyedOperators().contains(op)) {
        PartitionPolicy policy;
        if (rnd.nextBoolean()) {
          policy = PartitionPolicy.consistentHashing();
        } else {
          Integer[] choices = tasks.toArray(new Integer[0]);
          int[] owners = new int[buckets];
          for (int b = 0; b < buckets; b++) {
            owners[b] = choices[rnd.nextInt(choices.length)];
          }
          policy = PartitionPolicy.explicit(owners);
        }
        change = new Change.Rebalance(op, policy);
      } else {
        Integer[] choices = tasks.toArray(new Integer[0]);
        int task = choices[rnd.nextInt(choices.length)];
        change = new Change.Migrate(op, task, rnd.nextInt(workers));
        tasks.remove(task);
        tasks.add(highest.merge(op, 1, Integer::sum));
      }
      // only requests on another operator go together: queued changes of one operator coalesce
      boolean together = previous != null && !previous.equals(op) && rnd.nextInt(3) == 0;
      steps.add(new Step(together ? steps.get(i - 1).at() : at[i], change, together));
      previous = op;
    }
    Map<String, Integer> fin = new HashMap<>();
    live.forEach((op, t) -> fin.put(op, t.size()));
    return new Schedule(steps, fin);
  }

  @Override
  public String toString() {
    return steps.toString();
  }
}
