package io.koala.testkit.sim;

import io.koala.core.Buckets;
import io.koala.core.ChannelSettings;
import io.koala.core.CheckpointBarrier;
import io.koala.core.Credit;
import io.koala.core.Deliver;
import io.koala.core.DeploymentPlan;
import io.koala.core.EndOfChannel;
import io.koala.core.ErrorInfo;
import io.koala.core.ForwardedBatch;
import io.koala.core.Handover;
import io.koala.core.InputChannel;
import io.koala.core.KoalaMessage;
import io.koala.core.PartitionPolicy;
import io.koala.core.PeerMarker;
import io.koala.core.RecordBatch;
import io.koala.core.StateServerAddress;
import io.koala.core.TaskEngine;
import io.koala.core.TaskMetricsSnapshot;
import io.koala.core.TaskSetup;
import io.koala.core.checkpoint.CheckpointMessage;
import io.koala.core.checkpoint.Checkpoints;
import io.koala.core.checkpoint.OutputCommit;
import io.koala.core.checkpoint.TaskCheckpoint;
import io.koala.core.reconfig.BucketHandover;
import io.koala.core.reconfig.Change;
import io.koala.core.reconfig.Draining;
import io.koala.core.reconfig.EpochDriver;
import io.koala.core.reconfig.EpochMessage;
import io.koala.core.reconfig.InputEnds;
import io.koala.core.reconfig.KeyLocations;
import io.koala.core.reconfig.LiveDeployment;
import io.koala.core.reconfig.Protocol;
import io.koala.core.reconfig.ReconfigurationDriver;
import io.koala.core.reconfig.ReconfigurationPlan;
import io.koala.core.reconfig.Retirement;
import io.koala.core.reconfig.StateMessage;
import io.koala.core.reconfig.StateServing;
import io.koala.core.state.KeyedStateBackend;
import io.koala.dataflow.Dataflow;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.LogicalPlan;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.serialization.Codecs;
import io.koala.serialization.KeyEncoder;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.TypeRegistry;
import io.koala.store.InMemoryStateStore;
import io.koala.store.ReadTxn;
import io.koala.store.StateStore;
import io.koala.store.Table;
import io.koala.store.WriteTxn;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Runs a dataflow's tasks in one thread, deterministically for a seed. Every message an engine
 * sends goes into the FIFO queue of its (sender, receiver) pair; each step delivers the head of one
 * non-empty queue or fires one due timer, chosen by the seeded random; when nothing is due, the
 * virtual clock jumps to the next timer. Collecting sinks' results are gathered as a client would.
 *
 * <pre>{@code
 * Simulation.Result r = Simulation.of(dataflow, settings, 42).run(1_000_000);
 * assertThat(r.finished()).isTrue();
 * List<Object> out = r.collected().get("out");
 * }</pre>
 */
public final class Simulation {
  private static final String CLIENT = "client";
  private static final long TICK_MILLIS = 1000;

  private final Random random;
  private final Map<TaskId, Node> nodes = new LinkedHashMap<>();
  private final Map<Pair, ArrayDeque<KoalaMessage>> queues = new LinkedHashMap<>();
  private final Map<Pair, ArrayDeque<Long>> arrivals = new HashMap<>(); // per queued message
  private int maxLatency;
  private final List<Pair> busy = new ArrayList<>();
  private final Map<Integer, InputChannel> clientChannels = new HashMap<>();
  private final Map<TaskId, String> sinkOf = new HashMap<>();
  private final Map<String, List<Object>> collected = new LinkedHashMap<>();
  private final List<ErrorInfo> failures = new ArrayList<>();
  private final ArrayDeque<Request> requests = new ArrayDeque<>();
  private final List<EpochDriver.EpochReport> reports = new ArrayList<>();
  private final java.util.EnumSet<Fault> planted = java.util.EnumSet.noneOf(Fault.class);
  private int faultsApplied;
  private int noops;
  private int refused;
  private final ExecutionPlan plan;
  private final TypeRegistry registry;
  private final KryoSerde serde; // for reads from outside; each engine has its own
  private LiveDeployment deployment;
  private ReconfigurationDriver epoch;
  private Draining.Settings drainSettings = new Draining.Settings(25, 512, 10);
  private Protocol protocol = Protocol.KOALA;
  private int bucketsPerStep = 16;
  private Retirement retirement;
  private final List<TaskId> released = new ArrayList<>();
  private InputEnds inputEnds = new InputEnds();
  private final Map<TaskId, TaskMetricsSnapshot> releasedMetrics = new LinkedHashMap<>();
  private long nextEpoch = 1;
  private long now;
  private long steps;

