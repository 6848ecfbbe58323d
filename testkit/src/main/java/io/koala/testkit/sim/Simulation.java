package io.koala.testkit.sim;

import io.koala.autoscaler.AutoscalerSettings;
import io.koala.coordinator.Change;
import io.koala.coordinator.EpochDriver;
import io.koala.coordinator.JobCore;
import io.koala.coordinator.JobEffect;
import io.koala.coordinator.JobInput;
import io.koala.coordinator.JobReply;
import io.koala.coordinator.JobSetup;
import io.koala.coordinator.PlannedCrash;
import io.koala.coordinator.RestartPolicy;
import io.koala.dataflow.Dataflow;
import io.koala.deploy.LiveDeployment;
import io.koala.job.ErrorInfo;
import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationReport;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.LogicalPlan;
import io.koala.plan.OperatorId;
import io.koala.plan.OperatorNode;
import io.koala.plan.TaskId;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.CheckpointMessage;
import io.koala.protocol.Deliver;
import io.koala.protocol.DrainSettings;
import io.koala.protocol.EpochMessage;
import io.koala.protocol.QueryMessage;
import io.koala.protocol.ReconfigurationProtocol;
import io.koala.protocol.StateMessage;
import io.koala.protocol.StateServerAddress;
import io.koala.routing.PartitionPolicy;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.TypeRegistry;
import io.koala.task.TaskTimer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * Runs a dataflow's job in one thread, deterministically for a seed: the job's real coordinator —
 * the {@link JobCore} the runtime's coordinator actor hosts — and its tasks' engines. Every message
 * goes into the FIFO queue of its (sender, receiver) pair; each step delivers the head of one
 * non-empty queue or fires one due timer, chosen by the seeded random; when nothing is due, the
 * virtual clock jumps to the next timer. The simulation is the core's host: it plays the worker (it
 * creates tasks, restored from in-memory snapshot images), the journal and the checkpoint files (in
 * memory), the timers and the clients.
 *
 * <pre>{@code
 * Simulation.Result r = Simulation.of(dataflow, settings, 42).run(1_000_000);
 * assertThat(r.finished()).isTrue();
 * List<Object> out = r.collected().get("out");
 * }</pre>
 */
public final class Simulation {
  private static final String COORDINATOR = SimulatedWorker.COORDINATOR;
  private static final String WORKER = SimulatedWorker.WORKER;

  /**
   * The coordinator's watchdogs (deployment, step and redeployment timeouts) never fire here: a run
   * whose job stalls shows as one that did not finish, with what it waits for.
   */
  private static final Duration NEVER = Duration.ofDays(365L * 100);

  private final Random random;
  private final long seed;
  private final ChannelSettings settings;
  private final Mailboxes mailboxes;
  private final SimulatedWorker worker;
  private final SimulatedStorage storage;
  private final List<String> sinks = new ArrayList<>(); // the job's sinks, by name
  private final RepublishedOutput republished;
  private final List<ErrorInfo> failures = new ArrayList<>();
  private final SimulatedClient client = new SimulatedClient();
  private SimulatedReader reader; // null: no state queries
  private final PlantedBugs planted = new PlantedBugs();
  private EnvironmentFaults environment; // none strike until environmentFaults(...)
  private long countedEpoch; // the epoch that started during a checkpoint, counted once
  private final ExecutionPlan plan;
  private final KryoSerde serde; // for reads from outside; each engine has its own
  private final SimulatedState state;
  private DrainSettings drainSettings = new DrainSettings(25, 512, 10);
  private ReconfigurationProtocol protocol = ReconfigurationProtocol.KOALA;
  private int bucketsPerStep = 16;
  private JobSetup.Checkpointing checkpointing; // null: the job takes no checkpoints
  private final List<PlannedCrash> crashPlan = new ArrayList<>();
  private JobCore core;
  private final Map<Object, CoreTimer> timers = new LinkedHashMap<>();
  private final Map<String, Integer> taken = new HashMap<>(); // per sink: results read so far
  private long now;
  private long steps;

