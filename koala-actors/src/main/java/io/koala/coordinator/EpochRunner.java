package io.koala.coordinator;

import static io.koala.job.ReconfigurationException.Reason.INVALID_REQUEST;

import io.koala.deploy.LiveDeployment;
import io.koala.job.ErrorInfo;
import io.koala.job.ReconfigurationProgress;
import io.koala.job.ReconfigurationReport;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.plan.ExecutionPlan.Vertex;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.protocol.EpochMessage;
import io.koala.protocol.TaskSetup;
import io.koala.time.DurationText;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntUnaryOperator;

/**
 * The running reconfiguration (DESIGN §6.1): takes the next request when {@link Turns} allows,
 * plans it, drives its {@link ReconfigurationDriver} with what the tasks report, deploys and
 * introduces its new tasks, fails an epoch that makes no progress for the step timeout, and reports
 * each completed request.
 */
final class EpochRunner {

  /** The reconfiguration being carried out. */
  private static final class Active {
    final RequestQueue.Queued request;
    final ReconfigurationDriver driver;
    final long startedMillis;
    final Set<Integer> deploying = new HashSet<>();
    final List<TaskAddress> added = new ArrayList<>();
    long handoverStartMillis = -1;
    long handoverMillis;

    Active(RequestQueue.Queued request, ReconfigurationDriver driver, long startedMillis) {
      this.request = request;
      this.driver = driver;
      this.startedMillis = startedMillis;
    }
  }

  /** What the epochs ask of and tell the job's other parts. */
  interface Parts {
    /** Whether epochs must wait: for a checkpoint, a recovery or a stop ({@link Turns}). */
    boolean epochsHeld();

    /** An epoch started: a checkpoint due goes first next time. */
    void epochStarted();

    /** Whether a source has read all its input: the job is finishing. */
    boolean finishing();

    /** The first source that read all its input. */
    TaskId firstEnded();

    /** A source read all its input. */
    void inputEnded(EpochMessage.InputEnded report);

    /** No epoch runs: sources that read all their input may end. */
    void releaseInputs();

    /** An owner reported which retiring holders it still references ({@link Holders}). */
    void references(EpochMessage.References report);

    /** The workers: lost, leaving, placeable ({@link Departures}). */
    WorkerPool pool();

    /** The queue changed: a departure's migrations are planned again if one was overtaken. */
    void replan();

    /** An epoch ended: departures waiting for it go on. */
    void epochEnded();

    /** Task {@code setup} is deployed by an epoch: its results reach the client. */
    void deploying(TaskSetup setup);

    /** Tasks {@code started} were told to start, each learning {@code book}. */
    void tasksStarted(List<TaskAddress> started, List<TaskAddress> book);

    /** A failure: the job rolls back, or fails ({@link Recovery}). */
    void failed(ErrorInfo error);

    /** A point at which a crash planned for testing may strike. */
    void crashPoint();
  }

  private final JobSetup setup;
  private final Outbox out;
  private final JobState state;
  private final Attempts attempts;
  private final TaskRoster roster;
  private final CurrentStatus job;
  private final RequestQueue requests;
  private final Parts parts;
  private Active active;
  private long nextEpoch = 1;
  private final ReportHistory reports = new ReportHistory();
  private final ProgressEstimator progressEstimator = new ProgressEstimator();

  EpochRunner(
      JobSetup setup,
      Outbox out,
      JobState state,
      Attempts attempts,
      TaskRoster roster,
      CurrentStatus job,
      RequestQueue requests,
      Parts parts) {
    this.setup = setup;
    this.out = out;
    this.state = state;
    this.attempts = attempts;
    this.roster = roster;
    this.job = job;
    this.requests = requests;
    this.parts = parts;
  }

  /** An input about the running epoch. */
  void on(JobInput.Epochs input) {
    if (input instanceof JobInput.EpochReported m) {
      onReported(m);
    } else if (input instanceof JobInput.EpochStalled m) {
      onStalled(m);
    } else {
      throw new IllegalStateException("unhandled " + input);
    }
  }

