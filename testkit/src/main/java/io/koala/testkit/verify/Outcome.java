package io.koala.testkit.verify;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How one verification run went: the outputs that differ from the reference run, and the invariants
 * that did not hold. {@code lateRequests} counts requests the runtime refused because the job's
 * bounded input had been read by then (the run was too short for its schedule on this machine): not
 * a failure, but coverage lost. {@code crashes} describes each crash injected (which task, when,
 * during what), each followed by a rollback counted in {@code recoveries}.
 */
public record Outcome(
    String workload,
    long seed,
    Schedule schedule,
    List<String> mismatches,
    List<String> violations,
    int reconfigurations,
    int faultsApplied,
    int lateRequests,
    List<String> crashes,
    int recoveries) {

  public Outcome {
    mismatches = List.copyOf(mismatches);
    violations = List.copyOf(violations);
    crashes = List.copyOf(crashes);
  }

  public boolean ok() {
    return mismatches.isEmpty() && violations.isEmpty();
  }

  @Override
  public String toString() {
    return workload
        + " seed "
        + seed
        + " "
        + schedule
        + (crashes.isEmpty() ? "" : " crashes " + crashes)
        + (ok() ? ": ok" : ": mismatches " + mismatches + ", violations " + violations);
  }

  /**
   * The differences between two outputs as multisets, at most {@code limit} of them, each as
   * "value: got n, expected m".
   */
  public static List<String> compare(
      String sink, List<Object> got, List<Object> expected, int limit) {
    return compare(sink, got, expected, List.of(), limit);
  }

  /**
   * {@link #compare(String, List, List, int)}, where each value of {@code repeatable} may have been
   * published once more (after a fallback past a corrupt checkpoint, what was published since the
   * checkpoint restored comes again).
   */
  public static List<String> compare(
      String sink, List<Object> got, List<Object> expected, List<Object> repeatable, int limit) {
    Map<Object, Integer> g = counts(got);
    Map<Object, Integer> e = counts(expected);
    Map<Object, Integer> r = counts(repeatable);
    List<String> diffs = new ArrayList<>();
    for (Map.Entry<Object, Integer> x : e.entrySet()) {
      int have = g.getOrDefault(x.getKey(), 0);
      int most = x.getValue() + r.getOrDefault(x.getKey(), 0);
      if ((have < x.getValue() || have > most) && diffs.size() < limit) {
        diffs.add(
            sink
                + ": "
                + x.getKey()
                + " got "
                + have
                + ", expected "
                + (most == x.getValue() ? x.getValue() : x.getValue() + " to " + most));
      }
    }
    for (Map.Entry<Object, Integer> x : g.entrySet()) {
      if (!e.containsKey(x.getKey()) && diffs.size() < limit) {
        diffs.add(sink + ": " + x.getKey() + " got " + x.getValue() + ", expected 0");
      }
    }
    if (diffs.isEmpty()
        && (got.size() < expected.size() || got.size() > expected.size() + repeatable.size())) {
      diffs.add(sink + ": " + got.size() + " values, expected " + expected.size());
    }
    return diffs;
  }

  private static Map<Object, Integer> counts(List<Object> values) {
    Map<Object, Integer> m = new HashMap<>();
    for (Object v : values) {
      m.merge(v, 1, Integer::sum);
    }
    return m;
  }
}