  /** A timer of the job core: fires {@code input} at {@code at}, every {@code repeat} ms if > 0. */
  private record CoreTimer(long at, JobInput input, long repeat) {}

  /**
   * Bugs a test can plant, to prove that the checkers notice a broken protocol. Each applies to
   * every message it can change, as a bug in the implementation would.
   */
  public enum Fault {
    /**
     * Hand-overs claim the receiver already has all of the bucket's state: the state left at the
     * sender is lost.
     */
    LOSE_STATE_LOCATION,
    /**
     * A sender sends its peer markers before the forwarded batch queued just before them (sequence
     * numbers stay in order): held records are released ahead of older forwarded ones.
     */
    PEER_MARKER_BEFORE_FORWARDED,
    /**
     * A task's snapshot copies its store when the host gets round to it, not as the store was at
     * the barrier (hazard C2): effects of records after the barrier are in the checkpoint, and a
     * rollback applies them twice.
     */
    SNAPSHOT_AFTER_BARRIER,
    /**
     * A reconfiguration starts while a checkpoint is in progress (hazard C1): a bucket can then be
     * in two tasks' snapshots, or in none.
     */
    EPOCH_DURING_CHECKPOINT,
    /**
     * An owner's releases go straight to the holder's task, not through its state server behind the
     * reads the owner handed that server before: the holder may delete a copy before it answers a
     * read of it, which then answers "no state" (issue 48, N1).
     */
    RELEASE_AHEAD_OF_READS
  }

  private Simulation(LogicalPlan logical, ChannelSettings settings, long seed) {
    this.random = new Random(seed);
    this.seed = seed;
    this.environment = new EnvironmentFaults(seed, 0);
    this.settings = settings;
    this.plan = ExecutionPlan.of(logical);
    TypeRegistry registry = TypeRegistry.withDefaults();
    registry.register(logical.types().toArray(new Class<?>[0]));
    this.serde = new KryoSerde(registry);
    this.mailboxes = new Mailboxes(random);
    this.worker = new SimulatedWorker(this, plan, registry);
    this.storage = new SimulatedStorage(this, worker);
    for (ExecutionPlan.Vertex v : plan.vertices()) {
      if (v.tail().kind() == OperatorNode.Kind.SINK) {
        sinks.add(v.tail().id().name());
      }
    }
    this.republished = new RepublishedOutput(sinks, sink -> core.collected(sink));
    this.state = new SimulatedState(worker, plan, serde);
  }

  /** A simulation of {@code dataflow} with the given channel settings and seed. */
  public static Simulation of(Dataflow dataflow, ChannelSettings settings, long seed) {
    return new Simulation(dataflow.plan(), settings, seed);
  }

  /**
   * A simulation of a logical plan (a dataflow's, with sources replaced by a test driver's inputs).
   */
  public static Simulation of(LogicalPlan plan, ChannelSettings settings, long seed) {
    return new Simulation(plan, settings, seed);
  }

  // ------------------------------------------------ configuration, before the start

  /**
   * Rescales {@code operator} (the head of a chain) to {@code parallelism} tasks at virtual time
   * {@code atMillis}, with the even partition policy; requests run one at a time, in order.
   */
  public Simulation rescaleAt(long atMillis, String operator, int parallelism) {
    return changeAt(atMillis, new Change.Rescale(operator, parallelism, PartitionPolicy.even()));
  }

  /**
   * Asks the job for {@code change} at virtual time {@code atMillis} (or once the requests before
   * it were asked for); the job runs them one at a time, in order, as the runtime's does.
   */
  public Simulation changeAt(long atMillis, Change change) {
    client.plan(atMillis, change);
    return this;
  }