  boolean running() {
    return active != null;
  }

  /** The running epoch, or 0. */
  long runningEpoch() {
    return active == null ? 0 : active.driver.epoch();
  }

  /** The running epoch's phase, or null. */
  EpochDriver.Phase phase() {
    return active == null ? null : active.driver.phase();
  }

  /** The last epoch started (the epoch tasks are told when a source may end). */
  long lastEpoch() {
    return nextEpoch - 1;
  }

  /** Whether the running epoch is deploying new tasks on worker {@code w}. */
  boolean deployingOn(int w) {
    return active != null && active.deploying.contains(w);
  }

  /** Whether the running epoch waits for new tasks to be deployed. */
  boolean deploying() {
    return active != null && !active.deploying.isEmpty();
  }

  /** The newest reports ({@link ReportHistory#KEPT}). */
  List<ReconfigurationReport> reports() {
    return reports.latest();
  }

  /** The reports made since the job started, those no longer kept included. */
  int reportCount() {
    return reports.made();
  }

  /** A rollback to a checkpoint that had {@code kept} reports: the later ones are undone. */
  void truncateReports(int kept) {
    reports.truncate(kept);
  }

  /**
   * Starts the next queued reconfiguration, if one may start: requests that cannot run are answered
   * at once, and so is one that changes nothing.
   */
  void startNext() {
    RequestQueue.Queued q;
    while (active == null
        && job.running()
        && (q = requests.peekDurable()) != null
        && !parts.epochsHeld()) {
      requests.poll();
      if (parts.finishing()) {
        requests.reject(
            q,
            "job "
                + out.jobId()
                + " is finishing: source task "
                + parts.firstEnded()
                + " has read all its input");
        requests.endedNow(q);
        continue;
      }
      ReconfigurationPlan rp;
      ReconfigurationDriver driver;
      try {
        requests.check(q.change); // again: a worker it names may have been lost meanwhile
        rp = q.change.plan(state.deployment(), q.vertex);
        if (rp.isNoop()) {
          requests.complete(
              q,
              report(
                  q,
                  0,
                  rp.tasksBefore(),
                  rp.tasksAfter(),
                  new int[0],
                  0,
                  EpochMessage.Transfer.NONE,
                  0));
          requests.endedNow(q);
          continue;
        }
        driver =
            new ReconfigurationDriver(
                nextEpoch,
                q.vertex,
                rp,
                state,
                placer(q),
                setup.reconfiguration().protocol(),
                setup.reconfiguration().bucketsPerStep());
      } catch (IllegalArgumentException e) {
        requests.reject(q, INVALID_REQUEST, e.getMessage());
        requests.endedNow(q);
        continue;
      }
      nextEpoch += driver.epochs();
      requests.taken(q);
      active = new Active(q, driver, out.now());
      parts.epochStarted();
      OperatorId reconfigured = q.vertex;
      state.updateRetirement(r -> r.epochStarted(reconfigured));
      out.log()
          .info(
              "job {}: epoch {}: {} ({} buckets move)",
              out.jobId(),
              driver.epoch(),
              q.change,
              rp.moves().size());
      apply(driver.start());
    }
    parts.replan();
    parts.releaseInputs();
  }

  /**
   * Places new tasks where the request says, else on the placeable worker with the fewest of the
   * operator's tasks, then with the fewest of the job's, then with the lowest index.
   */
  private IntUnaryOperator placer(RequestQueue.Queued q) {
    WorkerPool pool = parts.pool();
    int[] load = new int[pool.size()];
    int[] jobLoad = new int[pool.size()];
    for (TaskId t : state.deployment().liveTaskIds(q.vertex)) {
      load[state.deployment().placement(t)]++;
    }
    for (Vertex v : setup.plan().vertices()) {
      for (TaskId t : state.deployment().liveTaskIds(v.id())) {
        jobLoad[state.deployment().placement(t)]++;
      }
    }
    return index -> {
      int w = q.change.workerOf(index);
      if (w < 0) {
        if (pool.placeable().isEmpty()) {
          // called while the epoch is planned, in startNext: refused like an invalid request
          throw new IllegalArgumentException(
              "no worker can take the new tasks of '"
                  + q.vertex
                  + "' (lost "
                  + pool.lost()
                  + ", leaving "
                  + pool.leaving()
                  + ")");
        }
        w = pool.leastLoaded(load, jobLoad);
      }
      load[w]++;
      jobLoad[w]++;
      return w;
    };
  }

