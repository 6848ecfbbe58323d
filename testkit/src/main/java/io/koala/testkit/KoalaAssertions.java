package io.koala.testkit;

import io.koala.dataflow.Dataflow;
import io.koala.function.KeyValue;
import io.koala.window.WindowResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Assertions about dataflows, for tests. The main one, {@link #assertEquivalentToReferenceRun},
 * checks what Koala promises about live reconfiguration: that it does not change a dataflow's
 * results.
 *
 * <pre>{@code
 * KoalaAssertions.assertEquivalentToReferenceRun(
 *     dataflow,
 *     "words",
 *     words,
 *     ReconfigurationSchedule.create().rescale(100, "count", 4).rescale(300, "count", 1));
 * }</pre>
 *
 * <p>Thread-safe (stateless); each call runs its own {@link DataflowTestDriver}s.
 */
public final class KoalaAssertions {
  private static final int SHOWN = 8; // values of a key shown in a failure message

  private KoalaAssertions() {}

  /**
   * Feeds {@code records} to source {@code source} while making the reconfigurations of {@code
   * schedule}, and asserts that every collecting sink gets what a reference run gets; see {@link
   * #assertEquivalentToReferenceRun(Dataflow, List, ReconfigurationSchedule, long)}.
   */
  public static void assertEquivalentToReferenceRun(
      Dataflow dataflow, String source, List<?> records, ReconfigurationSchedule schedule) {
    List<TestRecord<?>> input = new ArrayList<>();
    for (Object r : records) {
      input.add(TestRecord.of(source, r));
    }
    assertEquivalentToReferenceRun(dataflow, input, schedule, 0);
  }

  /**
   * Runs {@code dataflow} in a {@link DataflowTestDriver} with seed {@code seed}: feeds {@code
   * input} in order, making each reconfiguration of {@code schedule} once its number of records has
   * been fed (the run settles first, then the request runs while the next records flow); then ends
   * every input. Runs it again as a reference, with the schedule's reconfigurations all made before
   * any input, so that the final configuration holds from the start. Then asserts that every sink
   * got, for every key, the same sequence of values in both runs.
   *
   * <p>The key of an output value is {@link KeyValue#key()} or {@link WindowResult#key()}; any
   * other value is its own key, so such outputs are compared as multisets. Per-key order is what
   * Koala keeps; the order across keys depends on parallelism and timing, and is not compared.
   *
   * @throws AssertionError naming the sink, the first key whose values differ, and both runs'
   *     values of it
   * @throws io.koala.runtime.JobFailedException if a user function threw in either run
   */
  public static void assertEquivalentToReferenceRun(
      Dataflow dataflow,
      List<? extends TestRecord<?>> input,
      ReconfigurationSchedule schedule,
      long seed) {
    Objects.requireNonNull(dataflow, "dataflow");
    Map<String, List<Object>> got = run(dataflow, input, schedule, seed, false);
    Map<String, List<Object>> expected = run(dataflow, input, schedule, seed, true);
    for (Map.Entry<String, List<Object>> sink : expected.entrySet()) {
      String diff = firstDifference(got.get(sink.getKey()), sink.getValue());
      if (diff != null) {
        throw new AssertionError(
            "sink '"
                + sink.getKey()
                + "' of dataflow '"
                + dataflow.name()
                + "' differs from the reference run: "
                + diff
                + " (reconfigurations: "
                + schedule
                + ", seed "
                + seed
                + ")");
      }
    }
  }

  private static Map<String, List<Object>> run(
      Dataflow dataflow,
      List<? extends TestRecord<?>> input,
      ReconfigurationSchedule schedule,
      long seed,
      boolean reference) {
    List<ReconfigurationSchedule.Step> steps = schedule.steps();
    Map<String, List<Object>> out = new LinkedHashMap<>();
    try (DataflowTestDriver driver = new DataflowTestDriver(dataflow, seed)) {
      int next = 0;
      for (int i = 0; i <= input.size(); i++) {
        while (next < steps.size() && (reference || steps.get(next).afterRecords() <= i)) {
          driver.settle();
          driver.request(steps.get(next++).change());
        }
        if (reference && i == 0) {
          driver.settle(); // the final configuration holds before the first record
        }
        if (i < input.size()) {
          TestRecord<?> r = input.get(i);
          long ts =
              r.timestamp() == TestRecord.NOW ? driver.currentProcessingTime() : r.timestamp();
          driver.feed(driver.log(r.source()), r.value(), ts);
        }
      }
      driver.settle();
      if (driver.completedRequests() != steps.size()) {
        throw new IllegalStateException(
            (reference ? "the reference run" : "the run")
                + " completed "
                + driver.completedRequests()
                + " of "
                + steps.size()
                + " reconfigurations");
      }
      driver.endAll();
      driver.settle();
      for (String sink : driver.sinks()) {
        out.put(sink, driver.readOutput(sink));
      }
    }
    return out;
  }

  /** The first difference between two outputs, key by key, or {@code null}. */
  private static String firstDifference(List<Object> got, List<Object> expected) {
    Map<Object, List<Object>> g = byKey(got);
    Map<Object, List<Object>> e = byKey(expected);
    Set<Object> keys = new LinkedHashSet<>(e.keySet());
    keys.addAll(g.keySet());
    for (Object key : keys) {
      List<Object> a = g.getOrDefault(key, List.of());
      List<Object> b = e.getOrDefault(key, List.of());
      if (a.equals(b)) {
        continue;
      }
      int i = 0;
      while (i < a.size() && i < b.size() && Objects.equals(a.get(i), b.get(i))) {
        i++;
      }
      String at =
          i < a.size() && i < b.size()
              ? "value " + i + " is " + a.get(i) + ", expected " + b.get(i)
              : a.size() + " values, expected " + b.size();
      int from = Math.max(0, i - 2);
      return "key " + key + ": " + at + "; got " + shown(a, from) + ", expected " + shown(b, from);
    }
    return null;
  }

  private static Map<Object, List<Object>> byKey(List<Object> values) {
    Map<Object, List<Object>> m = new LinkedHashMap<>();
    for (Object v : values) {
      m.computeIfAbsent(keyOf(v), k -> new ArrayList<>()).add(v);
    }
    return m;
  }

  private static Object keyOf(Object v) {
    if (v instanceof KeyValue<?, ?> kv) {
      return kv.key();
    }
    if (v instanceof WindowResult<?, ?> w) {
      return w.key();
    }
    return v;
  }

  /** Up to {@code SHOWN} values from {@code from} on. */
  private static String shown(List<Object> values, int from) {
    int to = Math.min(values.size(), from + SHOWN);
    if (from >= to) {
      return values.toString();
    }
    return (from > 0 ? from + " values, then " : "")
        + values.subList(from, to)
        + (to < values.size() ? " and " + (values.size() - to) + " more" : "");
  }
}