  // checkpoints and crashes (DESIGN §8); null: the job takes no checkpoints
  private Checkpoints<TaskImage, CoordinatorState> checkpoints;
  private final OutputCommit<Object> output = new OutputCommit<>();
  private LiveDeployment initialDeployment;
  private final List<Request> taken = new ArrayList<>(); // requests started, in order
  private final List<Crash> crashPlan = new ArrayList<>();
  private final List<String> crashes = new ArrayList<>();
  private boolean justCommitted; // a checkpoint was recorded in the last step; no task heard yet
  private int recoveries;
  private long committedCheckpoints;

  /**
   * What the coordinator keeps of itself with a checkpoint: the deployment, the retiring holders,
   * and how many requests had been taken (and with what outcome) — those taken since are run again
   * after a rollback to it, so that no reconfiguration a user asked for is silently undone.
   */
  private record CoordinatorState(
      LiveDeployment deployment,
      Retirement retirement,
      int taken,
      int reports,
      int noops,
      int refused) {}

  /** A task's snapshot: every entry of its store at the barrier, and its other state. */
  private record TaskImage(Map<Table, List<byte[][]>> entries, byte[] metadata) {
    static TaskImage of(ReadTxn txn, byte[] metadata) {
      Map<Table, List<byte[][]>> entries = new EnumMap<>(Table.class);
      if (txn != null) {
        for (Table t : Table.values()) {
          List<byte[][]> list = new ArrayList<>();
          txn.scan(t, new byte[0], (k, v) -> list.add(new byte[][] {k, v}));
          entries.put(t, list);
        }
      }
      return new TaskImage(entries, metadata);
    }

    StateStore restore() {
      StateStore store = new InMemoryStateStore();
      WriteTxn txn = store.beginWrite();
      entries.forEach((t, list) -> list.forEach(e -> txn.put(t, e[0].clone(), e[1].clone())));
      txn.commit();
      return store;
    }
  }

  /** A host's report that a task wrote its snapshot (it travels with the task's results). */
  private record Snapshotted(
      TaskId task, long checkpointId, ReadTxn txn, byte[] metadata, StateStore store)
      implements KoalaMessage {}

  /**
   * When a planned crash happens: at a virtual time, when an epoch of a reconfiguration reaches a
   * phase, while a checkpoint is in progress, or just after one is durably recorded.
   */
  public sealed interface Crash {
    /** At virtual time {@code millis}. */
    record At(long millis) implements Crash {}

    /** When the next epoch reaches {@code phase}. */
    record InPhase(EpochDriver.Phase phase) implements Crash {}

    /** While the next checkpoint is in progress, once {@code snapshots} snapshots arrived. */
    record InCheckpoint(int snapshots) implements Crash {}

    /**
     * Right after the next checkpoint is durably recorded, before any task hears that it is
     * committed: what tasks publish on commit must then be published by their restore.
     */
    record AfterCommit() implements Crash {}
  }

  /** A reconfiguration asked for at virtual time {@code at}. */
  private record Request(long at, Change change) {}

  /** An ordered pair of endpoints: a task, a task's state server, or the client. */
  private record Pair(Object from, Object to) {}

  /** One task: its engine, store and pending timers. */
  private final class Node implements TaskEngine.Services {
    final TaskId id;
    final StateStore store;
    TaskEngine engine;
    final EnumMap<TaskEngine.Timer, Long> timers = new EnumMap<>(TaskEngine.Timer.class);
    long nextTick = TICK_MILLIS;
    boolean finished;
    private long nanos;

    Node(TaskId id, StateStore store) {
      this.id = id;
      this.store = store;
    }

    @Override
    public void send(Object target, KoalaMessage message) {
      enqueue(id, target, message);
    }

    @Override
    public void schedule(TaskEngine.Timer timer, long delayMillis) {
      timers.put(timer, now + Math.max(0, delayMillis));
    }

    @Override
    public void finished() {
      finished = true;
      retirement.taskFinished(id).forEach(Simulation.this::holderUnreferenced);
      if (checkpoints != null) {
        carryOutCheckpoints(checkpoints.taskFinished(id));
      }
    }

    @Override
    public void failed(ErrorInfo error) {
      failures.add(error);
    }

    @Override
    public long currentTimeMillis() {
      return now;
    }

    @Override
    public long nanoTime() {
      return now * 1_000_000 + (++nanos);
    }

    @Override
    public boolean checkpointing() {
      return checkpoints != null;
    }