  /**
   * Delays every message by a seeded random 0..{@code millis} ms of virtual time (keeping each
   * sender-receiver pair FIFO), so that data keeps flowing while the control plane is in flight.
   * Default 0: messages are delivered in zero virtual time, in random order across pairs.
   */
  public Simulation latency(int millis) {
    if (millis < 0) {
      throw new IllegalArgumentException("latency must not be negative: " + millis);
    }
    mailboxes.maxLatency(millis);
    return this;
  }

  /** How owners drain retiring holders (DESIGN §6.5); default 25 piggybacked, 512 idle, 10 ms. */
  public Simulation drain(DrainSettings settings) {
    this.drainSettings = settings;
    return this;
  }

  /** How reconfigurations move state (default Koala). */
  public Simulation protocol(ReconfigurationProtocol protocol) {
    this.protocol = protocol;
    return this;
  }

  /**
   * The most buckets one epoch of a staged protocol moves (default 16, so that a simulated
   * reconfiguration of a staged protocol takes several epochs).
   */
  public Simulation bucketsPerStep(int buckets) {
    this.bucketsPerStep = buckets;
    return this;
  }

  /**
   * Takes a checkpoint every {@code intervalMillis} of virtual time, keeping {@code retained}: the
   * results of collecting sinks are then published only when a checkpoint covers them (or the job
   * ends), and a crash rolls the job back to the newest checkpoint.
   */
  public Simulation checkpoints(long intervalMillis, int retained) {
    this.checkpointing =
        new JobSetup.Checkpointing(
            Duration.ofMillis(intervalMillis),
            retained,
            new RestartPolicy(Integer.MAX_VALUE, Duration.ZERO, Duration.ZERO, NEVER),
            NEVER,
            NEVER,
            0);
    return this;
  }

  /**
   * Plans a crash of one task, chosen by the job's seeded crash injection among those alive when it
   * strikes: the job rolls back to its newest checkpoint (or its start) and goes on. Needs {@link
   * #checkpoints}.
   */
  public Simulation crash(PlannedCrash when) {
    if (checkpointing == null) {
      throw new IllegalStateException("a crash needs checkpoints: call checkpoints(...) first");
    }
    crashPlan.add(when);
    return this;
  }

  /**
   * Reads value state {@code state} of keyed operator {@code operator} (the head of a chain) for a
   * random one of {@code keys} every {@code everyMillis} of virtual time while the job runs, as a
   * service's {@code JobHandle.query} does (the reads of {@link SimulatedReader}); the state must
   * be a {@code Long} that only grows. A read that answers less than the key had when it was made
   * fails the run.
   */
  public Simulation reads(String operator, String state, List<?> keys, long everyMillis) {
    if (everyMillis <= 0) {
      throw new IllegalArgumentException("reads need a positive interval: " + everyMillis);
    }
    this.reader =
        new SimulatedReader(
            this, this.state, new Random(seed), serde, operator, state, keys, everyMillis);
    return this;
  }

  /**
   * Makes what the job runs on fail, as {@link EnvironmentFaults} says with probability {@code p}:
   * snapshots unreadable or corrupt at a restore, the journal failing to record a checkpoint, and a
   * snapshot whose write never reports or a source that stalls at a checkpoint's trigger (ended by
   * a checkpoint timeout of {@value #TIMEOUT_INTERVALS} checkpoint intervals). With an odd seed one
   * timed-out checkpoint in a row is tolerated (abandoned while the job goes on), with an even one
   * none is. Each fault rolls the job back at most once, and the output must not change but for
   * what a fallback past a corrupt checkpoint publishes again ({@link Result#republished}). Needs
   * {@link #checkpoints}.
   */
  public Simulation environmentFaults(double p) {
    if (checkpointing == null) {
      throw new IllegalStateException("environment faults need checkpoints: call checkpoints(...)");
    }
    environment = new EnvironmentFaults(seed, p);
    checkpointing =
        new JobSetup.Checkpointing(
            checkpointing.interval(),
            checkpointing.retained(),
            checkpointing.restarts(),
            checkpointing.redeployTimeout(),
            checkpointing.interval().multipliedBy(TIMEOUT_INTERVALS),
            (int) (seed & 1));
    return this;
  }