  /** Carries out what the driver decided, after noting the phase it reached. */
  private void apply(List<EpochDriver.Effect> effects) {
    Active a = active;
    long now = out.now();
    EpochDriver.Phase phase = a.driver.phase();
    // the hand-over time of every epoch the request takes (a staged protocol takes several)
    if (phase == EpochDriver.Phase.HANDING_OVER && a.handoverStartMillis < 0) {
      a.handoverStartMillis = now;
    } else if (phase != EpochDriver.Phase.HANDING_OVER && a.handoverStartMillis >= 0) {
      a.handoverMillis += now - a.handoverStartMillis;
      a.handoverStartMillis = -1;
    }
    out.startTimer(
        JobCore.STEP_TIMER,
        new JobInput.EpochStalled(a.driver.epoch()),
        setup.reconfiguration().stepTimeout());
    for (EpochDriver.Effect e : effects) {
      if (e instanceof EpochDriver.Deploy d) {
        Map<Integer, List<TaskSetup>> byWorker = new LinkedHashMap<>();
        for (TaskSetup s : d.setups()) {
          parts.deploying(s);
          byWorker.computeIfAbsent(d.placement().get(s.task()), k -> new ArrayList<>()).add(s);
        }
        byWorker.forEach(
            (w, setups) -> {
              a.deploying.add(w);
              out.emit(new JobEffect.Deploy(w, setups, attempts.current(), Map.of()));
            });
      } else if (e instanceof EpochDriver.Send send) {
        TaskAddress to = roster.address(send.to());
        if (to == null) {
          throw new IllegalStateException(
              "epoch " + a.driver.epoch() + " addresses unknown task " + send.to());
        }
        out.emit(new JobEffect.ToTask(to, send.command()));
      } else if (e instanceof EpochDriver.Done done) {
        finish(done.report());
      }
    }
    parts.crashPoint(); // with the phase's commands in flight
  }

  /** A worker deployed the epoch's new tasks; once all have, everyone learns their addresses. */
  void onTasksDeployed(JobInput.TasksDeployed m) {
    if (active == null || !active.deploying.remove(m.worker())) {
      return;
    }
    active.added.addAll(m.tasks());
    if (!active.deploying.isEmpty()) {
      return;
    }
    // everyone learns the new addresses before any command of the epoch can name them
    Set<TaskId> added = new HashSet<>();
    for (TaskAddress r : active.added) {
      added.add(r.task());
    }
    List<TaskAddress> book = roster.addresses();
    List<TaskAddress> started = new ArrayList<>();
    List<TaskAddress> others = new ArrayList<>();
    for (TaskAddress t : book) {
      (added.contains(t.task()) ? started : others).add(t);
    }
    parts.tasksStarted(started, book);
    out.emit(new JobEffect.Introduce(others, List.copyOf(active.added)));
    apply(active.driver.deployed());
  }

  void onReported(JobInput.EpochReported m) {
    if (m.report() instanceof EpochMessage.InputEnded e) {
      parts.inputEnded(e);
      return;
    }
    if (m.report() instanceof EpochMessage.References r) {
      parts.references(r);
      return;
    }
    if (active == null || !job.running()) {
      return;
    }
    apply(active.driver.on(m.report()));
  }