    @Override
    public void snapshot(long checkpointId, ReadTxn txn, byte[] metadata) {
      ReadTxn view = txn;
      if (txn != null && planted.contains(Fault.SNAPSHOT_AFTER_BARRIER)) {
        txn.close(); // the bug: the copy reads the store when it runs, not at the barrier
        view = null;
        faultsApplied++;
      }
      // the host writes the snapshot later (asynchronously), then reports with the results
      enqueue(id, CLIENT, new Snapshotted(id, checkpointId, view, metadata, store));
    }
  }

  private Simulation(LogicalPlan logical, ChannelSettings settings, long seed) {
    this.random = new Random(seed);
    this.plan = ExecutionPlan.of(logical);
    DeploymentPlan initial = DeploymentPlan.of("sim", plan, 1, settings);
    this.deployment = LiveDeployment.of(plan, initial);
    this.initialDeployment = deployment.copy();
    this.registry = TypeRegistry.withDefaults();
    registry.register(logical.types().toArray(new Class<?>[0]));
    this.serde = new KryoSerde(registry);
    for (TaskSetup setup : initial.setups().values()) {
      addTask(setup);
    }
  }

  private Node addTask(TaskSetup setup) {
    return addTask(setup, null, false);
  }

  /**
   * Adds a task, restored from {@code image} if not null: as a finished task or retired holder if
   * {@code finished}, else to be started.
   */
  private Node addTask(TaskSetup setup, TaskImage image, boolean finished) {
    ExecutionPlan.Vertex vertex = plan.vertex(setup.task().operator());
    StateStore store =
        !vertex.isKeyed() ? null : image == null ? new InMemoryStateStore() : image.restore();
    Node node = new Node(setup.task(), store);
    node.engine = new TaskEngine(setup, vertex, node.store, new KryoSerde(registry), node);
    if (image != null) {
      TaskCheckpoint cp = TaskCheckpoint.decode(image.metadata());
      if (finished) {
        node.engine.startAsHolder(cp);
        node.finished = true;
      } else {
        node.engine.restore(cp);
      }
    }
    nodes.put(setup.task(), node);
    clientChannels.put(
        setup.clientChannel(),
        new InputChannel(setup.clientChannel(), setup.task(), 0, setup.settings().credits()));
    sinkOf.put(setup.task(), vertex.tail().id().name());
    return node;
  }

  /**
   * Rescales {@code operator} (the head of a keyed chain) to {@code parallelism} tasks at virtual
   * time {@code atMillis}, with the even partition policy; requests run one at a time, in order.
   */
  public Simulation rescaleAt(long atMillis, String operator, int parallelism) {
    return changeAt(atMillis, new Change.Rescale(operator, parallelism, PartitionPolicy.even()));
  }