  /** Environment faults' checkpoint timeout, in checkpoint intervals. */
  static final int TIMEOUT_INTERVALS = 25;

  EnvironmentFaults environment() {
    return environment;
  }

  /** Plants {@code fault} (tests of the checkers only). */
  public Simulation plant(Fault fault) {
    planted.plant(fault);
    return this;
  }

  // ------------------------------------------------ running

  /** What a run produced. */
  public record Result(
      boolean finished,
      long steps,
      long virtualMillis,
      Map<String, List<Object>> collected,
      List<ErrorInfo> failures,
      List<EpochDriver.EpochReport> reconfigurations,
      Map<TaskId, TaskMetricsSnapshot> metrics,
      String unfinished,
      int faultsApplied,
      int completedRequests,
      int noopRequests,
      int refusedRequests,
      List<TaskId> releasedHolders,
      List<String> crashes,
      int recoveries,
      long checkpoints,
      long stateReads,
      long stateReadsByHolder,
      Map<String, List<Object>> republished) {

    /** The sum of a counter over every task. */
    public long total(java.util.function.ToLongFunction<TaskMetricsSnapshot.Reconfiguration> f) {
      return metrics.values().stream().mapToLong(m -> f.applyAsLong(m.reconfiguration())).sum();
    }
  }

  /**
   * Starts the job and runs until it has finished and every message has been delivered, a task
   * failed, or {@code maxSteps} steps were taken.
   */
  public Result run(long maxSteps) {
    start();
    while (steps < maxSteps && failures.isEmpty() && !done()) {
      if (!step(Long.MAX_VALUE)) {
        break; // nothing more will ever happen
      }
    }
    return finish();
  }

  /** Starts the job at the current virtual time; once. */
  public void start() {
    if (core != null) {
      return;
    }
    // as many workers as the migrations asked for so far name: all are hosted by this thread
    int workers = client.highestWorker() + 1;
    JobSetup setup =
        new JobSetup(
            "sim",
            plan,
            JobSetup.Workers.of(workers),
            settings,
            NEVER,
            new JobSetup.Reconfiguration(
                protocol, bucketsPerStep, drainSettings, NEVER, List.of(), AutoscalerSettings.OFF),
            checkpointing,
            false,
            null,
            changed -> {
              if (changed.status() == JobStatus.FAILED && changed.error() != null) {
                failures.add(changed.error());
              }
            },
            new JobSetup.Planted(planted.contains(Fault.EPOCH_DURING_CHECKPOINT)));
    core = new JobCore(setup, now);
    carryOut(core.start());
    if (!crashPlan.isEmpty()) {
      carryOut(core.on(new JobInput.PlanCrashes(seed, List.copyOf(crashPlan)), now));
    }
  }

  /**
   * Runs what is due up to virtual time {@code millis} — messages, timers, requested
   * reconfigurations — moving the clock to each next due time and finally to {@code millis} (if
   * later than now), until nothing more is due by then, a task failed, or {@code maxSteps} more
   * steps were taken. With {@code millis} = {@link #now()} the run settles without the clock
   * moving: afterwards no message is in flight. Returns whether it settled (false: the step budget
   * ran out, or a task failed).
   */
  public boolean runUntil(long millis, long maxSteps) {
    start();
    long limit = steps + maxSteps;
    while (failures.isEmpty()) {
      if (steps >= limit) {
        return false;
      }
      if (!step(millis)) {
        now = Math.max(now, millis);
        return true;
      }
    }
    return false;
  }

  private boolean done() {
    return core.status().isTerminal() && mailboxes.idle();
  }