  void onStalled(JobInput.EpochStalled m) {
    if (active == null
        || active.driver.epoch() != m.epoch()
        || !job.running()
        || attempts.recovering()) {
      return;
    }
    String waiting =
        active.driver.phase() == EpochDriver.Phase.DEPLOYING
            ? "workers " + active.deploying + " to deploy the new tasks"
            : "tasks " + active.driver.waitingFor();
    String reason =
        "epoch "
            + m.epoch()
            + " ("
            + active.request.change
            + ") made no progress for "
            + DurationText.of(setup.reconfiguration().stepTimeout())
            + " in phase "
            + active.driver.phase()
            + ", waiting for "
            + waiting
            + " (koala.reconfiguration.step-timeout)";
    if (requests.stalled(active.request, reason)) {
      active = null; // answered: neither the rollback nor the job's end runs or answers it again
    }
    parts.failed(JobCore.coordinatorError("reconfiguration", reason));
  }

  private void finish(EpochDriver.EpochReport r) {
    Active a = active;
    active = null;
    out.cancelTimer(JobCore.STEP_TIMER);
    ReconfigurationReport report =
        report(
            a.request,
            r.epoch(),
            r.tasksBefore(),
            r.tasksAfter(),
            r.movedBuckets(),
            a.handoverMillis,
            r.transferred(),
            out.now() - a.startedMillis);
    reports.add(report);
    out.log().info("job {}: {}", out.jobId(), report);
    requests.complete(a.request, report);
    requests.completed(a.request);
    LiveDeployment now = state.deployment();
    for (Retirement.Publish p :
        state.changeRetirement(
            retirement ->
                retirement.epochEnded(
                    a.request.vertex,
                    r.epoch(),
                    now.retired(),
                    now.liveTaskIds(a.request.vertex)))) {
      out.tell(p.task(), p.command());
    }
    startNext();
    parts.epochEnded();
  }

  /** Every task finished: the running epoch, if any, will never complete. */
  void allTasksFinished() {
    if (active != null) {
      out.cancelTimer(JobCore.STEP_TIMER);
      requests.reject(
          active.request,
          "job " + out.jobId() + " finished before epoch " + active.driver.epoch() + " completed");
      active = null;
    }
  }

  /** The job ended: the running epoch's request is rejected with {@code reason}. */
  void jobEnded(String reason) {
    if (active != null) {
      requests.reject(active.request, reason);
      active = null;
    }
  }

  /**
   * A rollback: the running epoch's request is among those taken, and runs again (unless it
   * stalled: {@link RequestQueue#stalled}).
   */
  void rolledBack() {
    active = null;
  }

  /** The running reconfiguration's progress, given the tasks' metrics, or null when none runs. */
  ReconfigurationProgress progress(List<TaskMetricsSnapshot> tasks) {
    if (active == null) {
      return null;
    }
    return progressEstimator.estimate(
        active.request.change.toString(),
        active.driver.operator(),
        active.driver.epoch(),
        active.driver.phase(),
        active.startedMillis,
        requests.size(),
        state.retirement().retiring(active.driver.operator()),
        tasks,
        out.now());
  }

  /** Appends what the running epoch waits for, for diagnostics. */
  void describeWaiting(StringBuilder b) {
    if (active != null) {
      b.append("epoch ")
          .append(active.driver.epoch())
          .append(" in ")
          .append(active.driver.phase())
          .append(" waiting for ")
          .append(active.driver.waitingFor())
          .append("; ");
    }
  }

  private static ReconfigurationReport report(
      RequestQueue.Queued q,
      long epoch,
      int[] before,
      int[] after,
      int[] moved,
      long handoverMillis,
      EpochMessage.Transfer transferred,
      long durationMillis) {
    return new ReconfigurationReport(
        epoch,
        q.vertex.name(),
        q.change.kind(),
        Arrays.stream(before).boxed().toList(),
        Arrays.stream(after).boxed().toList(),
        Arrays.stream(moved).boxed().toList(),
        handoverMillis,
        durationMillis,
        transferred.keys(),
        transferred.bytes(),
        transferred.fetchRequests(),
        transferred.drainedKeys(),
        transferred.piggybackedKeys(),
        transferred.recordsParked(),
        transferred.lookupTableBytes());
  }
}