  /**
   * Carries out {@code change} at virtual time {@code atMillis} (or once the reconfigurations
   * requested before it are done); requests run one at a time, in order.
   */
  public Simulation changeAt(long atMillis, Change change) {
    requests.add(new Request(atMillis, change));
    return this;
  }

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
    EPOCH_DURING_CHECKPOINT
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
    this.maxLatency = millis;
    return this;
  }

  /** How owners drain retiring holders (DESIGN §6.5); default 25 piggybacked, 512 idle, 10 ms. */
  public Simulation drain(Draining.Settings settings) {
    this.drainSettings = settings;
    return this;
  }

  /** How reconfigurations move state (default Koala). */
  public Simulation protocol(Protocol protocol) {
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
    this.checkpoints = new Checkpoints<>(new Checkpoints.Settings(intervalMillis, retained), 0);
    return this;
  }

  /**
   * Plans a crash of one task, chosen by the seeded random among those alive when it happens: the
   * job rolls back to its newest checkpoint (or its start) and goes on. Needs {@link #checkpoints}.
   */
  public Simulation crash(Crash when) {
    if (checkpoints == null) {
      throw new IllegalStateException("a crash needs checkpoints: call checkpoints(...) first");
    }
    crashPlan.add(when);
    return this;
  }

  /** Plants {@code fault} (tests of the checkers only). */
  public Simulation plant(Fault fault) {
    planted.add(fault);
    return this;
  }

  /** The message to enqueue instead of {@code d}, after planted bugs. */
  private KoalaMessage plantedBug(ArrayDeque<KoalaMessage> q, Deliver d, Object to) {
    if (d.item() instanceof Handover h && planted.contains(Fault.LOSE_STATE_LOCATION)) {
      faultsApplied++;
      BucketHandover b = h.bucket();
      BucketHandover lost =
          new BucketHandover(
              b.bucket(),
              ((TaskId) to).index(),
              b.filter(),
              b.drainCursor(),
              b.drained(),
              java.util.List.of());
      return new Deliver(
          d.channel(), d.seq(), new Handover(lost, h.timers(), h.pullAtOnce(), h.writesBefore()));
    }
    if (planted.contains(Fault.PEER_MARKER_BEFORE_FORWARDED)
        && d.item() instanceof PeerMarker
        && q.peekLast() instanceof Deliver prev
        && prev.channel() == d.channel()
        && prev.item() instanceof ForwardedBatch) {
      faultsApplied++;
      q.pollLast();
      q.add(new Deliver(prev.channel(), prev.seq(), d.item()));
      return new Deliver(d.channel(), d.seq(), prev.item());
    }
    return d;
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
      int noopRequests,
      int refusedRequests,
      List<TaskId> releasedHolders,
      List<String> crashes,
      int recoveries,
      long checkpoints) {

    /** The sum of a counter over every task. */
    public long total(java.util.function.ToLongFunction<TaskMetricsSnapshot.Reconfiguration> f) {
      return metrics.values().stream().mapToLong(m -> f.applyAsLong(m.reconfiguration())).sum();
    }
  }

  /**
   * Starts every task and runs until every task has finished and every message has been delivered,
   * a task failed, or {@code maxSteps} steps were taken.
   */
  public Result run(long maxSteps) {
    start();
    while (steps < maxSteps && failures.isEmpty() && !(allFinished() && busy.isEmpty())) {
      if (!step(Long.MAX_VALUE)) {
        break; // nothing more will ever happen
      }
    }
    return finish();
  }

  // ------------------------------------------------ stepwise use (the test driver's)

  /** Starts every task at virtual time 0; once. */
  public void start() {
    if (retirement != null) {
      return;
    }
    retirement = new Retirement(drainSettings);
    for (Node n : nodes.values()) {
      n.engine.start(0);
    }
  }

  /**
   * Runs what is due up to virtual time {@code millis} — messages, engine timers, requested
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

  /** The virtual clock, in milliseconds since the start. */
  public long now() {
    return now;
  }

  /**
   * Lets the tasks of source {@code source} poll now, rather than at their next poll timer: their
   * input has grown (a test driver appended to it).
   */
  public void wake(OperatorId source) {
    for (Node n : nodes.values()) {
      if (n.id.operator().equals(source) && n.timers.containsKey(TaskEngine.Timer.POLL)) {
        n.timers.put(TaskEngine.Timer.POLL, now);
      }
    }
  }

  /** Takes the records the collecting sink {@code sink} has received since the last call. */
  public List<Object> takeCollected(String sink) {
    List<Object> got = collected.remove(sink);
    return got == null ? List.of() : got;
  }

  /** The failures so far (a failed task processes nothing more). */
  public List<ErrorInfo> failures() {
    return List.copyOf(failures);
  }

  /** The reconfiguration epochs completed so far, in order. */
  public List<EpochDriver.EpochReport> reconfigurations() {
    return List.copyOf(reports);
  }

  /** Requests found to change nothing so far. */
  public int noopRequests() {
    return noops;
  }

  /** Requests refused so far because a bounded source had read all its input. */
  public int refusedRequests() {
    return refused;
  }

  /** Whether a reconfiguration runs or waits to start. */
  public boolean reconfiguring() {
    return epoch != null || !requests.isEmpty();
  }

  /** The deployment as it is now (live tasks and routing of every operator). */
  public LiveDeployment deployment() {
    return deployment;
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
    byte[] keyBytes = new KeyEncoder(serde).encode(key);
    for (Node owner : nodes.values()) {
      if (!owner.id.operator().equals(vertex)) {
        continue;
      }
      int at = owner.engine.locateState(key);
      if (at == TaskEngine.NOT_OWNER) {
        continue;
      }
      if (at == KeyLocations.DELETED) {
        return null;
      }
      Node holder = nodes.get(new TaskId(vertex, at));
      if (holder == null) {
        throw new IllegalStateException(
            "the state of key " + key + " is at task " + at + " of " + vertex + ", released");
      }
      int bucket = Buckets.bucketOf(keyBytes, plan.logical().buckets());
      byte[] bytes;
      try (ReadTxn txn = holder.store.beginRead()) {
        bytes = KeyedStateBackend.valueBytes(txn, bucket, keyBytes, stateName);
      }
      return bytes == null ? null : Codecs.forClass(type, serde).decode(bytes);
    }
    throw new IllegalArgumentException(
        "no live task of '" + vertex + "' owns key " + key + " (is '" + vertex + "' keyed?)");
  }

  /** What the run produced; closes every task. */
  public Result finish() {
    if (checkpoints != null && allFinished() && busy.isEmpty()) {
      output
          .ended()
          .forEach(
              (sink, values) ->
                  collected.computeIfAbsent(sink, k -> new ArrayList<>()).addAll(values));
    }
    Map<TaskId, TaskMetricsSnapshot> metrics = new LinkedHashMap<>(releasedMetrics);
    closeSnapshotsInFlight();
    for (Node n : nodes.values()) {
      metrics.put(n.id, n.engine.metrics());
      n.engine.close();
      if (n.store != null) {
        n.store.close();
      }
    }
    StringBuilder unfinished = new StringBuilder();
    if (epoch != null) {
      unfinished
          .append("epoch ")
          .append(epoch.epoch())
          .append(" in ")
          .append(epoch.phase())
          .append(" waiting for ")
          .append(epoch.waitingFor())
          .append("; ");
    }
    if (!requests.isEmpty()) {
      unfinished.append(requests.size()).append(" requests not started; ");
    }
    if (checkpoints != null && checkpoints.inProgress()) {
      unfinished.append(checkpoints.waitingFor()).append("; ");
    }
    for (Node n : nodes.values()) {
      if (!n.finished) {
        unfinished.append(n.id).append(' ').append(metrics.get(n.id).status());
        if (checkpoints != null && checkpoints.inProgress()) {
          unfinished.append(" ").append(n.engine.alignment());
        }
        unfinished.append("; ");
      }
    }
    return new Result(
        allFinished() && busy.isEmpty(),
        steps,
        now,
        collected,
        List.copyOf(failures),
        List.copyOf(reports),
        metrics,
        unfinished.toString(),
        faultsApplied,
        noops,
        refused,
        List.copyOf(released),
        List.copyOf(crashes),
        recoveries,
        committedCheckpoints);
  }

  private boolean allFinished() {
    for (Node n : nodes.values()) {
      if (!n.finished) {
        return false;
      }
    }
    return true;
  }

  /**
   * Takes one step: runs one due action, or moves the clock to the next due time if that is at most
   * {@code horizon}; false when nothing is due by then.
   */
  private boolean step(long horizon) {
    List<Runnable> due = new ArrayList<>();
    long next = Long.MAX_VALUE;
    for (Pair p : busy) {
      long at = arrivals.get(p).peek();
      if (at <= now) {
        due.add(() -> deliver(p));
      } else {
        next = Math.min(next, at);
      }
    }
    for (Node n : nodes.values()) {
      if (n.finished) {
        continue;
      }
      for (Map.Entry<TaskEngine.Timer, Long> t : n.timers.entrySet()) {
        if (t.getValue() <= now) {
          TaskEngine.Timer timer = t.getKey();
          due.add(
              () -> {
                n.timers.remove(timer);
                n.engine.onTimer(timer);
              });
        } else {
          next = Math.min(next, t.getValue());
        }
      }
      if (n.nextTick <= now) {
        due.add(
            () -> {
              n.nextTick = now + TICK_MILLIS;
              n.engine.onTick();
            });
      } else {
        next = Math.min(next, n.nextTick);
      }
    }
    Crash crash = crashDue();
    justCommitted = false;
    if (crash != null) {
      steps++;
      crashNow(crash);
      return true;
    }
    boolean checkpointDue = false;
    if (checkpoints != null && epoch == null && !inputEnds.finishing() && !allFinished()) {
      if (checkpoints.due(now)) {
        checkpointDue = true; // takes priority over the next reconfiguration (§8)
        due.add(this::triggerCheckpoint);
      } else if (!checkpoints.inProgress()) {
        next = Math.min(next, checkpoints.nextDueMillis());
      }
    }
    boolean checkpointing = checkpoints != null && checkpoints.inProgress();
    if (checkpointing && planted.contains(Fault.EPOCH_DURING_CHECKPOINT) && epoch == null) {
      checkpointing = false;
      checkpointDue = false;
      if (!requests.isEmpty() && requests.peek().at() <= now) {
        faultsApplied++;
      }
    }
    Request request = requests.peek();
    if (request != null && epoch == null && !checkpointDue && !checkpointing) {
      if (request.at() <= now) {
        due.add(this::startEpoch);
      } else {
        next = Math.min(next, request.at());
      }
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

  private void enqueue(Object from, Object to, KoalaMessage message) {
    Pair p = new Pair(from, to);
    ArrayDeque<KoalaMessage> q = queues.computeIfAbsent(p, k -> new ArrayDeque<>());
    if (!planted.isEmpty() && message instanceof Deliver d) {
      message = plantedBug(q, d, to);
    }
    if (q.isEmpty()) {
      busy.add(p);
    }
    q.add(message);
    ArrayDeque<Long> times = arrivals.computeIfAbsent(p, k -> new ArrayDeque<>());
    long at = maxLatency == 0 ? now : now + random.nextInt(maxLatency + 1);
    times.add(times.isEmpty() ? at : Math.max(at, times.peekLast())); // per-pair FIFO
  }

  private void deliver(Pair p) {
    ArrayDeque<KoalaMessage> q = queues.get(p);
    KoalaMessage m = q.poll();
    arrivals.get(p).poll();
    if (q.isEmpty()) {
      busy.remove(p);
    }
    if (p.to() instanceof TaskId t && !nodes.containsKey(t)) {
      if (!(m instanceof StateMessage.Release || m instanceof Credit)) {
        // a release, or a credit for an item it sent before it ended, may still reach it
        failures.add(
            ErrorInfo.of(
                "simulation",
                t,
                null,
                new IllegalStateException(m + " sent to task " + t + ", released as a holder")));
      }
    } else if (p.to() instanceof TaskId t) {
      TaskEngine engine = nodes.get(t).engine;
      if (m instanceof Deliver d) {
        engine.onDeliver(d);
      } else if (m instanceof Credit c) {
        engine.onCredit(c);
      } else if (m instanceof StateMessage.StateReply r) {
        engine.onStateReply(r);
      } else if (m instanceof StateMessage.Release r) {
        engine.onRelease(r);
      } else if (m instanceof EpochMessage.Command c) {
        engine.onCommand(c);
      } else if (m instanceof CheckpointMessage.Command c) {
        engine.onCheckpoint(c);
      } else {
        throw new IllegalStateException("unhandled " + m);
      }
    } else if (TaskEngine.COORDINATOR.equals(p.to())) {
      if (m instanceof EpochMessage.InputEnded e) {
        inputEnds.ended(e.task());
        releaseInputs();
      } else if (m instanceof EpochMessage.References r) {
        retirement
            .on(r, deployment.liveTaskIds(r.task().operator()))
            .forEach(this::holderUnreferenced);
      } else {
        carryOut(epoch.on((EpochMessage.Report) m));
      }
    } else if (p.to() instanceof StateServerAddress server && !nodes.containsKey(server.task())) {
      failures.add(
          ErrorInfo.of(
              "simulation",
              server.task(),
              null,
              new IllegalStateException(
                  "a fetch reached " + server.task() + " after it was released: state lost")));
    } else if (p.to() instanceof StateServerAddress server) {
      StateMessage.Fetch fetch = (StateMessage.Fetch) m;
      try (ReadTxn txn = nodes.get(server.task()).store.beginRead()) {
        enqueue(server, fetch.owner(), StateServing.serve(txn, fetch, server.task()));
      }
    } else if (CLIENT.equals(p.to()) && m instanceof Snapshotted snap) {
      snapshotted(snap);
    } else if (CLIENT.equals(p.to())) {
      toClient((TaskId) p.from(), (Deliver) m);
    } else {
      throw new IllegalStateException("no endpoint " + p.to());
    }
  }

  private void startEpoch() {
    Request r = requests.poll();
    taken.add(r);
    OperatorId vertex = new OperatorId(r.change().operator());
    if (inputEnds.finishing()) {
      refused++; // the coordinator refuses to reconfigure a bounded job whose sources ended
      return;
    }
    ReconfigurationPlan plan = r.change().plan(deployment, vertex);
    if (plan.isNoop()) {
      noops++; // nothing to do, as the coordinator does
      return;
    }
    epoch =
        new ReconfigurationDriver(
            nextEpoch, vertex, plan, deployment, n -> 0, protocol, bucketsPerStep);
    nextEpoch += epoch.epochs();
    retirement.epochStarted(vertex);
    carryOut(epoch.start());
  }

  private void carryOut(List<EpochDriver.Effect> effects) {
    for (EpochDriver.Effect e : effects) {
      if (e instanceof EpochDriver.Deploy d) {
        for (TaskSetup setup : d.setups()) {
          addTask(setup).engine.start(0);
        }
        carryOut(epoch.deployed());
      } else if (e instanceof EpochDriver.Send send) {
        enqueue(TaskEngine.COORDINATOR, send.to(), send.command());
      } else if (e instanceof EpochDriver.Done done) {
        reports.add(done.report());
        epoch = null;
        releaseInputs();
        EpochDriver.EpochReport r = done.report();
        for (Retirement.Publish p :
            retirement.epochEnded(
                r.operator(),
                r.epoch(),
                deployment.retired(),
                deployment.liveTaskIds(r.operator()))) {
          enqueue(TaskEngine.COORDINATOR, p.task(), p.command());
        }
      }
    }
  }

  /** Lets the sources that read all their input end, unless an epoch runs (as the coordinator). */
  private void releaseInputs() {
    if (epoch != null || (checkpoints != null && checkpoints.inProgress())) {
      return;
    }
    for (TaskId t : inputEnds.release()) {
      enqueue(TaskEngine.COORDINATOR, t, new EpochMessage.EndInput(nextEpoch - 1));
    }
  }

  // ------------------------------------------------ checkpoints, crashes and rollback

  private void triggerCheckpoint() {
    List<TaskId> sources = new ArrayList<>();
    List<TaskId> live = new ArrayList<>();
    List<TaskId> holders = new ArrayList<>();
    for (Node n : nodes.values()) {
      TaskId t = n.id;
      if (deployment.retired().contains(t) || n.finished) {
        holders.add(t); // no barrier reaches it: asked directly, or left out if not needed
      } else {
        live.add(t);
        if (plan.vertex(t.operator()).head().kind() == io.koala.plan.OperatorNode.Kind.SOURCE) {
          sources.add(t);
        }
      }
    }
    CoordinatorState state =
        new CoordinatorState(
            deployment.copy(), retirement.copy(), taken.size(), reports.size(), noops, refused);
    carryOutCheckpoints(checkpoints.trigger(now, state, sources, live, holders));
  }

  private void snapshotted(Snapshotted s) {
    ReadTxn txn = s.txn() != null ? s.txn() : s.store() != null ? s.store().beginRead() : null;
    TaskImage image;
    try {
      image = TaskImage.of(txn, s.metadata());
    } finally {
      if (txn != null) {
        txn.close();
      }
    }
    if (checkpoints.cutsAtSnapshot(s.task(), s.checkpointId())) {
      output.cut(s.task(), s.checkpointId()); // a finished task reports once its results are in
    }
    carryOutCheckpoints(checkpoints.snapshotTaken(s.task(), s.checkpointId(), image));
  }

  private void carryOutCheckpoints(List<Checkpoints.Effect> effects) {
    for (Checkpoints.Effect e : effects) {
      if (e instanceof Checkpoints.Send send) {
        enqueue(TaskEngine.COORDINATOR, send.task(), send.command());
      } else if (e instanceof Checkpoints.Persist<?, ?> persist) {
        long id = persist.checkpoint().id(); // the journal is this simulation's memory
        committedCheckpoints++;
        justCommitted = true;
        output
            .committed(id)
            .forEach(
                (sink, values) ->
                    collected.computeIfAbsent(sink, k -> new ArrayList<>()).addAll(values));
        carryOutCheckpoints(checkpoints.persisted(id));
        releaseInputs();
      } else if (e instanceof Checkpoints.StopHolder stop) {
        release(stop.task());
      } // Discard: the images are garbage-collected
    }
  }

  /** Retirement found a holder no owner references: it stops once no checkpoint needs it. */
  private void holderUnreferenced(TaskId task) {
    if (checkpoints == null) {
      release(task);
    } else {
      carryOutCheckpoints(checkpoints.holderUnreferenced(task));
    }
  }

  /** The first planned crash due now, or null. */
  private Crash crashDue() {
    if (crashPlan.isEmpty() || allFinished()) {
      return null;
    }
    for (Crash c : crashPlan) {
      boolean due;
      if (c instanceof Crash.At at) {
        due = now >= at.millis();
      } else if (c instanceof Crash.InPhase in) {
        due = epoch != null && epoch.phase() == in.phase();
      } else if (c instanceof Crash.AfterCommit) {
        due = justCommitted;
      } else {
        Crash.InCheckpoint in = (Crash.InCheckpoint) c;
        due = checkpoints.inProgress() && checkpoints.snapshotsTaken() >= in.snapshots();
      }
      if (due) {
        return c;
      }
    }
    return null;
  }

  /** A planned crash: a task alive now dies with its store, and the job rolls back. */
  private void crashNow(Crash cause) {
    crashPlan.remove(cause);
    List<TaskId> alive = new ArrayList<>();
    for (Node n : nodes.values()) {
      if (!n.finished || deployment.retired().contains(n.id)) {
        alive.add(n.id);
      }
    }
    TaskId victim = alive.get(random.nextInt(alive.size()));
    String where =
        epoch != null
            ? "epoch " + epoch.epoch() + " " + epoch.phase()
            : checkpoints.inProgress() ? "checkpoint " + checkpoints.pendingId() : "processing";
    crashes.add(victim + " at " + now + " ms during " + where + " (" + cause + ")");
    rollback();
  }

  /**
   * Rolls the job back to its newest checkpoint (or its start): every message in flight is lost,
   * every task — holders included — is re-created from its snapshot, the reconfiguration that was
   * running is asked for again, and the results not yet published will be produced again.
   */
  private void rollback() {
    closeSnapshotsInFlight();
    for (Node n : nodes.values()) {
      n.engine.cancel();
      n.engine.close();
      if (n.store != null) {
        n.store.close();
      }
    }
    nodes.clear();
    queues.clear();
    arrivals.clear();
    busy.clear();
    clientChannels.clear();
    releasedMetrics.clear();
    output.rolledBack();
    checkpoints.rolledBack(now);
    epoch = null;
    inputEnds = new InputEnds();
    var latest = checkpoints.latest();
    int keep = latest.map(c -> c.state().taken()).orElse(0);
    List<Request> redo = new ArrayList<>(taken.subList(keep, taken.size()));
    taken.subList(keep, taken.size()).clear();
    for (int i = redo.size() - 1; i >= 0; i--) {
      requests.addFirst(redo.get(i)); // run again, in order, before those still queued
    }
    reports.subList(latest.map(c -> c.state().reports()).orElse(0), reports.size()).clear();
    noops = latest.map(c -> c.state().noops()).orElse(0);
    refused = latest.map(c -> c.state().refused()).orElse(0);
    if (latest.isEmpty()) {
      deployment = initialDeployment.copy();
      retirement = new Retirement(drainSettings);
      for (TaskSetup setup : deployment.setups().values()) {
        addTask(setup);
      }
    } else {
      Checkpoints.Completed<TaskImage, CoordinatorState> c = latest.get();
      deployment = c.state().deployment().copy();
      retirement = c.state().retirement().copy();
      for (Map.Entry<TaskId, TaskImage> e : c.snapshots().entrySet()) {
        addTask(deployment.setup(e.getKey()), e.getValue(), c.holders().contains(e.getKey()));
      }
      for (TaskId h : c.holders()) {
        retirement.taskFinished(h);
        if (retirement.unreferenced(h)) {
          holderUnreferenced(h); // the checkpoint has it for the cut of its output alone
        }
      }
    }
    for (Node n : nodes.values()) {
      if (n.engine.status() == TaskEngine.Status.CREATED) {
        n.engine.start(0);
      }
    }
    for (Retirement.Publish p :
        retirement.republish(nextEpoch - 1, op -> deployment.liveTaskIds(op))) {
      enqueue(TaskEngine.COORDINATOR, p.task(), p.command());
    }
    recoveries++;
  }

  /** Closes the read transactions of snapshots not yet written, so that their stores can close. */
  private void closeSnapshotsInFlight() {
    for (ArrayDeque<KoalaMessage> q : queues.values()) {
      for (KoalaMessage m : q) {
        if (m instanceof Snapshotted snap && snap.txn() != null) {
          snap.txn().close();
        }
      }
    }
  }

  /** No owner references holder {@code task} any more and it has finished: its state is gone. */
  private void release(TaskId task) {
    Node n = nodes.remove(task);
    releasedMetrics.put(task, n.engine.metrics().released());
    n.engine.close();
    if (n.store != null) {
      n.store.close();
    }
    released.add(task);
  }

  private void toClient(TaskId from, Deliver d) {
    InputChannel ch = clientChannels.get(d.channel());
    ch.accept(d.seq(), d.item() == EndOfChannel.INSTANCE);
    if (d.item() instanceof RecordBatch b) {
      List<Object> values = new ArrayList<>(b.size());
      for (int i = 0; i < b.size(); i++) {
        values.add(b.value(i));
      }
      if (checkpoints == null) {
        collected.computeIfAbsent(sinkOf.get(from), k -> new ArrayList<>()).addAll(values);
      } else {
        output.received(from, sinkOf.get(from), values);
      }
    } else if (d.item() instanceof CheckpointBarrier cb) {
      output.cut(from, cb.checkpointId());
      carryOutCheckpoints(checkpoints.clientBarrier(from, cb.checkpointId()));
    }
    long grant = ch.consumed(d.item() == EndOfChannel.INSTANCE);
    if (grant >= 0) {
      enqueue(CLIENT, from, new Credit(ch.id(), grant));
    }
  }
}