  /**
   * Takes one step: runs one due action, or moves the clock to the next due time if that is at most
   * {@code horizon}; false when nothing is due by then.
   */
  private boolean step(long horizon) {
    List<Runnable> due = new ArrayList<>();
    List<Mailboxes.Pair> arrived = new ArrayList<>();
    long next = mailboxes.due(now, arrived);
    arrived.forEach(p -> due.add(() -> deliver(p)));
    next = Math.min(next, worker.due(now, due));
    for (Map.Entry<Object, CoreTimer> t : timers.entrySet()) {
      if (t.getValue().at() <= now) {
        Object key = t.getKey();
        due.add(() -> fire(key));
      } else {
        next = Math.min(next, t.getValue().at());
      }
    }
    if (reader != null) {
      boolean running = !core.status().isTerminal();
      long read = reader.nextDue(running);
      if (read <= now) {
        due.add(() -> reader.act(now, running, core.attempt()));
      } else {
        next = Math.min(next, read);
      }
    }
    long request = client.nextDue();
    if (request <= now) {
      due.add(() -> toCore(client.askNext()));
    } else {
      next = Math.min(next, request);
    }
    if (due.isEmpty()) {
      if (next == Long.MAX_VALUE || next > horizon) {
        return false;
      }
      now = next;
      return true;
    }
    steps++;
    due.get(random.nextInt(due.size())).run();
    return true;
  }

  private static boolean ownershipStays(EpochDriver.Phase phase) {
    return phase == EpochDriver.Phase.DEPLOYING
        || phase == EpochDriver.Phase.PREPARING
        || phase == EpochDriver.Phase.CATCHING_UP;
  }

  /**
   * Asks the job for {@code change} now, after those asked for before it, and runs, without moving
   * the clock, until its epoch hands ownership over (its new tasks started, its receivers prepared,
   * its senders caught up), so that what a test feeds next flows while ownership moves; returns its
   * request number ({@link #outcome}).
   */
  public int reconfigure(Change change) {
    start();
    while (client.anyPending()) {
      toCore(client.askNext());
    }
    toCore(client.ask(change, now));
    while (ownershipStays(core.epochPhase()) && failures.isEmpty() && step(now)) {
      // the new tasks are deployed, the receivers prepare, the senders catch up
    }
    return client.askedCount() - 1;
  }

  private void fire(Object key) {
    CoreTimer t = timers.remove(key);
    if (t.repeat() > 0) {
      timers.put(key, new CoreTimer(now + t.repeat(), t.input(), t.repeat()));
    }
    toCore(t.input());
  }

  /** The job core takes {@code input} now; its effects are carried out. */
  private void toCore(JobInput input) {
    carryOut(core.on(input, now));
    if (planted.contains(Fault.EPOCH_DURING_CHECKPOINT)
        && core.runningEpoch() > 0
        && core.runningEpoch() != countedEpoch
        && core.checkpointInProgress()) {
      countedEpoch = core.runningEpoch();
      planted.apply(Fault.EPOCH_DURING_CHECKPOINT);
    }
  }

  // ------------------------------------------------ the network

  /** Sends {@code message} from {@code from} to {@code to}, after planted bugs. */
  void send(Object from, Object to, Object message) {
    if (message instanceof StateMessage.Release
        && to instanceof StateServerAddress server
        && planted.apply(Fault.RELEASE_AHEAD_OF_READS)) {
      to = server.task();
    }
    Mailboxes.Pair p = new Mailboxes.Pair(from, to);
    if (message instanceof Deliver d) {
      message = planted.onSend(mailboxes.queue(p), d, to);
    }
    mailboxes.send(p, message, now);
  }

  /** Whether {@code fault} is planted; if so, it is counted as applied once more. */
  boolean plantedAndApplied(Fault fault) {
    return planted.apply(fault);
  }

