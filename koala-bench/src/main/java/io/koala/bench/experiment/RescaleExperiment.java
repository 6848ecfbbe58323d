package io.koala.bench.experiment;

import io.koala.KoalaException;
import io.koala.cli.ProtocolChoice;
import io.koala.connector.RateSchedule;
import io.koala.connector.SinkContext;
import io.koala.connector.SinkSpec;
import io.koala.connector.SinkWriter;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import io.koala.job.LatencyHistogram;
import io.koala.job.ReconfigurationReport;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.plan.TaskId;
import io.koala.runtime.JobHandle;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.KoalaRuntime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * The rescale experiment (the paper's §5.2 shape at this machine's scale, DESIGN §4.7): a {@link
 * RescaleWorkload} over {@code keys} keys, workers in separate ActorSystems over loopback TCP, the
 * target operator at {@code from} tasks of emulated capacity {@code taskCapacity}. The warm-up
 * writes every key, the input then runs at {@code rate} and doubles, so a backlog builds; the
 * operator is rescaled to {@code to} tasks, and the run goes on until both the source lag and the
 * end-to-end backlog are back at their pre-doubling levels (scaled to the doubled rate, see {@link
 * RescaleResult#recoveryLagThreshold()}), plus a tail, or until a timeout. Metrics are sampled
 * every second (one {@link RescaleSample} each) and summarised in a {@link RescaleResult}.
 *
 * <p>Throughput is the records the target processed, counted by its chained sink (the runtime's
 * {@code recordsIn} counts forwarded and parked records twice). Latency windows are differences of
 * per-task cumulative histograms between two snapshots; a task absent from the earlier snapshot
 * counts from zero, and a task retired between two snapshots drops out of the later one, so a
 * scale-in under-counts the second in which a task goes.
 */
public final class RescaleExperiment {
  /** The sink chained to the target: counts and drops what it emits. */
  public static final String SINK = "counted";

  /** Event time of record 0 of the generator. */
  static final long BASE_TIME_MILLIS = 1_700_000_000_000L;

  /** Seconds before the doubling over which the pre-doubling lag level is taken. */
  static final int LAG_LEVEL_SECONDS = 5;

  /** The shortest sampling window that counts for the lowest throughput during recovery. */
  static final double MIN_WINDOW_SECONDS = 0.5;

  /** Seconds before the rescale over which the "before" throughput and latency are taken. */
  static final int BEFORE_SECONDS = 10;

  /** The workloads of the runs this process has completed ({@link #ran}). */
  private static final Set<String> RAN = ConcurrentHashMap.newKeySet();

  private RescaleExperiment() {}

  /**
   * Whether this process has completed a run of {@code workload}: its code is compiled, and a run
   * needs no warm-up before it ({@link ExperimentRuns}).
   */
  static boolean ran(String workload) {
    return RAN.contains(workload);
  }

  /**
   * What a run of {@code settings} produced: the summary, the per-second rows and the job's metrics
   * at the run's last sample ({@code last}).
   */
  public record Outcome(
      RescaleSettings settings,
      RescaleResult result,
      List<RescaleSample> samples,
      JobMetrics last) {
    public Outcome {
      samples = List.copyOf(samples);
    }
  }

  /**
   * The dataflow: the workload's source (one partition per worker) and keyed target, and a sink
   * chained to the target that counts what it emits into {@code processed} (one output per input
   * record, so this counts the records the target processed) and drops it.
   */
  public static Dataflow dataflow(RescaleSettings s, RateSchedule rates, LongAdder processed) {
    DataflowBuilder b = Dataflow.builder("rescale-" + s.workload());
    RescaleWorkload.of(s).build(b, rates).sink(new CountingSink<>(SINK, processed));
    return b.build();
  }

  /**
   * Counts the records of all its tasks into one counter of this JVM and drops them. The runtime's
   * {@code recordsIn} counts a record twice when it is forwarded or parked for its state during a
   * reconfiguration, so the experiment counts processed records itself; the counter is shared
   * because the embedded runtime runs every worker in this JVM.
   */
  private record CountingSink<T>(String name, LongAdder count) implements SinkSpec<T> {
    @Override
    public SinkWriter<T> open(SinkContext ctx) {
      return (value, timestamp) -> count.increment();
    }
  }

  /**
   * A reconfiguration the experiment requests {@code atSecond} seconds after the job started.
   *
   * @param description what it does, for the progress and the summary
   * @param request sends the request to the job
   */
  public record Step(
      int atSecond,
      String description,
      Function<JobHandle, CompletionStage<ReconfigurationReport>> request) {}

  /**
   * What a run does: the scenario, the input's rate schedule from the job's start, and the
   * reconfigurations, in the order of their seconds. Recovery is measured from the first step,
   * which {@link RescaleSettings#rescaleAtSecond()} places under the doubled input's backlog. The
   * run ends once the input has recovered, every step has completed and {@code releases} retired
   * tasks of the target have been released, or at the timeout.
   */
  public record Plan(
      RescaleSettings settings, RateSchedule schedule, List<Step> steps, int releases) {
    /** A plan that does not wait for retired tasks to be released. */
    public Plan(RescaleSettings settings, RateSchedule schedule, List<Step> steps) {
      this(settings, schedule, steps, 0);
    }

    public Plan {
      steps = List.copyOf(steps);
      if (steps.isEmpty()) {
        throw new IllegalArgumentException("an experiment needs at least one reconfiguration");
      }
      for (int i = 1; i < steps.size(); i++) {
        if (steps.get(i).atSecond() < steps.get(i - 1).atSecond()) {
          throw new IllegalArgumentException("steps out of order: " + steps);
        }
      }
    }

    /**
     * The plan of {@code experiment rescale}: the target rescaled to {@code to} at the rescale; for
     * the control run ({@link ProtocolChoice#CONTROL}), no request: its capacity grows then.
     */
    public static Plan rescale(RescaleSettings s) {
      String target = RescaleWorkload.of(s).target();
      if (s.protocol().equals(ProtocolChoice.CONTROL)) {
        List<Integer> tasks = java.util.stream.IntStream.range(0, s.to()).boxed().toList();
        ReconfigurationReport none =
            new ReconfigurationReport(
                0, target, "control", tasks, tasks, List.of(), 0, 0, 0, 0, 0, 0, 0, 0, 0);
        return new Plan(
            s,
            s.schedule(),
            List.of(
                new Step(
                    s.rescaleAtSecond(),
                    "control: " + target + "'s " + s.to() + " tasks double their capacity",
                    job -> CompletableFuture.completedFuture(none))));
      }
      return new Plan(
          s,
          s.schedule(),
          List.of(
              new Step(
                  s.rescaleAtSecond(),
                  "rescale " + target + " " + s.from() + " -> " + s.to(),
                  job -> job.rescale(target, s.to()))));
    }
  }

  /**
   * Runs {@link Plan#rescale}, reporting to {@code progress} every second.
   *
   * @throws KoalaException when the job fails or does not start
   */
  public static Outcome run(RescaleSettings s, KoalaConfig base, ExperimentProgress progress)
      throws InterruptedException {
    return run(Plan.rescale(s), base, progress);
  }

  /**
   * Runs {@code plan}, reporting to {@code progress} every second.
   *
   * @throws KoalaException when the job fails or does not start
   */
  public static Outcome run(Plan plan, KoalaConfig base, ExperimentProgress progress)
      throws InterruptedException {
    RescaleSettings s = plan.settings();
    KoalaConfig config =
        ProtocolChoice.configure(
            base.withWorkers(s.workers()).withSeparateSystems(true), s.protocol());
    RescaleWorkload workload = RescaleWorkload.of(s);
    progress.printf(
        "rescale experiment: %s, protocol %s, %d workers (separate ActorSystems over loopback"
            + " TCP), %d keys (%d active), %d B state/key, %s %d -> %d tasks of %,.0f records/s%n",
        s.workload(),
        s.protocol(),
        s.workers(),
        s.keys(),
        s.activeKeys(),
        s.stateBytes(),
        workload.target(),
        s.from(),
        s.to(),
        s.taskCapacity());
    progress.printf(
        "schedule: warm-up %d s at %,.0f/s, %d s at %,.0f/s, %d s at %,.0f/s, rescale at %d s;"
            + " capacity %,.0f/s before, %,.0f/s after%n",
        s.warmupSeconds(),
        s.effectiveWarmupRate(),
        s.steadySeconds(),
        s.rate(),
        s.doubledSeconds(),
        s.doubledRate(),
        s.rescaleAtSecond(),
        s.capacityBefore(),
        s.capacityAfter());
    for (Step step : plan.steps()) {
      progress.printf("at %d s: %s%n", step.atSecond(), step.description());
    }
    if (s.from() != s.to() && s.doubledRate() <= s.capacityBefore()) {
      progress.printf(
          "warning: the doubled rate %,.0f/s does not exceed the capacity before (%,.0f/s): no"
              + " backlog will build%n",
          s.doubledRate(), s.capacityBefore());
    }
    if (s.from() != s.to() && s.capacityAfter() <= s.doubledRate()) {
      progress.printf(
          "warning: the capacity after (%,.0f/s) does not exceed the doubled rate %,.0f/s: the"
              + " backlog cannot recover%n",
          s.capacityAfter(), s.doubledRate());
    }
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      LongAdder processed = new LongAdder();
      JobHandle job = runtime.submit(dataflow(s, plan.schedule(), processed));
      long t0 = awaitRunning(job, config.deployTimeout().toMillis() + 5_000);
      Outcome outcome = new Driver(plan, workload, job, processed, t0, progress).run();
      job.close();
      RAN.add(s.workload());
      return outcome;
    } finally {
      progress.done();
    }
  }

  /** Waits until the job runs; returns the wall-clock time at which it was seen running. */
  private static long awaitRunning(JobHandle job, long timeoutMillis) throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMillis;
    while (job.status() != JobStatus.RUNNING) {
      if (job.status().isTerminal()) {
        job.await(java.time.Duration.ZERO); // throws the failure
        throw new KoalaException("job " + job.id() + " ended before it ran: " + job.status());
      }
      if (System.currentTimeMillis() > deadline) {
        throw new KoalaException(
            "job " + job.id() + " was not running after " + timeoutMillis + " ms");
      }
      Thread.sleep(5);
    }
    return System.currentTimeMillis();
  }

  /**
   * A metrics snapshot, the records available at the source and processed by the target, and when
   * they were taken (ms since the job started).
   */
  private record Snapshot(
      int tick, long atMillis, JobMetrics metrics, long available, long processed) {
    /** Records available at the source and not yet read by it. */
    long lag() {
      return metrics.sourceLagRecords();
    }

    /**
     * Records available at the source and not yet processed by the target: the source lag plus what
     * is in flight (read but not yet processed) in the channels' credit windows.
     */
    long backlog() {
      return Math.max(0, available - processed);
    }
  }

  /**
   * When one measure of backlog comes back to its pre-doubling level after the rescale. The level
   * is the highest value sampled in the last {@value #LAG_LEVEL_SECONDS} s before the doubling; in
   * a steady state a backlog is the input of a roughly constant time, so its records double with
   * the rate: the threshold is the level times two.
   */
  private static final class Recovery {
    private final ToLongFunction<Snapshot> measure;
    long level = -1;
    long threshold = -1;
    Double atMillis;
    int tick = -1;

    Recovery(ToLongFunction<Snapshot> measure) {
      this.measure = measure;
    }

    long of(Snapshot sn) {
      return measure.applyAsLong(sn);
    }

    void setLevel(List<Snapshot> snapshots, RescaleSettings s) {
      level = 0;
      for (Snapshot sn : snapshots) {
        if (sn.tick() > s.doublingAtSecond() - LAG_LEVEL_SECONDS && sn.tick() > s.warmupSeconds()) {
          level = Math.max(level, of(sn));
        }
      }
      threshold = Math.round(level * s.doubledRate() / s.rate());
    }

    boolean recovered() {
      return atMillis != null;
    }

    /**
     * Notes the recovery if {@code cur} is at or under the threshold: when the measure crossed it,
     * assuming it fell linearly from {@code prev}, and not before the rescale.
     */
    boolean check(Snapshot prev, Snapshot cur, long rescaleAtMillis) {
      if (atMillis != null || of(cur) > threshold) {
        return false;
      }
      long above = of(prev) - threshold;
      long drop = of(prev) - of(cur);
      double at =
          above <= 0 || drop <= 0
              ? cur.atMillis()
              : prev.atMillis() + (double) above / drop * (cur.atMillis() - prev.atMillis());
      atMillis = Math.max(at, rescaleAtMillis);
      tick = cur.tick();
      return true;
    }
  }

  /** Samples the job every second, requests the rescale, detects recovery, then summarises. */
  private static final class Driver {
    private final RescaleSettings s;
    private final List<Step> steps;
    private final int releases;
    private final RescaleWorkload workload;
    private final JobHandle job;
    private final LongAdder processed;
    private final long t0;
    private final ExperimentProgress progress;
    private final RateSchedule schedule;
    private final List<Snapshot> snapshots = new ArrayList<>();
    private final List<RescaleSample> samples = new ArrayList<>();

    /** Recovery of the source lag (the Kafka-lag analogue). */
    private final Recovery lag = new Recovery(Snapshot::lag);

    /** Recovery of the end-to-end backlog. */
    private final Recovery backlog = new Recovery(Snapshot::backlog);

    /** The steps requested so far: their futures, and the snapshots and times of the requests. */
    private final List<CompletableFuture<ReconfigurationReport>> requested = new ArrayList<>();

    private final List<Snapshot> atRequest = new ArrayList<>();
    private long lastRequestAtMillis;
    private int allDoneTick = -1;
    private final List<Double> releasedMs = new ArrayList<>();
    private Snapshot atRescale;
    private long rescaleAtMillis;
    private CompletableFuture<ReconfigurationReport> reconfiguration;

    Driver(
        Plan plan,
        RescaleWorkload workload,
        JobHandle job,
        LongAdder processed,
        long t0,
        ExperimentProgress progress) {
      this.s = plan.settings();
      this.steps = plan.steps();
      this.releases = plan.releases();
      this.workload = workload;
      this.job = job;
      this.processed = processed;
      this.t0 = t0;
      this.progress = progress;
      this.schedule = plan.schedule();
    }

    private Snapshot snapshot(int tick, long notBefore) {
      JobMetrics m = job.metrics();
      long done = processed.sum();
      long at = Math.max(notBefore, System.currentTimeMillis() - t0);
      return new Snapshot(tick, at, m, schedule.available(at), done);
    }

    Outcome run() throws InterruptedException {
      snapshots.add(snapshot(0, 0));
      for (int tick = 1; ; tick++) {
        long wait = t0 + tick * 1000L - System.currentTimeMillis();
        if (wait > 0) {
          Thread.sleep(wait);
        }
        Snapshot prev = snapshots.get(snapshots.size() - 1);
        Snapshot cur = snapshot(tick, prev.atMillis() + 1);
        if (cur.metrics().status() != JobStatus.RUNNING) {
          job.await(java.time.Duration.ofSeconds(1)); // throws the failure
          throw new KoalaException("job " + job.id() + " stopped: " + cur.metrics().status());
        }
        snapshots.add(cur);
        RescaleSample sample = sample(prev, cur, phaseOf(tick));
        samples.add(sample);
        progress.sample(sample);

        if (tick == s.doublingAtSecond()) {
          lag.setLevel(snapshots, s);
          backlog.setLevel(snapshots, s);
        }
        while (requested.size() < steps.size() && steps.get(requested.size()).atSecond() <= tick) {
          if (requested.isEmpty()) {
            prev = cur; // recovery is measured from the first step's request on
          }
          request(cur);
        }
        if (atRescale != null) {
          int released = cur.metrics().releasedTasks(workload.target()).size();
          while (releasedMs.size() < released) {
            releasedMs.add(round(cur.atMillis() - rescaleAtMillis));
            progress.printf(
                "%5.1f s: a retired task of %s released (%d so far)%n",
                cur.atMillis() / 1000.0, workload.target(), releasedMs.size());
          }
          if (lag.check(prev, cur, rescaleAtMillis)) {
            printRecovery("source lag", lag);
          }
          if (backlog.check(prev, cur, rescaleAtMillis)) {
            printRecovery("end-to-end backlog", backlog);
          }
          if (allDoneTick < 0
              && requested.size() == steps.size()
              && requested.stream().allMatch(CompletableFuture::isDone)) {
            allDoneTick = tick;
          }
          if (lag.recovered()
              && backlog.recovered()
              && tick >= Math.max(lag.tick, backlog.tick) + s.tailSeconds()
              && allDoneTick >= 0
              && tick >= allDoneTick + s.tailSeconds()
              && releasedMs.size() >= releases) {
            break;
          }
          if (System.currentTimeMillis() - t0 - lastRequestAtMillis >= s.timeoutSeconds() * 1000L) {
            progress.printf(
                "timeout: %d s after the %s%n",
                s.timeoutSeconds(), steps.size() == 1 ? "rescale" : "last reconfiguration");
            break;
          }
        }
      }
      return new Outcome(s, summary(), samples, snapshots.get(snapshots.size() - 1).metrics());
    }

    /** Requests the next step; the first is the one whose recovery the run measures. */
    private void request(Snapshot cur) {
      Step step = steps.get(requested.size());
      lastRequestAtMillis = System.currentTimeMillis() - t0;
      progress.printf(
          "%5.1f s: %s; source lag %,d records (recovered under %,d), end-to-end backlog %,d"
              + " records (recovered under %,d)%n",
          lastRequestAtMillis / 1000.0,
          step.description(),
          cur.lag(),
          lag.threshold,
          cur.backlog(),
          backlog.threshold);
      CompletableFuture<ReconfigurationReport> f = step.request().apply(job).toCompletableFuture();
      if (requested.isEmpty()) {
        atRescale = cur;
        rescaleAtMillis = lastRequestAtMillis;
        reconfiguration = f;
      }
      requested.add(f);
      atRequest.add(cur);
      f.whenComplete(
          (r, e) ->
              progress.printf(
                  "%5.1f s: %s %s%n",
                  (System.currentTimeMillis() - t0) / 1000.0,
                  step.description(),
                  e != null
                      ? "failed: " + e
                      : "done: "
                          + r.bucketsMoved()
                          + " buckets moved, hand-over "
                          + r.handoverMillis()
                          + " ms, duration "
                          + r.durationMillis()
                          + " ms"));
    }

    private void printRecovery(String what, Recovery r) {
      progress.printf(
          "%5.1f s: %s recovered, %.1f s after the rescale%n",
          r.atMillis / 1000.0, what, (r.atMillis - rescaleAtMillis) / 1000.0);
    }

    private String phaseOf(int tick) {
      if (tick <= s.warmupSeconds()) {
        return "warmup";
      }
      if (tick <= s.doublingAtSecond()) {
        return "steady";
      }
      if (tick <= s.rescaleAtSecond()) {
        return "doubled";
      }
      boolean both = lag.recovered() && backlog.recovered();
      return !both || tick <= Math.max(lag.tick, backlog.tick) ? "recovery" : "tail";
    }

    private RescaleSample sample(Snapshot prev, Snapshot cur, String phase) {
      double seconds = (cur.atMillis() - prev.atMillis()) / 1000.0;
      double input =
          (schedule.available(cur.atMillis()) - schedule.available(prev.atMillis())) / seconds;
      LatencyHistogram latency = latency(workload.target(), prev, cur);
      return new RescaleSample(
          round(cur.atMillis() / 1000.0),
          phase,
          Math.round(input),
          Math.round((cur.processed() - prev.processed()) / seconds),
          Math.round(recordsIn(workload.target(), prev, cur) / seconds),
          cur.lag(),
          cur.backlog(),
          millis(latency, 50),
          millis(latency, 99),
          cur.metrics().stateBytesTransferred(),
          sum(cur, TaskMetricsSnapshot.Reconfiguration::recordsForwarded),
          sum(cur, TaskMetricsSnapshot.Reconfiguration::recordsHeld),
          sum(cur, TaskMetricsSnapshot.Reconfiguration::parkedRecords));
    }

    private static long sum(
        Snapshot sn, ToLongFunction<TaskMetricsSnapshot.Reconfiguration> counter) {
      return sn.metrics().tasks().stream()
          .mapToLong(t -> counter.applyAsLong(t.reconfiguration()))
          .sum();
    }

    private Snapshot at(int tick) {
      return snapshots.get(Math.max(0, Math.min(tick, snapshots.size() - 1)));
    }

    /** The result of step {@code i}: its state is what moved until the next step's request. */
    private StepResult stepResult(int i, Snapshot end, KeySpace keySpace)
        throws InterruptedException {
      Step step = steps.get(i);
      if (i >= requested.size()) {
        return new StepResult(
            step.description(), null, null, null, null, 0, 0, "the run ended before it");
      }
      Snapshot from = atRequest.get(i);
      Snapshot to = i + 1 < atRequest.size() ? atRequest.get(i + 1) : end;
      long transferred =
          to.metrics().stateBytesTransferred() - from.metrics().stateBytesTransferred();
      try {
        ReconfigurationReport r = requested.get(i).get(1, TimeUnit.SECONDS);
        return new StepResult(
            step.description(),
            round(from.atMillis() / 1000.0),
            r.movedBuckets().size(),
            r.handoverMillis(),
            r.durationMillis(),
            transferred,
            keySpace.keysIn(r.movedBuckets(), from.metrics().recordsIn(workload.target()))
                * keySpace.bytesPerKey(),
            null);
      } catch (ExecutionException e) {
        return new StepResult(
            step.description(),
            round(from.atMillis() / 1000.0),
            null,
            null,
            null,
            transferred,
            0,
            "failed: " + e.getCause());
      } catch (TimeoutException e) {
        return new StepResult(
            step.description(),
            round(from.atMillis() / 1000.0),
            null,
            null,
            null,
            transferred,
            0,
            "had not completed at the end of the run");
      }
    }

    private RescaleResult summary() throws InterruptedException {
      Snapshot end = snapshots.get(snapshots.size() - 1);
      String error = null;
      ReconfigurationReport report = null;
      if (reconfiguration == null) {
        error = "the run ended before the rescale";
      } else {
        try {
          report = reconfiguration.get(1, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          error = "the rescale failed: " + e.getCause();
        } catch (TimeoutException e) {
          error = "the rescale had not completed at the end of the run";
        }
      }
      if (error == null) {
        int levelStart =
            Math.max(s.warmupSeconds() + 1, s.doublingAtSecond() - LAG_LEVEL_SECONDS + 1);
        Snapshot atRequest = atRescale == null ? end : atRescale;
        error =
            RunValidity.check(
                s,
                new RunValidity.Facts(
                    lag.level,
                    at(levelStart).backlog(),
                    at(s.doublingAtSecond()).backlog(),
                    atRequest.backlog(),
                    backlog.threshold),
                steps.size() == 1 && s.to() > s.from());
      }
      boolean recovered = lag.recovered();
      Snapshot rescale = atRescale == null ? end : atRescale;
      Snapshot before = at(Math.max(s.doublingAtSecond(), s.rescaleAtSecond() - BEFORE_SECONDS));
      // the seconds from the rescale until recovery: those that ended by the time the lag had
      // recovered (the one in which the backlog ran out is partly input-bound), at least one
      Snapshot recoveryEnd = at(rescale.tick() + 1);
      while (recoveryEnd != end
          && (!recovered || at(recoveryEnd.tick() + 1).atMillis() <= lag.atMillis)) {
        recoveryEnd = at(recoveryEnd.tick() + 1);
      }
      // a sample can come late and the next one early: a window of a fraction of a second says
      // little about throughput, so only windows of at least half a second count
      double minThroughput = Double.MAX_VALUE;
      for (int t = Math.max(2, rescale.tick() + 1); t <= recoveryEnd.tick(); t++) {
        RescaleSample row = samples.get(t - 1);
        if (row.timeSeconds() - samples.get(t - 2).timeSeconds() >= MIN_WINDOW_SECONDS) {
          minThroughput = Math.min(minThroughput, row.throughput());
        }
      }
      long maxLag = 0;
      for (Snapshot sn : snapshots) {
        if (sn.tick() >= s.doublingAtSecond()) {
          maxLag = Math.max(maxLag, sn.lag());
        }
      }
      KeySpace keySpace = new KeySpace(s, workload);
      List<Integer> moved = report == null ? List.of() : report.movedBuckets();
      long rescaledAt = rescale.metrics().recordsIn(workload.target());
      long movedKeys = keySpace.keysIn(moved, rescaledAt);
      long accessed =
          keySpace.touchedIn(
              moved, rescaledAt, Math.max(rescaledAt, end.metrics().recordsIn(workload.source())));
      int perKey = keySpace.bytesPerKey();
      List<StepResult> stepResults = new ArrayList<>();
      for (int i = 0; i < steps.size(); i++) {
        StepResult r = stepResult(i, end, keySpace);
        stepResults.add(r);
        if (error == null && i > 0 && r.error() != null) {
          error = r.description() + ": " + r.error();
        }
      }
      double drain = s.capacityAfter() - s.doubledRate();
      return new RescaleResult(
          s.workload(),
          s.protocol(),
          s.keys(),
          s.activeKeys(),
          s.stateBytes(),
          perKey,
          s.taskCapacity(),
          s.rate(),
          s.doubledRate(),
          s.workers(),
          s.from(),
          s.to(),
          s.capacityBefore(),
          s.capacityAfter(),
          round(s.effectiveWarmupRate()),
          s.warmupSeconds(),
          s.keys() * perKey,
          rescale.metrics().tasksOf(workload.target()).stream()
              .mapToLong(TaskMetricsSnapshot::stateBytes)
              .sum(),
          moved,
          movedKeys,
          movedKeys * perKey,
          accessed,
          accessed * perKey,
          end.metrics().stateBytesTransferred(),
          end.metrics().keysTransferred(),
          end.metrics().fetchRequests(),
          report == null ? null : report.handoverMillis(),
          report == null ? null : report.durationMillis(),
          lag.level,
          lag.threshold,
          rescale.lag(),
          maxLag,
          drain > 0 ? round(rescale.lag() / drain * 1000) : null,
          recovered ? round(lag.atMillis - rescaleAtMillis) : null,
          backlog.threshold,
          rescale.backlog(),
          drain > 0 ? round(rescale.backlog() / drain * 1000) : null,
          backlog.recovered() ? round(backlog.atMillis - rescaleAtMillis) : null,
          round(
              (rescale.processed() - before.processed())
                  / ((rescale.atMillis() - before.atMillis()) / 1000.0)),
          minThroughput == Double.MAX_VALUE ? null : minThroughput,
          millis(latency(workload.target(), before, rescale), 99),
          atRescale == null ? null : millis(latency(workload.target(), rescale, recoveryEnd), 99),
          end.metrics().tasks().stream()
              .mapToLong(t -> t.reconfiguration().lookupTableBytes())
              .sum(),
          StatePlaneSummary.of(
              workload.target(),
              before.metrics(),
              rescale.metrics(),
              recoveryEnd.metrics(),
              end.metrics()),
          stepResults,
          releasedMs,
          recovered && error == null,
          Runtime.getRuntime().availableProcessors(),
          error);
    }
  }

  // ------------------------------------------------------------- windows of cumulative counters

  /** The target's {@code recordsIn} between two snapshots. */
  static long recordsIn(String target, Snapshot from, Snapshot to) {
    Map<TaskId, TaskMetricsSnapshot> earlier = byTask(target, from.metrics());
    long n = 0;
    for (TaskMetricsSnapshot t : to.metrics().tasksOf(target)) {
      TaskMetricsSnapshot e = earlier.get(t.task());
      n += t.recordsIn() - (e == null ? 0 : e.recordsIn());
    }
    return n;
  }

  /** The target's per-batch processing times (ns) between two snapshots. */
  static LatencyHistogram latency(String target, Snapshot from, Snapshot to) {
    Map<TaskId, TaskMetricsSnapshot> earlier = byTask(target, from.metrics());
    List<LatencyHistogram> windows = new ArrayList<>();
    for (TaskMetricsSnapshot t : to.metrics().tasksOf(target)) {
      TaskMetricsSnapshot e = earlier.get(t.task());
      windows.add(e == null ? t.batchLatency() : t.batchLatency().minus(e.batchLatency()));
    }
    return LatencyHistogram.sum(windows);
  }

  private static Map<TaskId, TaskMetricsSnapshot> byTask(String target, JobMetrics m) {
    Map<TaskId, TaskMetricsSnapshot> out = new HashMap<>();
    for (TaskMetricsSnapshot t : m.tasksOf(target)) {
      out.put(t.task(), t);
    }
    return out;
  }

  private static double millis(LatencyHistogram h, double percentile) {
    return round(h.percentile(percentile) / 1e6);
  }

  private static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }
}
