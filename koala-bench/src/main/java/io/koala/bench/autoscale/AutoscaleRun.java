package io.koala.bench.autoscale;

import io.koala.KoalaException;
import io.koala.connector.RateSchedule;
import io.koala.dataflow.Dataflow;
import io.koala.job.AutoscalerDecision;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationReport;
import io.koala.runtime.JobHandle;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.KoalaRuntime;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * One run of the experiment, one of its {@link Way}s: the job on the diurnal input, sampled every
 * second (its end-to-end lag, the target's parallelism), and checked at the end against the input
 * (each key's final count equals its records).
 */
public final class AutoscaleRun {
  /** Seconds a run may go on after its input ended, to read its backlog. */
  static final int DRAIN_SECONDS = 120;

  private AutoscaleRun() {}

  /**
   * How a run provisions the keyed operator.
   *
   * @param name its name in the summary
   * @param autoscaled whether the autoscaler runs
   * @param protocol the reconfiguration protocol ({@code koala.reconfiguration.protocol})
   * @param parallelism the tasks it starts with
   */
  public record Way(String name, boolean autoscaled, String protocol, int parallelism) {}

  /**
   * One second of a run.
   *
   * @param second seconds since the job started, at the end of the second
   * @param inputRate records per second the input offered in the second
   * @param processedRate records per second the keyed operator processed in the second
   * @param lagSeconds the end-to-end lag at the second's end: how long ago the oldest record not
   *     yet processed became available (0 when every available record was processed)
   * @param parallelism the keyed operator's tasks (during a reconfiguration, before or after,
   *     whichever is more)
   * @param stalls the time the job's tasks were stalled with work queued in the second, by operator
   *     (the head of a chain) and reason, summed over its tasks, those of at least {@value
   *     #STALL_SHOWN_MILLIS} ms, e.g. {@code "counts throttle 1,870 ms"}; empty when none
   */
  public record Second(
      int second,
      double inputRate,
      double processedRate,
      double lagSeconds,
      int parallelism,
      String stalls) {}

  /** The least stall time of an operator and reason in a second that {@link Second} shows. */
  static final long STALL_SHOWN_MILLIS = 50;

  /**
   * What a run measured.
   *
   * @param lagUnder1sFraction of the measured seconds (after the warm-up, until the input ends),
   *     those whose lag stayed under 1 s
   * @param taskSeconds the keyed operator's tasks summed over the measured seconds
   * @param stateBytesTransferred bytes of state moved between tasks
   * @param decisions the autoscaler's decisions (0 for static runs)
   * @param reconfigurationMillis each of the target's reconfigurations, from the start of its epoch
   *     until every task had drained its markers (under stop-and-restart the input waits
   *     throughout)
   * @param stoppedSeconds the measured seconds in which the job processed no record while it had
   *     some to process, each with its lag and its stalls
   * @param flapped whether the parallelism changed direction twice within the cooldown
   * @param valid whether the run means something: the job finished and every key's final count
   *     equals its records in the input
   * @param invalidReason why not, or null
   */
  public record Result(
      Way way,
      List<Second> seconds,
      double lagUnder1sFraction,
      double maxLagSeconds,
      long taskSeconds,
      long stateBytesTransferred,
      long decisions,
      List<Long> reconfigurationMillis,
      List<AutoscalerDecision> decisionList,
      List<String> stoppedSeconds,
      boolean flapped,
      boolean valid,
      String invalidReason,
      double loadAverageBefore,
      double loadAverageAfter) {
    public Result {
      seconds = List.copyOf(seconds);
      reconfigurationMillis = List.copyOf(reconfigurationMillis);
      decisionList = List.copyOf(decisionList);
      stoppedSeconds = List.copyOf(stoppedSeconds);
    }
  }

  /** The configuration of a run of {@code way}. */
  static KoalaConfig config(AutoscaleSettings s, Way way) {
    return KoalaConfig.load()
        .withWorkers(s.workers())
        .withSeparateSystems(true)
        .with("koala.reconfiguration.protocol", way.protocol())
        .with("koala.autoscaler.enabled", way.autoscaled())
        .with("koala.autoscaler.interval", "2 s")
        .with("koala.autoscaler.headroom", s.headroom())
        .with("koala.autoscaler.scale-in-hysteresis", s.scaleInHysteresis())
        .with("koala.autoscaler.cooldown", s.cooldownSeconds() + " s")
        .with("koala.autoscaler.lead", s.leadSeconds() + " s")
        .with("koala.autoscaler.max-parallelism", 16)
        .with("koala.autoscaler.operators", List.of(AutoscaleJob.TARGET));
  }

  /** Runs {@code way} on {@code input}; {@code expected} are each key's records. */
  public static Result run(
      AutoscaleSettings s, DiurnalInput input, long[] expected, Way way, Consumer<String> progress)
      throws InterruptedException {
    double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    AutoscaleJob.Observed observed = new AutoscaleJob.Observed(s.keys());
    Dataflow dataflow = AutoscaleJob.dataflow(s, input, way.parallelism(), observed);
    List<Second> seconds = new ArrayList<>();
    String invalid = null;
    JobMetrics last;
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config(s, way))) {
      JobHandle job = runtime.submit(dataflow);
      long t0 = awaitRunning(job);
      RateSchedule schedule = input.schedule();
      long before = 0;
      Map<String, Long> stalledBefore = new HashMap<>();
      int end = input.seconds() + DRAIN_SECONDS;
      for (int t = 1; t <= end && !job.status().isTerminal(); t++) {
        long wait = t0 + t * 1000L - System.currentTimeMillis();
        if (wait > 0) {
          Thread.sleep(wait);
        }
        long elapsed = System.currentTimeMillis() - t0;
        long processed = observed.processed().sum();
        long available = schedule.available(Math.min(elapsed, input.seconds() * 1000L));
        double lag =
            processed >= available
                ? 0
                : Math.max(0, elapsed - schedule.availableAt(processed + 1)) / 1000.0;
        JobMetrics m = job.metrics();
        int p = parallelism(m, way.parallelism());
        Map<String, Long> stalled = stallNanos(m);
        String stalls = stallsBetween(stalledBefore, stalled);
        stalledBefore = stalled;
        seconds.add(new Second(t, input.rate(t - 1), processed - before, lag, p, stalls));
        if (processed == before && lag > 0) {
          progress.accept(
              String.format(
                  java.util.Locale.ROOT,
                  "%s: %d s, nothing processed, lag %.2f s; stalled: %s",
                  way.name(),
                  t,
                  lag,
                  stalls.isEmpty() ? "no task" : stalls));
        }
        before = processed;
        if (t % 10 == 0) {
          progress.accept(
              String.format(
                  java.util.Locale.ROOT,
                  "%s: %d s, input %,.0f/s, processed %,.0f/s, lag %.2f s, %d tasks",
                  way.name(),
                  t,
                  input.rate(t - 1),
                  seconds.get(seconds.size() - 1).processedRate(),
                  lag,
                  p));
        }
      }
      JobStatus status = job.await(Duration.ofSeconds(30));
      last = job.metrics();
      for (AutoscalerDecision d : last.autoscaler().decisions()) {
        progress.accept(
            String.format(
                java.util.Locale.ROOT,
                "%s: at %.1f s %s %d -> %d (%s): %s",
                way.name(),
                (d.atMillis() - t0) / 1000.0,
                d.kind(),
                d.fromParallelism(),
                d.toParallelism(),
                d.outcome(),
                d.reason()));
      }
      if (status != JobStatus.FINISHED) {
        invalid = "the job did not finish: " + status;
      }
      job.close();
    }
    if (invalid == null) {
      invalid = compare(observed, expected);
    }
    return summarize(s, input, way, seconds, last, invalid, loadBefore);
  }

  /**
   * Each operator's stall time by reason so far, summed over its tasks, keyed "operator reason".
   */
  static Map<String, Long> stallNanos(JobMetrics m) {
    Map<String, Long> out = new TreeMap<>();
    for (String operator : m.operators()) {
      m.stalls(operator)
          .forEach((reason, nanos) -> out.put(operator + " " + reason.label(), nanos));
    }
    return out;
  }

  /**
   * The stalls from {@code before} to {@code after} (as {@link #stallNanos} gives them) of at least
   * {@link #STALL_SHOWN_MILLIS} ms, longest first, e.g. {@code "counts throttle 1,870 ms"}.
   */
  static String stallsBetween(Map<String, Long> before, Map<String, Long> after) {
    List<Map.Entry<String, Long>> grown = new ArrayList<>();
    after.forEach(
        (name, nanos) -> {
          long millis = (nanos - before.getOrDefault(name, 0L)) / 1_000_000;
          if (millis >= STALL_SHOWN_MILLIS) {
            grown.add(Map.entry(name, millis));
          }
        });
    grown.sort(Map.Entry.<String, Long>comparingByValue().reversed());
    StringBuilder out = new StringBuilder();
    for (Map.Entry<String, Long> e : grown) {
      out.append(out.length() == 0 ? "" : "; ")
          .append(String.format(java.util.Locale.ROOT, "%s %,d ms", e.getKey(), e.getValue()));
    }
    return out.toString();
  }

  private static long awaitRunning(JobHandle job) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 60_000;
    while (job.status() != JobStatus.RUNNING) {
      if (job.status().isTerminal() || System.currentTimeMillis() > deadline) {
        throw new KoalaException("job " + job.id() + " did not start: " + job.status());
      }
      Thread.sleep(5);
    }
    return System.currentTimeMillis();
  }

  /** The target's tasks: after its last reconfiguration, or the more of a running one's two. */
  static int parallelism(JobMetrics m, int initial) {
    int p = initial;
    for (ReconfigurationReport r : m.reconfigurations()) {
      if (r.operator().equals(AutoscaleJob.TARGET)) {
        p = r.tasksAfter().size();
      }
    }
    for (AutoscalerDecision d : m.autoscaler().decisions()) {
      if (d.outcome().equals(AutoscalerDecision.RUNNING)) {
        p = Math.max(p, Math.max(d.fromParallelism(), d.toParallelism()));
      }
    }
    return p;
  }

  /** Null when every key's final count equals its records; else the first difference. */
  static String compare(AutoscaleJob.Observed observed, long[] expected) {
    long lost = 0;
    long extra = 0;
    String first = null;
    for (int k = 0; k < expected.length; k++) {
      long got = observed.counts().get(k);
      if (got != expected[k]) {
        lost += Math.max(0, expected[k] - got);
        extra += Math.max(0, got - expected[k]);
        if (first == null) {
          first = "key " + k + ": final count " + got + ", records " + expected[k];
        }
      }
    }
    return first == null
        ? null
        : "the output differs from the input: "
            + lost
            + " records short, "
            + extra
            + " extra ("
            + first
            + ")";
  }

  static Result summarize(
      AutoscaleSettings s,
      DiurnalInput input,
      Way way,
      List<Second> seconds,
      JobMetrics last,
      String invalid,
      double loadBefore) {
    int measured = 0;
    int under = 0;
    List<String> stopped = new ArrayList<>();
    long taskSeconds = 0;
    double maxLag = 0;
    for (Second sec : seconds) {
      if (sec.second() > s.warmupSeconds() && sec.second() <= input.seconds()) {
        measured++;
        under += sec.lagSeconds() < 1 ? 1 : 0;
        taskSeconds += sec.parallelism();
        maxLag = Math.max(maxLag, sec.lagSeconds());
        if (sec.processedRate() == 0 && sec.lagSeconds() > 0) {
          stopped.add(
              String.format(
                  java.util.Locale.ROOT,
                  "second %d: lag %.2f s; stalled: %s",
                  sec.second(),
                  sec.lagSeconds(),
                  sec.stalls().isEmpty() ? "no task" : sec.stalls()));
        }
      }
    }
    if (invalid == null && measured < input.seconds() - s.warmupSeconds()) {
      invalid = "only " + measured + " seconds were sampled";
    }
    List<AutoscalerDecision> decisions = last.autoscaler().decisions();
    List<Long> reconfigurationMillis = new ArrayList<>();
    for (ReconfigurationReport r : last.reconfigurations()) {
      if (r.operator().equals(AutoscaleJob.TARGET)) {
        reconfigurationMillis.add(r.durationMillis());
      }
    }
    return new Result(
        way,
        seconds,
        measured == 0 ? 0 : (double) under / measured,
        maxLag,
        taskSeconds,
        last.stateBytesTransferred(),
        last.autoscaler().decided(),
        reconfigurationMillis,
        decisions,
        stopped,
        flapped(decisions, s.cooldown()),
        invalid == null,
        invalid,
        loadBefore,
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
  }

  /**
   * Whether an operator's parallelism changed direction twice within {@code cooldown}: three
   * consecutive changes, each the reverse of the one before, the last within the cooldown of the
   * first.
   */
  static boolean flapped(List<AutoscalerDecision> decisions, Duration cooldown) {
    java.util.Map<String, List<long[]>> changes = new java.util.HashMap<>();
    for (AutoscalerDecision d : decisions) {
      int direction = Integer.signum(d.toParallelism() - d.fromParallelism());
      if (direction != 0) {
        changes
            .computeIfAbsent(d.operator(), o -> new ArrayList<>())
            .add(new long[] {d.atMillis(), direction});
      }
    }
    for (List<long[]> c : changes.values()) {
      for (int i = 2; i < c.size(); i++) {
        boolean reversals = c.get(i)[1] != c.get(i - 1)[1] && c.get(i - 1)[1] != c.get(i - 2)[1];
        if (reversals && c.get(i)[0] - c.get(i - 2)[0] < cooldown.toMillis()) {
          return true;
        }
      }
    }
    return false;
  }
}