  private void deliver(Mailboxes.Pair p) {
    Object m = mailboxes.take(p);
    if (COORDINATOR.equals(p.to())) {
      toCore(worker.toCoordinator(m));
    } else if (p.to() instanceof TaskId t) {
      worker.toTask(t, m);
    } else if (p.to() instanceof StateServerAddress server) {
      worker.serve(server, m);
    } else if (SimulatedReader.READER.equals(p.to())) {
      reader.onAnswer((QueryMessage.Answer) m, now, core.attempt());
    } else {
      throw new IllegalStateException("no endpoint " + p.to());
    }
  }

  /** Rewrites what task {@code task} has in flight to the coordinator. */
  void rewrite(TaskId task, UnaryOperator<Object> rewrite) {
    ArrayDeque<Object> q = mailboxes.queue(new Mailboxes.Pair(task, COORDINATOR));
    List<Object> kept = new ArrayList<>(q);
    q.clear();
    kept.forEach(m -> q.add(rewrite.apply(m)));
  }

  /**
   * Drops every message in flight to or from a task or state server, after showing it to {@code
   * lost}.
   */
  void dropTaskMessages(Consumer<Object> lost) {
    mailboxes.drop(p -> !(p.from() instanceof String) || !(p.to() instanceof String), lost);
  }

  void forEachMessage(Consumer<Object> visitor) {
    mailboxes.forEach(visitor);
  }

  /** A state read broke its guarantee: the run fails, saying how. */
  void readFailed(String what) {
    failed(
        ErrorInfo.of(
            "simulation",
            new TaskId(new OperatorId(SimulatedReader.READER), 0),
            null,
            new IllegalStateException(what)));
  }

  /** The run fails with {@code error}. */
  void failed(ErrorInfo error) {
    failures.add(error);
  }

  boolean checkpointing() {
    return checkpointing != null;
  }

  /** The checkpoints the job may restore now ({@link JobCore#checkpointsRetained}). */
  int checkpointsRetained() {
    return core.checkpointsRetained();
  }

  // ------------------------------------------------ the job core's host

  private void carryOut(List<JobEffect> effects) {
    for (JobEffect e : effects) {
      republished.see(e);
      if (e instanceof JobEffect.Reply<?> r) {
        r.send();
      } else if (e instanceof JobEffect.ToTask t) {
        if (t.message() instanceof CheckpointMessage.TriggerCheckpoint trigger) {
          maybeStall(t.task().task(), trigger.checkpointId());
        }
        send(COORDINATOR, t.task().task(), t.message());
      } else if (e instanceof JobEffect.StartTasks s) {
        s.tasks()
            .forEach(t -> send(COORDINATOR, t.task(), new SimulatedWorker.Start(s.startMillis())));
      } else if (e instanceof JobEffect.Deploy d) {
        worker.deploy(d);
      } else if (e instanceof JobEffect.CancelTasks c) {
        c.tasks().forEach(t -> worker.cancel(t.task()));
      } else if (e instanceof JobEffect.CrashTask c) {
        worker.crash(c.task().task());
      } else if (e instanceof JobEffect.OpenAttempt a) {
        opened(a);
      } else if (e instanceof JobEffect.StopAttemptsBefore s) {
        worker.stopAttemptsBefore(s.attempt());
      } else if (e instanceof JobEffect.StopTask s) {
        worker.release(s.task(), s.attempt());
      } else if (e instanceof JobEffect.CheckWorker c) {
        send(WORKER, COORDINATOR, new JobInput.TaskStopChecked(c.task(), c.attempt(), true));
      } else if (e instanceof JobEffect.AskReleasedMetrics a) {
        TaskId task = a.task().task();
        send(
            task,
            COORDINATOR,
            new JobInput.FromAttempt(
                a.attempt(), new JobInput.HolderReleased(task, worker.metrics(task))));
      } else if (e instanceof JobEffect.GatherMetrics g) {
        List<TaskMetricsSnapshot> got = new ArrayList<>();
        g.tasks().forEach(t -> got.add(worker.metrics(t.task())));
        send(WORKER, COORDINATOR, new JobInput.MetricsGathered(g.request(), got));
      } else if (e instanceof JobEffect.StartTimer t) {
        timers.remove(t.key());
        if (t.delay().compareTo(NEVER) < 0) {
          long delay = t.delay().toMillis();
          timers.put(t.key(), new CoreTimer(now + delay, t.input(), t.repeat() ? delay : 0));
        }
      } else if (e instanceof JobEffect.CancelTimer t) {
        timers.remove(t.key());
      } else if (e instanceof JobEffect.ToSelf s) {
        send(COORDINATOR, COORDINATOR, s.input());
      } else if (!storage.carryOut(e)
          && !(e instanceof JobEffect.WatchTasks
              || e instanceof JobEffect.WatchWorker
              || e instanceof JobEffect.Introduce
              || e instanceof JobEffect.StopJob)) {
        // a crash is reported without DeathWatch, tasks are addressed by their ids, and a
        // finished job's tasks stay for their final metrics
        throw new IllegalStateException("unhandled " + e);
      }
    }
  }

  /**
   * Source {@code task} stalls at the trigger of checkpoint {@code checkpointId} when the
   * environment says so: it takes no message until the checkpoint has timed out and the next is
   * triggered, while the others' barriers hold channels downstream.
   */
  private void maybeStall(TaskId task, long checkpointId) {
    if (environment.sourceStalls(core.attempt(), task, checkpointId)) {
      Duration stall = checkpointing.timeout().plus(checkpointing.interval().multipliedBy(2));
      mailboxes.stall(task, now + stall.toMillis());
    }
  }

  /**
   * A new attempt opens: from a rollback no fault was injected for, the simulation records a
   * failure, since nothing but a planned crash or an environment fault may roll a simulated job
   * back.
   */
  private void opened(JobEffect.OpenAttempt a) {
    if (a.attempt() > 0
        && core.rollbacks() > core.injectedCrashes().size() + environment.attemptsStruck()) {
      failed(
          ErrorInfo.of(
              "simulation",
              new TaskId(new OperatorId("coordinator"), 0),
              null,
              new IllegalStateException(
                  "the job rolled back with no fault injected: " + a.cause())));
    }
  }

  // ------------------------------------------------ what tests and the test driver read

  /** The virtual clock, in milliseconds since the start. */
  public long now() {
    return now;
  }

  /**
   * Lets the tasks of source {@code source} poll now, rather than at their next poll timer: their
   * input has grown (a test driver appended to it).
   */
  public void wake(OperatorId source) {
    for (SimulatedTask t : worker.tasks.values()) {
      if (t.id.operator().equals(source) && t.timers.containsKey(TaskTimer.POLL)) {
        t.timers.put(TaskTimer.POLL, now);
      }
    }
  }

  /** Takes the records the collecting sink {@code sink} has published since the last call. */
  public List<Object> takeCollected(String sink) {
    List<Object> all = core.collected(sink);
    int from = taken.getOrDefault(sink, 0);
    taken.put(sink, all.size());
    return all.subList(from, all.size());
  }

  /** The failures so far (a failed task processes nothing more). */
  public List<ErrorInfo> failures() {
    return List.copyOf(failures);
  }

  /** The reconfiguration epochs completed so far (and not undone by a rollback), in order. */
  public List<EpochDriver.EpochReport> reconfigurations() {
    List<EpochDriver.EpochReport> out = new ArrayList<>();
    for (ReconfigurationReport r : core.reports()) {
      out.add(
          new EpochDriver.EpochReport(
              r.epoch(),
              new OperatorId(r.operator()),
              ints(r.movedBuckets()),
              ints(r.tasksBefore()),
              ints(r.tasksAfter()),
              new EpochMessage.Transfer(
                  r.keysTransferred(),
                  r.stateBytesTransferred(),
                  r.fetchRequests(),
                  r.keysDrained(),
                  r.piggybackedKeys(),
                  r.recordsParked(),
                  r.lookupTableBytes())));
    }
    return out;
  }

  private static int[] ints(List<Integer> values) {
    return values.stream().mapToInt(Integer::intValue).toArray();
  }

  /**
   * How the reconfiguration asked for with {@link #changeAt} as the {@code n}-th request ended, or
   * null if it has not yet.
   */
  public JobReply.Outcome outcome(int n) {
    return client.outcome(n);
  }

  /** Requests asked for so far. */
  public int requests() {
    return client.askedCount() + client.pendingCount();
  }

  /** Requests found to change nothing so far. */
  public int noopRequests() {
    return client.count(o -> o instanceof JobReply.Completed c && c.report().epoch() == 0);
  }

  /** Requests completed so far, with an epoch (not found to change nothing). */
  public int completedRequests() {
    return client.count(o -> o instanceof JobReply.Completed c && c.report().epoch() > 0);
  }

  /** Requests refused so far (a bounded source had read all its input). */
  public int refusedRequests() {
    return client.count(o -> o instanceof JobReply.Rejected);
  }

  /** Whether a reconfiguration runs or waits to start. */
  public boolean reconfiguring() {
    return core.reconfiguring() || client.anyPending();
  }

  /** The deployment as it is now (live tasks and routing of every operator). */
  public LiveDeployment deployment() {
    start();
    return core.deployment();
  }

  /** The execution plan the simulation runs. */
  public ExecutionPlan plan() {
    return plan;
  }

  /**
   * The {@link io.koala.state.ValueState} named {@code stateName} of {@code key} at keyed operator
   * {@code vertex} (the head of its tasks' chain), read from wherever its owner would find it: its
   * own store, or the store of the task that still holds the key after a reconfiguration moved its
   * bucket (state moves lazily). {@code null} if the key has no such state. Call while no batch
   * runs (between steps).
   *
   * @param type the class the operator declared the state with
   */
  public <V> V valueState(OperatorId vertex, Object key, String stateName, Class<V> type) {
    return state.value(vertex, key, stateName, type);
  }

  /** What the run produced; closes every task. */
  public Result finish() {
    start();
    Map<TaskId, TaskMetricsSnapshot> metrics = new LinkedHashMap<>(worker.releasedMetrics);
    StringBuilder unfinished = new StringBuilder(core.waitingFor());
    if (client.anyPending()) {
      unfinished.append(client.pendingCount()).append(" requests not asked for; ");
    }
    for (SimulatedTask t : worker.tasks.values()) {
      TaskMetricsSnapshot m = t.engine.metrics();
      metrics.put(t.id, m);
      if (!t.finished) {
        unfinished.append(t.id).append(' ').append(m.status());
        if (core.checkpointInProgress()) {
          unfinished.append(" ").append(t.engine.alignment());
        }
        unfinished.append("; ");
      }
    }
    worker.close();
    Map<String, List<Object>> collected = new LinkedHashMap<>();
    for (String sink : sinks) {
      List<Object> got = core.collected(sink);
      if (!got.isEmpty()) {
        collected.put(sink, new ArrayList<>(got));
      }
    }
    List<String> crashes = new ArrayList<>();
    core.injectedCrashes().forEach(c -> crashes.add(c.toString()));
    crashes.addAll(environment.injected());
    return new Result(
        core.status() == JobStatus.FINISHED && mailboxes.idle(),
        steps,
        now,
        collected,
        List.copyOf(failures),
        reconfigurations(),
        metrics,
        unfinished.toString(),
        planted.applied(),
        completedRequests(),
        noopRequests(),
        refusedRequests(),
        List.copyOf(worker.released),
        crashes,
        core.rollbacks(),
        core.checkpointsCommitted(),
        reader == null ? 0 : reader.reads,
        reader == null ? 0 : reader.byHolder,
        republished.repeatable());
  }
}
