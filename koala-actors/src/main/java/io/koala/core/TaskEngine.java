package io.koala.core;

import io.koala.KoalaException;
import io.koala.core.TaskSetup.InputSpec;
import io.koala.core.TaskSetup.OutputSpec;
import io.koala.core.checkpoint.CheckpointMessage;
import io.koala.core.checkpoint.TaskCheckpoint;
import io.koala.core.reconfig.BucketHandover;
import io.koala.core.reconfig.Draining;
import io.koala.core.reconfig.EpochMessage;
import io.koala.core.reconfig.KeyLocations;
import io.koala.core.reconfig.Parking;
import io.koala.core.reconfig.Protocol;
import io.koala.core.reconfig.StateMessage;
import io.koala.core.reconfig.StateMessage.KeyRef;
import io.koala.core.reconfig.StateMessage.KeyState;
import io.koala.core.reconfig.StateServing;
import io.koala.core.state.KeyedStateBackend;
import io.koala.core.state.KeyedTimers;
import io.koala.dataflow.Collector;
import io.koala.dataflow.KeySelector;
import io.koala.dataflow.OutputTag;
import io.koala.dataflow.PartitionReader;
import io.koala.dataflow.SourceSpec;
import io.koala.dataflow.WatermarkStrategy;
import io.koala.operator.InternalTimers;
import io.koala.operator.NamespacedState;
import io.koala.operator.Operator;
import io.koala.operator.OperatorContext;
import io.koala.operator.Output;
import io.koala.plan.ExecutionPlan.Vertex;
import io.koala.plan.ExecutionPlan.VertexInput;
import io.koala.plan.OperatorNode;
import io.koala.plan.OperatorNode.Kind;
import io.koala.plan.TaskId;
import io.koala.serialization.Codecs;
import io.koala.serialization.KeyEncoder;
import io.koala.serialization.KryoSerde;
import io.koala.state.Codec;
import io.koala.state.KeyedStateContext;
import io.koala.state.TimeDomain;
import io.koala.store.KeyLayout;
import io.koala.store.ReadTxn;
import io.koala.store.StateStore;
import io.koala.store.StoreStats;
import io.koala.store.Table;
import io.koala.store.WriteTxn;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The data plane of one task as a pure, single-threaded state machine: it consumes channel items
 * and credits, runs the operator chain, tracks event time, fires timers, batches and routes its
 * output under credit-based flow control, and reports what to send and when to wake it through
 * {@link Services}. It never blocks and never reads a clock except through {@link Services}, so the
 * same engine runs inside a task actor and inside a deterministic simulator.
 *
 * <pre>
 *   CREATED --start--> RUNNING --all inputs ended, timers fired--> FINISHING --outputs drained-->
 *                         |                                             FINISHED
 *                         +--------- error ---------> FAILED      (any) --cancel--> CANCELLED
 * </pre>
 *
 * <p>Flow control: an input item is consumed (and its credit returned) only when processed; while
 * any output channel holds items waiting for credit, the task processes nothing more, so
 * backpressure reaches the sources, which then fall behind their logs (lag).
 *
 * <p>Event time (DESIGN §4.5): items of all channels are processed in arrival order, so a watermark
 * is applied only after every record that arrived before it. The task's watermark is the minimum
 * over its channels ({@link WatermarkTracker}); when it advances, the due event-time timers fire in
 * timestamp order (in chunks, pausing while the output is backpressured), the operators see the
 * watermark, and it is forwarded on every output channel after the records emitted before it.
 */
public final class TaskEngine {

  /** The effects a task engine asks its host to carry out, and the clock it reads. */
  public interface Services {
    /** Sends a data-plane message to a task ({@link io.koala.plan.TaskId}) or {@link #CLIENT}. */
    void send(Object target, KoalaMessage message);

    /** Calls {@link #onTimer} once after {@code delayMillis} (0: as soon as possible). */
    void schedule(Timer timer, long delayMillis);

    /** The task has finished: every output channel has delivered end-of-channel. */
    void finished();

    /** The task has failed; it processes nothing more. */
    void failed(ErrorInfo error);

    long currentTimeMillis();

    long nanoTime();

    /**
     * Remote state services the task's keyed state lives at ({@code koala.store.backend = remote}),
     * or 0 when it lives in the task's own store.
     */
    default int remoteStateServices() {
      return 0;
    }

    /**
     * Whether the job takes checkpoints. Copies this task installs from holders are then released
     * only once a checkpoint that a rollback may still restore covers them (DESIGN §6.7); without
     * checkpoints, release follows installation.
     */
    default boolean checkpointing() {
      return false;
    }

    /**
     * Writes this task's snapshot for checkpoint {@code checkpointId}, then reports it to the
     * coordinator: the store as {@code txn} sees it ({@code null} for a task without keyed state),
     * opened at the barrier, which the host closes when done (it may copy on another thread while
     * the task goes on), and {@code metadata} ({@link TaskCheckpoint}).
     */
    default void snapshot(long checkpointId, ReadTxn txn, byte[] metadata) {
      if (txn != null) {
        txn.close();
      }
      throw new IllegalStateException("this host takes no checkpoints");
    }
  }

  /** Target of the channel carrying results back to the job's client. */
  public static final String CLIENT = "client";

  /** Target of reports to the job's coordinator. */
  public static final String COORDINATOR = "coordinator";

  /** The input edge number of a peer channel (its records carry their own edges). */
  public static final int PEER_EDGE = -1;

  /** One-shot wake-ups an engine asks for. */
  public enum Timer {
    /** Read more from the source partitions. */
    POLL,
    /** Send partial batches whose linger time has passed. */
    FLUSH,
    /** Fire the processing-time timers that are due. */
    PROCESSING_TIME,
    /** The task's capacity allows the next batch. */
    CAPACITY,
    /** Ask retiring holders for the next chunks of what this task still references there. */
    DRAIN
  }

  /** Lifecycle of a task. */
  public enum Status {
    CREATED,
    RUNNING,
    FINISHING,
    FINISHED,
    FAILED,
    CANCELLED
  }

  private static final long NONE = WatermarkTracker.NONE;

  private final TaskSetup setup;
  private final Services services;
  private final KryoSerde serde;
  private final KeyEncoder keys;
  private final StateStore store;
  private final KeyedStateBackend state;
  private final KeyedTimers timers;
  private KeyLocations locations; // replaced by a restored one before start
  private final Parking parking = new Parking();
  private final Draining draining = new Draining();
  private boolean drainScheduled;
  private long recordsAtDrainTick = -1;
  private EpochRole role;
  private final Map<Integer, ForwardBuilder> forwards = new HashMap<>(); // output pos → builder
  private long nextFetchId;

  /** Buckets this task owns, and those of them whose keys may be elsewhere (mirrors locations). */
  private final boolean[] owned;

  private final boolean[] moved;
  // buckets taken over with all their state pulled at once (eager), whose pull has not ended
  private final boolean[] pulling;
  private int bucketsPulling;
  // the remote state backend: services (0: state is local), the last write number sent to each,
  // and per service the writes of earlier owners of this task's buckets that reads must wait for
  private final int remoteServices;
  private final long[] writesSent;
  private final Map<Integer, Map<TaskId, Long>> readBarriers = new HashMap<>();
  private final Set<KeyRef> fetchedFromServices = new java.util.LinkedHashSet<>();
  // per-batch latency covers the wait for the state a batch fetched: the batch being processed,
  // and the batches still waiting for fetch replies, by request id
  private BatchTiming currentBatch;
  private final Map<Long, BatchTiming> waitingBatches = new HashMap<>();

  /** A batch that started at {@code startNanos} and waits for {@code fetches} replies. */
  private static final class BatchTiming {
    final long startNanos;
    int fetches;

    BatchTiming(long startNanos) {
      this.startNanos = startNanos;
    }
  }

  private final List<KeySelector<Object, Object>> inputSelectors = new ArrayList<>();
  private final int[] logicalInputs;
  private final Map<Integer, InputChannel> inputs = new HashMap<>();
  private final Map<Integer, Integer> inputIndex = new HashMap<>();
  private final WatermarkTracker watermarks;
  private final ArrayDeque<Deliver> pending = new ArrayDeque<>();
  private final Throttle throttle; // null: no capacity limit
  private boolean throttleScheduled;
  private long recordsCharged;
  private final List<OutputChannel> outputs = new ArrayList<>();
  private final Map<Integer, Integer> outputIndex = new HashMap<>();
  private final List<BatchBuilder> builders = new ArrayList<>();

  /** Per output edge of the vertex: its deployment, router, and the side output it carries. */
  private final List<OutputSpec> edgeSpecs = new ArrayList<>();

  private final Map<Integer, Long> switchedAt = new HashMap<>(); // edge → last epoch switched

  private final List<Router> edgeRouters = new ArrayList<>();
  private final List<KeySelector<Object, Object>> edgeSelectors = new ArrayList<>();
  private final List<String> edgeConsumers = new ArrayList<>();
  private final int clientOutput;
  private final List<Operator<Object, Object>> ops = new ArrayList<>();
  private final List<String> opNames = new ArrayList<>();
  private final SourceSpec<Object> source;
  private final WatermarkStrategy sourceWatermarks;
  private final List<SourcePartition> partitions = new ArrayList<>();
  private WatermarkTracker sourceTracker;
  private final TaskMetrics metrics = new TaskMetrics();
  private final OutputChannel.Sender sender = this::sendItem;
  private Output<Object> entry;
  private int openInputs;
  private boolean inputsEnded;
  private boolean endReported; // a source has read everything and told the coordinator
  private boolean endApproved; // the coordinator let the source end (no reconfiguration runs)
  private boolean paused; // stop-and-restart: a source reads nothing until resumed
  private Status status = Status.CREATED;
  private boolean flushScheduled;
  private boolean pollScheduled;
  private long processingTimerAt = Long.MAX_VALUE;
  private boolean processingTimersDue;
  private long currentWatermark = NONE;
  private long pendingWatermark = NONE;
  private long sourceWatermark = NONE;
  private long forwardedWatermark = NONE;
  private long nextSourceWatermarkAt;
  private boolean idleSent;

  // checkpoints (DESIGN §8)
  private static final long NO_CHECKPOINT = -1;
  private long aligning = NO_CHECKPOINT; // the barrier being aligned
  private final Set<Integer> barriersIn = new java.util.HashSet<>(); // channels past its barrier
  private final ArrayDeque<Deliver> alignHeld = new ArrayDeque<>(); // their items since, in order
  private long lastBarrier; // the checkpoint this task last snapshotted (0: none)
  private long holderSnapshot = NO_CHECKPOINT; // asked of a retired holder before it finished
  private TaskCheckpoint restored; // what start() resumes from, or null
  private boolean opened; // the operators are open (not so for a holder resumed from a snapshot)

  /** Key of the record being processed by a keyed head, for error reports; null when unknown. */
  private Object recordKey;

  private byte[] recordKeyBytes;

  /**
   * @param store the task's store, or {@code null} when the chain keeps no keyed state
   */
  @SuppressWarnings("unchecked")
  public TaskEngine(
      TaskSetup setup, Vertex vertex, StateStore store, KryoSerde serde, Services services) {
    this.setup = setup;
    this.services = services;
    this.serde = serde;
    this.keys = new KeyEncoder(serde);
    this.store = store;
    this.remoteServices = services.remoteStateServices();
    this.writesSent = new long[remoteServices];
    ChannelSettings settings = setup.settings();
    String tail = vertex.tail().id().name();

    if (setup.outputs().size() != vertex.outputs().size()) {
      throw new IllegalArgumentException(
          "task "
              + setup.task()
              + ": deployment has "
              + setup.outputs().size()
              + " output edges, the plan "
              + vertex.outputs().size());
    }
    for (int e = 0; e < setup.outputs().size(); e++) {
      OutputSpec out = setup.outputs().get(e);
      int[] positions = new int[out.channels().size()];
      for (int i = 0; i < positions.length; i++) {
        positions[i] = addOutput(out.channels().get(i), out.targets().get(i), settings, tail);
      }
      KeySelector<Object, Object> selector =
          (KeySelector<Object, Object>) vertex.outputs().get(e).keySelector();
      String consumer = vertex.outputs().get(e).to().name();
      edgeSpecs.add(out);
      edgeSelectors.add(selector);
      edgeConsumers.add(consumer);
      edgeRouters.add(Router.of(out, positions, selector, consumer, setup.buckets(), keys));
    }
    clientOutput = addOutput(setup.clientChannel(), CLIENT, settings, tail);

    for (InputSpec in : setup.inputs()) {
      inputIndex.put(in.channel(), inputs.size());
      inputs.put(
          in.channel(), new InputChannel(in.channel(), in.from(), in.input(), settings.credits()));
    }
    openInputs = inputs.size();
    watermarks = new WatermarkTracker(inputs.size());
    logicalInputs = new int[vertex.inputs().size()];
    for (VertexInput vi : vertex.inputs()) {
      inputSelectors.add((KeySelector<Object, Object>) vi.keySelector());
      logicalInputs[vi.index()] = vi.logicalInput();
    }

    double capacity = 0;
    for (OperatorNode n : vertex.chain()) {
      if (n.capacity() > 0) {
        capacity = capacity == 0 ? n.capacity() : Math.min(capacity, n.capacity());
      }
    }
    throttle = capacity > 0 ? new Throttle(capacity) : null;
    OperatorNode head = vertex.head();
    if (head.kind() == Kind.SOURCE) {
      source = (SourceSpec<Object>) head.source();
      sourceWatermarks = head.watermarks();
    } else {
      source = null;
      sourceWatermarks = WatermarkStrategy.none();
    }
    if (head.keyedState() || head.hasKeyedInput()) {
      if (store == null) {
        throw new IllegalArgumentException("keyed task " + setup.task() + " needs a state store");
      }
      state = new KeyedStateBackend(head.id().name(), store, serde);
      owned = new boolean[setup.buckets()];
      moved = new boolean[setup.buckets()];
      pulling = new boolean[setup.buckets()];
      List<Integer> mine = new ArrayList<>();
      for (int b = 0; b < setup.buckets(); b++) {
        owned[b] = setup.inputRouting().get(b) == setup.task().index();
        if (owned[b]) {
          mine.add(b);
        }
      }
      int[] ownedBuckets = mine.stream().mapToInt(Integer::intValue).toArray();
      locations = new KeyLocations(setup.task().index(), ownedBuckets);
      timers =
          new KeyedTimers(state, ownedBuckets, () -> currentWatermark, services::currentTimeMillis);
    } else {
      state = null;
      owned = null;
      moved = null;
      pulling = null;
      locations = null;
      timers = null;
    }
    for (OperatorNode n : vertex.chain()) {
      if (n.kind() != Kind.SOURCE) {
        ops.add((Operator<Object, Object>) n.factory().create());
        opNames.add(n.id().name());
      }
    }
  }

  private int addOutput(int channel, Object target, ChannelSettings settings, String operator) {
    int pos = outputs.size();
    outputs.add(new OutputChannel(channel, target, settings.credits()));
    builders.add(new BatchBuilder(settings, serde.registry(), operator));
    outputIndex.put(channel, pos);
    return pos;
  }

  // ---------------------------------------------------------------- lifecycle

  /**
   * Opens the operators and, for a source, its partitions; {@code startMillis} is the job's start
   * time (origin of source rate schedules).
   */
  public void start(long startMillis) {
    if (status != Status.CREATED) {
      return;
    }
    guard(
        () -> {
          Output<Object> downstream = this::emit;
          for (int i = ops.size() - 1; i >= 0; i--) {
            ops.get(i).open(new Context(i, downstream));
            downstream = chained(i);
          }
          opened = true;
          entry = downstream;
          long now = services.currentTimeMillis();
          if (source != null) {
            for (int p = setup.task().index(); p < source.partitions(); p += setup.parallelism()) {
              partitions.add(
                  new SourcePartition(
                      p,
                      source.open(p, startMillis),
                      new PartitionWatermarks(sourceWatermarks, now)));
            }
            if (restored != null) {
              restoreOffsets();
            }
            sourceTracker = new WatermarkTracker(partitions.size());
            for (int i = 0; i < partitions.size(); i++) {
              if (partitions.get(i).done) {
                sourceTracker.onEnd(i);
              }
            }
          }
          if (restored != null) {
            restoreTask();
          }
          if (timers != null) {
            state.begin();
            if (restored == null) {
              locations.init(state.batchTxn());
            }
            timers.recoverNext();
            commitState();
            scheduleProcessingTimers();
          }
          status = Status.RUNNING;
          if (restored != null) {
            // downstream resumes from where this task's event time was
            ChannelItem first = firstItemOfNewChannel();
            for (int i = 0; first != null && i < outputs.size(); i++) {
              if (i != clientOutput) {
                outputs.get(i).offer(first, sender);
              }
            }
          }
          metrics.tick(now);
          if (source != null) {
            schedulePoll(0);
          } else if (openInputs == 0) {
            inputsEnded = true;
          }
          drain();
        });
  }

  /**
   * Resumes this task, before {@link #start}, from its snapshot in a checkpoint (DESIGN §8); the
   * store the engine was built with holds the snapshot's state.
   */
  public void restore(TaskCheckpoint checkpoint) {
    if (status != Status.CREATED) {
      throw new IllegalStateException("task " + setup.task() + " restored after it started");
    }
    restored = checkpoint;
  }

  /**
   * Resumes a retired holder from its snapshot: it processes nothing more, serves its state to the
   * owners that reference it (through its host's state server) and deletes released copies.
   */
  public void startAsHolder(TaskCheckpoint checkpoint) {
    restore(checkpoint);
    guard(
        () -> {
          if (state != null) {
            restoreTask();
          }
          status = Status.FINISHED;
          lastBarrier = checkpoint.checkpointId();
        });
  }

  private void restoreOffsets() {
    for (long[] o : restored.offsets()) {
      SourcePartition p =
          partitions.stream()
              .filter(sp -> sp.partition == o[0])
              .findFirst()
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          "the checkpoint of "
                              + setup.task()
                              + " has partition "
                              + o[0]
                              + ", which it does not read"));
      p.offset = o[1];
      p.done = p.offset >= p.reader.end();
    }
  }

  /** Applies {@link #restored} to the event time, the inputs and the lookup table. */
  private void restoreTask() {
    TaskCheckpoint cp = restored;
    lastBarrier = cp.checkpointId();
    currentWatermark = cp.watermark();
    forwardedWatermark = cp.forwardedWatermark();
    sourceWatermark = cp.forwardedWatermark();
    idleSent = cp.idle();
    for (int channel : cp.endedInputs()) {
      InputChannel ch = inputs.get(channel);
      if (ch == null) {
        continue; // a peer channel of an epoch before the checkpoint
      }
      ch.restoreEnded();
      watermarks.onEnd(inputIndex.get(channel));
      if (--openInputs == 0) {
        inputsEnded = true;
      }
    }
    if (state == null) {
      return;
    }
    if (cp.locations() == null) {
      throw new IllegalStateException(
          "the checkpoint of keyed task " + setup.task() + " has no lookup table");
    }
    try (ReadTxn txn = store.beginRead()) {
      locations = KeyLocations.restore(setup.task().index(), cp.locations(), txn);
    }
    for (int b = 0; b < owned.length; b++) {
      owned[b] = locations.owns(b);
      moved[b] = owned[b] && !locations.isFullyLocal(b);
    }
    timers.buckets(ownedBuckets());
  }

  /** Stops processing for good; open writes are discarded. */
  public void cancel() {
    if (status != Status.FINISHED && status != Status.FAILED) {
      status = Status.CANCELLED;
    }
    if (state != null) {
      state.abort();
    }
  }

  /** Closes the operators (after finish, failure or cancellation). Idempotent. */
  public void close() {
    if (state != null) {
      state.abort();
    }
    for (Operator<Object, Object> op : ops) {
      try {
        op.close();
      } catch (Exception e) {
        // Closing is best effort: the task is already done, and its outcome reported.
      }
    }
    ops.clear();
  }

  public Status status() {
    return status;
  }

  // ---------------------------------------------------------------- inputs

  // ---------------------------------------------------------------- reads from outside

  /** {@link #locateState}: this task does not own the key's bucket, or has no keyed state. */
  public static final int NOT_OWNER = -2;

  /**
   * Where the keyed state of {@code key} is, as this task would resolve it for its next record of
   * the key: {@link #NOT_OWNER}, {@link KeyLocations#DELETED} (the key has no state), or the index
   * of the task of this operator whose store holds it (this task's own index when it is here, or
   * when the key is new). Reads only. For test drivers, which call it on the task's thread between
   * batches.
   */
  public int locateState(Object key) {
    if (locations == null) {
      return NOT_OWNER;
    }
    byte[] keyBytes = keys.encode(key);
    int bucket = Buckets.bucketOf(keyBytes, owned.length);
    if (!owned[bucket]) {
      return NOT_OWNER;
    }
    try (ReadTxn txn = store.beginRead()) {
      return locations.locate(txn, bucket, keyBytes);
    }
  }

  /** A channel item arrived. */
  public void onDeliver(Deliver d) {
    if (status != Status.RUNNING && status != Status.CREATED) {
      return;
    }
    guard(
        () -> {
          InputChannel ch = inputs.get(d.channel());
          if (ch == null) {
            throw new ProtocolViolationException(
                "task " + setup.task() + " has no input channel " + d.channel());
          }
          ch.accept(d.seq(), d.item() == EndOfChannel.INSTANCE);
          pending.add(d);
          drain();
        });
  }

  /** A credit grant arrived for one of this task's output channels. */
  public void onCredit(Credit c) {
    if (status == Status.FAILED || status == Status.CANCELLED || status == Status.FINISHED) {
      return; // a stopped task sends nothing more
    }
    Integer pos = outputIndex.get(c.channel());
    if (pos == null && role != null && role.announcesPeerOut(c.channel())) {
      return; // a receiver's grant for a peer channel this task opens at hand-over
    }
    if (pos == null) {
      fail(
          ErrorInfo.of(
              opName(0),
              setup.task(),
              null,
              new ProtocolViolationException(
                  "task " + setup.task() + " has no output channel " + c.channel())));
      return;
    }
    guard(
        () -> {
          outputs.get(pos).onCredit(c.limit(), sender);
          if (status == Status.FINISHING) {
            checkFinished();
          } else if (status == Status.RUNNING && !blocked()) {
            if (source != null) {
              schedulePoll(0);
            }
            drain();
          } else if (status == Status.RUNNING && blockedOnlyOnPeers()) {
            drain();
          }
        });
  }

  /** A timer asked for with {@link Services#schedule} is due. */
  public void onTimer(Timer timer) {
    switch (timer) {
      case FLUSH -> {
        flushScheduled = false;
        if (status == Status.RUNNING) {
          guard(this::flushAll);
        }
      }
      case POLL -> {
        pollScheduled = false;
        if (status == Status.RUNNING) {
          guard(this::poll);
        }
      }
      case PROCESSING_TIME -> {
        processingTimerAt = Long.MAX_VALUE;
        processingTimersDue = true;
        if (status == Status.RUNNING) {
          guard(this::drain);
        }
      }
      case CAPACITY -> {
        throttleScheduled = false;
        if (status == Status.RUNNING) {
          guard(this::drain);
        }
      }
      case DRAIN -> {
        drainScheduled = false;
        if (status == Status.RUNNING) {
          guard(this::drainHolders);
        }
      }
    }
  }

  /**
   * Whether the task's capacity lets a data item run now; if not, asks to be woken when it does.
   */
  private boolean mayProcess(ChannelItem item) {
    if (throttle == null || !(item instanceof RecordBatch || item instanceof ForwardedBatch)) {
      return true;
    }
    long wait = throttle.waitNanos(services.nanoTime());
    if (wait == 0) {
      return true;
    }
    if (!throttleScheduled) {
      throttleScheduled = true;
      services.schedule(Timer.CAPACITY, Math.max(1, wait / 1_000_000));
    }
    return false;
  }

  /**
   * A batch of work that started at {@code t0} ended: records its latency and charges the task's
   * capacity for the records it ran (not those it forwarded, held or parked: they are charged where
   * and when they run).
   */
  private void batchDone(long t0) {
    long now = services.nanoTime();
    if (currentBatch != null && currentBatch.fetches > 0) {
      metrics.batches++; // its latency is recorded once its last fetch's reply has run
    } else {
      metrics.batch(now - t0);
    }
    currentBatch = null;
    chargeCapacity(now);
  }

  /** Charges the task's capacity for the records it ran since the last charge. */
  private void chargeCapacity(long now) {
    if (throttle != null) {
      throttle.take(now, (int) (metrics.recordsIn - recordsCharged));
      recordsCharged = metrics.recordsIn;
    }
  }

  /**
   * Periodic housekeeping, about once per second: re-sends every credit grant (grants are
   * cumulative, so a lost one cannot stall a channel) and rolls the per-second rates.
   */
  public void onTick() {
    metrics.tick(services.currentTimeMillis());
    if (status == Status.RUNNING || status == Status.FINISHING) {
      for (InputChannel ch : inputs.values()) {
        if (!ch.ended() && ch.hasGranted()) {
          services.send(ch.source(), new Credit(ch.id(), ch.granted()));
        }
      }
    }
  }

  // ---------------------------------------------------------------- processing

  /**
   * Processes what can be processed: the watermark being applied, then queued items in arrival
   * order, stopping while the output is backpressured.
   */
  private void drain() {
    while (status == Status.RUNNING) {
      if (blocked()) {
        if (blockedOnlyOnPeers() && consumePeerItem()) {
          continue;
        }
        break;
      }
      if (processingTimersDue) {
        if (!fireTimers(TimeDomain.PROCESSING_TIME, services.currentTimeMillis())) {
          break; // more are due once the output drains
        }
        processingTimersDue = false;
        scheduleProcessingTimers();
        continue;
      }
      if (pendingWatermark != NONE) {
        if (!applyWatermark()) {
          break; // timers left to fire once the output drains
        }
        continue;
      }
      if (inputsEnded) {
        if (!parking.isEmpty()) {
          break; // the last records are still waiting for their state
        }
        finishInputs();
        break;
      }
      Deliver d = pending.peek();
      if (d == null) {
        break;
      }
      if (aligning != NO_CHECKPOINT && barriersIn.contains(d.channel())) {
        alignHeld.add(pending.poll()); // behind its barrier: waits for the snapshot (§8)
        continue;
      }
      if (!parking.isEmpty()
          && (!(d.item() instanceof RecordBatch) || parking.count() >= maxParked())) {
        // a watermark, idleness or end applies only after the records before it (§4.5), and the
        // parked records are bounded: stop consuming (and crediting) input until they have run
        break;
      }
      if (!mayProcess(d.item())) {
        break;
      }
      pending.poll();
      consume(d);
    }
    scheduleFlushIfPartial();
  }

  private void consume(Deliver d) {
    InputChannel ch = inputs.get(d.channel());
    int index = inputIndex.get(d.channel());
    ChannelItem item = d.item();
    long advanced = NONE;
    if (item instanceof RecordBatch batch) {
      watermarks.onData(index);
      process(ch, batch);
    } else if (item instanceof Watermark w) {
      advanced = watermarks.onWatermark(index, w.timestamp());
    } else if (item == Idle.INSTANCE) {
      advanced = watermarks.onIdle(index);
    } else if (item instanceof ForwardedBatch forwarded) {
      watermarks.onData(index);
      processForwarded(forwarded);
    } else if (item instanceof Handover h) {
      installHandover(h, (TaskId) ch.source());
    } else if (item instanceof StateChunk c) {
      installChunk(c);
    } else if (item instanceof PeerMarker pm) {
      peerMarker(ch, pm);
    } else if (item instanceof Marker) {
      marker(ch);
    } else if (item instanceof CheckpointBarrier b) {
      barrier(ch, b.checkpointId());
    } else if (item == EndOfChannel.INSTANCE) {
      advanced = watermarks.onEnd(index);
      if (role != null && role.peerInSender.containsKey(ch.id())) {
        role.peerInputsOpen--;
      } else if (role != null && role.expectedMarkers.remove(ch.id())) {
        upstreamDone(ch);
      }
      if (--openInputs == 0) {
        inputsEnded = true;
      }
    } else {
      throw new IllegalStateException("unhandled " + item);
    }
    long grant = ch.consumed(item == EndOfChannel.INSTANCE);
    if (grant >= 0) {
      services.send(ch.source(), new Credit(ch.id(), grant));
    }
    if (advanced != NONE && advanced > currentWatermark) {
      pendingWatermark = advanced;
    } else if ((item == Idle.INSTANCE || item == EndOfChannel.INSTANCE) && watermarks.allIdle()) {
      emitIdle();
    }
    checkRole();
    if (aligning != NO_CHECKPOINT) {
      checkAligned();
    }
  }

  private void process(InputChannel ch, RecordBatch batch) {
    long t0 = services.nanoTime();
    currentBatch = new BatchTiming(t0);
    int edge = ch.input();
    KeySelector<Object, Object> selector = inputSelectors.get(edge);
    if (state != null) {
      state.begin();
    }
    for (int i = 0; i < batch.size(); i++) {
      Object value = batch.value(i);
      long ts = batch.timestamp(i);
      if (state != null) {
        int bucket = setKey(selector, value);
        if (!owned[bucket]) {
          forwardOrFail(bucket, value, ts, edge);
          continue;
        }
        if (role != null && holdUntilPeerMarker(ch, bucket, value, ts)) {
          continue;
        }
        if ((mayBeElsewhere(bucket) || !parking.isEmpty())
            && parkIfRemote(bucket, value, ts, edge)) {
          continue;
        }
      }
      processHead(value, ts, edge);
    }
    endBatch();
    if (state != null) {
      commitState();
      scheduleProcessingTimers();
      sendFetches();
    }
    recordKey = null;
    batchDone(t0);
  }

  /** Runs the chain's head operator on a record: the only place a record counts as processed. */
  private void processHead(Object value, long timestamp, int edge) {
    metrics.recordsIn++;
    try {
      ops.get(0).process(value, timestamp, logicalInputs[edge]);
    } catch (KoalaException e) {
      throw e;
    } catch (Exception e) {
      throw new UserFunctionException(opNames.get(0), e);
    }
  }

  /**
   * Parks the record of the current key if its state is elsewhere or earlier items of it are parked
   * (DESIGN §6.4: per-key order is kept; other keys flow on).
   */
  private boolean parkIfRemote(int bucket, Object value, long timestamp, int edge) {
    KeyRef ref = new KeyRef(bucket, recordKeyBytes);
    if (parking.isParked(ref)) {
      parking.park(ref, Parking.Parked.record(value, timestamp, edge), -1);
      metrics.recordsParked++;
      return true;
    }
    if (mayBeElsewhere(bucket)) {
      int holder = holderOf(bucket, ref.key());
      if (holder != locations.self()) {
        parkRemote(ref, Parking.Parked.record(value, timestamp, edge), holder);
        return true;
      }
    }
    return false;
  }

  /** Whether state of owned {@code bucket} may be at another task or at a state service. */
  private boolean mayBeElsewhere(int bucket) {
    return remoteServices > 0 || moved[bucket];
  }

  /**
   * Where the state of {@code key} in owned {@code bucket} is: its state service with the remote
   * backend, else as the lookup table resolves it ({@link KeyLocations#self()}: here).
   */
  private int holderOf(int bucket, byte[] key) {
    if (remoteServices > 0) {
      return StateServiceAddress.ofBucket(bucket, remoteServices).holder();
    }
    return locations.resolve(state.batchTxn(), bucket, key);
  }

  /**
   * Parks an item of a key whose state is at {@code holder}: it waits for its bucket's pull if one
   * runs (eager), else for a fetch of the key.
   */
  private void parkRemote(KeyRef ref, Parking.Parked item, int holder) {
    if (pulling[ref.bucket()]) {
      parking.await(ref, item);
    } else {
      parking.park(ref, item, holder);
    }
    metrics.recordsParked++;
  }

  /** Asks {@code holder} for the next chunk of the buckets pulled from it, if none is asked for. */
  private void pullFrom(int holder) {
    long id = nextFetchId;
    StateMessage.Drain d = draining.next(locations, holder, id, Integer.MAX_VALUE);
    if (d != null) {
      nextFetchId++;
      sendFetch(new StateMessage.Fetch(id, setup.task(), List.of(), d), holder);
    }
  }

  /**
   * The pull of {@code bucket} ended: each key still waiting runs if its state is here now (it was
   * not at the old owner: a new key the filter could not rule out), else is fetched after all.
   */
  private void pullEnded(WriteTxn txn, int bucket) {
    pulling[bucket] = false;
    bucketsPulling--;
    for (KeyRef ref : parking.keysOf(bucket)) {
      int holder = locations.resolve(txn, bucket, ref.key());
      if (holder == locations.self()) {
        for (Parking.Parked p : parking.arrived(ref)) {
          runParked(ref, p);
        }
      } else {
        parking.fetchInstead(ref, holder);
      }
    }
  }

  /**
   * Sends the batch's fetches: one request per holder, for every key newly parked; a fetch to a
   * retiring holder also asks for the next keys this task drains from it (§6.5).
   */
  private void sendFetches() {
    Draining.Settings s = draining.settings();
    sendFetches(s == null ? 0 : s.piggybackKeys());
  }

  private void sendFetches(int drainKeys) {
    for (Map.Entry<Integer, List<KeyRef>> f : parking.takeFetches().entrySet()) {
      long id = nextFetchId++;
      StateMessage.Drain d =
          drainKeys > 0 ? draining.next(locations, f.getKey(), id, drainKeys) : null;
      sendFetch(new StateMessage.Fetch(id, setup.task(), f.getValue(), d), f.getKey());
      if (currentBatch != null) {
        currentBatch.fetches++;
        waitingBatches.put(id, currentBatch);
      }
    }
  }

  /** Sends {@code fetch} to the state server of {@code holder}; a drain alone is no fetch. */
  private void sendFetch(StateMessage.Fetch fetch, int holder) {
    if (StateServiceAddress.isService(holder)) {
      StateServiceAddress service = StateServiceAddress.ofHolder(holder);
      List<StateMessage.WriteBarrier> barriers = new ArrayList<>();
      readBarriers
          .getOrDefault(service.index(), Map.of())
          .forEach((writer, seq) -> barriers.add(new StateMessage.WriteBarrier(writer, seq)));
      services.send(service, new StateMessage.ServiceFetch(fetch, barriers));
      return; // a read of where the state lives, not a transfer
    }
    services.send(new StateServerAddress(new TaskId(setup.task().operator(), holder)), fetch);
    if (!fetch.keys().isEmpty()) {
      metrics.fetchRequests++;
    }
  }

  /**
   * The drain timer (§6.5): fetches the keys entries still name at a retiring holder whose scan has
   * ended, and asks every retiring holder this task references, with no request outstanding, for
   * its next chunk: a large one when the task processed nothing since the last tick, else as many
   * keys as a piggybacked drain, so cold buckets drain even while the task is busy.
   */
  private void drainHolders() {
    Draining.Settings s = draining.settings();
    if (locations == null || s == null) {
      return;
    }
    boolean idle = metrics.recordsIn == recordsAtDrainTick;
    recordsAtDrainTick = metrics.recordsIn;
    int keysPerChunk = idle ? s.idleChunkKeys() : s.piggybackKeys();
    Set<Integer> referenced = draining.referenced(locations);
    if (!referenced.isEmpty() && keysPerChunk > 0) { // 0: a busy owner drains nothing
      state.begin();
      for (int h : referenced) {
        for (int b : draining.leftovers(locations, h)) {
          for (byte[] key : locations.entriesNaming(state.batchTxn(), b, h, keysPerChunk)) {
            parking.prefetch(new KeyRef(b, key), h);
          }
        }
      }
      commitState();
      sendFetches(keysPerChunk);
      for (int h : referenced) {
        long id = nextFetchId;
        StateMessage.Drain d = draining.next(locations, h, id, keysPerChunk);
        if (d != null) {
          nextFetchId++;
          sendFetch(new StateMessage.Fetch(id, setup.task(), List.of(), d), h);
        }
      }
    }
    reportReferences();
    scheduleDrain();
  }

  private void scheduleDrain() {
    Draining.Settings s = draining.settings();
    if (!drainScheduled && s != null && !draining.referenced(locations).isEmpty()) {
      drainScheduled = true;
      services.schedule(Timer.DRAIN, s.intervalMillis());
    }
  }

  /** Tells the coordinator which retiring holders this task still references, if that changed. */
  private void reportReferences() {
    Set<Integer> r = locations == null ? null : draining.toReport(locations);
    if (r != null) {
      services.send(
          COORDINATOR,
          new EpochMessage.References(draining.version(), setup.task(), new ArrayList<>(r)));
    }
  }

  /**
   * The state server of task {@code holder} of this operator stopped: fails the task if it still
   * references state there or awaits a reply from it (§6.8, C7) — that state is gone.
   */
  public void onHolderTerminated(int holder) {
    if (locations == null
        || status == Status.FAILED
        || status == Status.CANCELLED
        || status == Status.FINISHED) {
      return;
    }
    boolean referenced = parking.isFetchingFrom(holder) || draining.isOutstanding(holder);
    for (int b : locations.movedBuckets()) {
      referenced |= locations.holdersOf(b).contains(holder);
    }
    if (referenced) {
      fail(
          ErrorInfo.of(
              opName(0),
              setup.task(),
              null,
              new IllegalStateException(
                  "task "
                      + new TaskId(setup.task().operator(), holder)
                      + ", which holds state "
                      + setup.task()
                      + " still needs, stopped (its worker or node may be gone)")));
    }
  }

  /**
   * A holder answered a fetch: installs each key still owned and still awaited from that holder,
   * and each drained key that resolves to exactly that holder (K4), in one transaction; runs the
   * keys' parked items in order, and releases the holder's copies.
   */
  public void onStateReply(StateMessage.StateReply reply) {
    if (status != Status.RUNNING || state == null) {
      return;
    }
    guard(
        () -> {
          long t0 = services.nanoTime();
          int from = StateServiceAddress.holderOf(reply.holder());
          boolean pullNext = false;
          List<StateMessage.Release> releases = new ArrayList<>();
          state.begin();
          WriteTxn txn = state.batchTxn();
          for (KeyState ks : reply.keys()) {
            KeyRef ref = ks.key();
            if (!owned[ref.bucket()] || parking.fetchingFrom(ref) != from) {
              continue; // abandoned, or answered twice: the key's entry still decides
            }
            install(txn, ks, from, releases);
            if (!StateServiceAddress.isService(from)) {
              metrics.keysFetched++;
            }
          }
          for (KeyRef ref : reply.unserved()) {
            parking.refetch(ref, from); // the reply had no room for it
          }
          StateMessage.DrainChunk chunk = reply.chunk();
          if (chunk != null && draining.accept(locations, reply.requestId(), from, chunk)) {
            for (KeyState ks : chunk.keys()) {
              KeyRef ref = ks.key();
              if (locations.acceptsDrained(txn, ref.bucket(), ref.key(), from)) {
                install(txn, ks, from, releases);
                metrics.keysDrained++;
                if (!reply.keys().isEmpty()) {
                  metrics.piggybackedKeys++;
                }
              } // else a stale copy: the key resolves elsewhere now
            }
            draining.advanced(txn, locations, from, chunk);
            moved[chunk.bucket()] = !locations.isFullyLocal(chunk.bucket());
            if (pulling[chunk.bucket()]) {
              if (chunk.end()) {
                pullEnded(txn, chunk.bucket());
              }
              pullNext = true;
            } else if (chunk.end()) {
              // the scan of one bucket is done: go on with the next without waiting a tick, so
              // many sparse buckets drain at the pace of their keys, not one per interval
              drainScheduled = true;
              services.schedule(Timer.DRAIN, 0);
            }
          }
          endBatch();
          Map<Integer, List<KeyState>> writes = remoteServices > 0 ? takeWrites(txn) : Map.of();
          commitState();
          recordKey = null;
          BatchTiming waited = waitingBatches.remove(reply.requestId());
          if (waited == null) {
            batchDone(t0);
          } else {
            long now = services.nanoTime();
            if (!reply.unserved().isEmpty()) {
              currentBatch = waited; // the batch also waits for the fetch of the rest
            } else if (--waited.fetches == 0) {
              metrics.latency(now - waited.startNanos); // its records have all run
            }
            chargeCapacity(now);
          }
          writes.forEach(this::writeBack);
          for (StateMessage.Release r : releases) {
            services.send(reply.holder(), r);
          }
          scheduleProcessingTimers();
          sendFetches();
          if (waited != null && currentBatch == waited) {
            currentBatch = null; // the reply that left keys out is done; their new fetch counts
            if (--waited.fetches == 0) {
              metrics.latency(services.nanoTime() - waited.startNanos);
            }
          }
          if (pullNext) {
            pullFrom(from);
          }
          reportReferences();
          checkRole();
          drain();
        });
  }

  /**
   * Installs a key's state from {@code from} and runs what was parked behind it. State from a
   * remote service is only borrowed for the batch: {@link #takeWrites} writes it back.
   */
  private void install(WriteTxn txn, KeyState ks, int from, List<StateMessage.Release> releases) {
    KeyRef ref = ks.key();
    StateServing.replace(txn, ks);
    if (StateServiceAddress.isService(from)) {
      fetchedFromServices.add(ref); // a read of where the state lives, not a transfer
    } else {
      metrics.stateBytesFetched += ks.bytes();
      locations.installed(txn, ref.bucket(), ref.key(), from);
      moved[ref.bucket()] = !locations.isFullyLocal(ref.bucket());
      if (services.checkpointing()) {
        // released once a checkpoint a rollback may restore has it here (§6.7, C4)
        txn.put(
            Table.METADATA,
            releaseKey(lastBarrier, from, ref),
            ByteBuffer.allocate(8).putLong(ks.generation()).array());
      } else {
        releases.add(new StateMessage.Release(setup.task(), ref, ks.generation()));
      }
    }
    for (Parking.Parked p : parking.arrived(ref)) {
      runParked(ref, p);
    }
  }

  /**
   * The remote backend: the whole state of every key borrowed from a service in this transaction,
   * as the batch left it, by service; deleted here (the service is where it lives).
   */
  private Map<Integer, List<KeyState>> takeWrites(WriteTxn txn) {
    Map<Integer, List<KeyState>> out = new java.util.TreeMap<>();
    state.flush();
    for (KeyRef ref : fetchedFromServices) {
      KeyState ks = StateServing.stateOf(txn, ref, 0);
      txn.deletePrefix(Table.STATE, KeyLayout.keyPrefix(ref.bucket(), ref.key()));
      out.computeIfAbsent(
              StateServiceAddress.ofBucket(ref.bucket(), remoteServices).index(),
              s -> new ArrayList<>())
          .add(ks);
    }
    fetchedFromServices.clear();
    return out;
  }

  /**
   * Writes {@code keys} back to their state {@code service}, in messages of about {@link
   * StateServing#CHUNK_BYTES} each (a message stays well inside a frame), numbered in order.
   */
  private void writeBack(int service, List<KeyState> keys) {
    List<KeyState> chunk = new ArrayList<>();
    long bytes = 0;
    for (KeyState ks : keys) {
      chunk.add(ks);
      bytes += ks.bytes();
      if (bytes >= StateServing.CHUNK_BYTES) {
        sendWrite(service, chunk);
        chunk = new ArrayList<>();
        bytes = 0;
      }
    }
    if (!chunk.isEmpty()) {
      sendWrite(service, chunk);
    }
  }

  private void sendWrite(int service, List<KeyState> keys) {
    services.send(
        new StateServiceAddress(service),
        new StateMessage.ServiceWrite(setup.task(), ++writesSent[service], keys));
  }

  /** A remote state service cannot serve this task's state any more: the task fails. */
  public void onServiceFailed(StateMessage.ServiceFailed f) {
    if (status == Status.RUNNING || status == Status.FINISHING) {
      fail(ErrorInfo.of(opName(0), setup.task(), null, new IllegalStateException(f.reason())));
    }
  }

  private void runParked(KeyRef ref, Parking.Parked p) {
    Object key = keys.decode(ref.key());
    recordKey = key;
    state.setCurrentKey(key, ref.key(), ref.bucket());
    if (p.isTimer()) {
      try {
        ops.get(0).onTimer(p.timestamp(), p.namespace(), p.timerDomain());
      } catch (KoalaException e) {
        throw e;
      } catch (Exception e) {
        throw new UserFunctionException(opNames.get(0), e);
      }
    } else {
      processHead(p.value(), p.timestamp(), p.edge());
    }
  }

  /**
   * An owner installed a copy this task held: deletes it if this task still has the bucket's
   * generation the copy was fetched at and does not own the bucket (§6.7, K5).
   */
  public void onRelease(StateMessage.Release release) {
    if (state == null || status == Status.FAILED || status == Status.CANCELLED) {
      return;
    }
    KeyRef ref = release.key();
    if (owned[ref.bucket()] || locations.generation(ref.bucket()) != release.generation()) {
      return;
    }
    guard(
        () -> {
          state.begin();
          state.batchTxn().deletePrefix(Table.STATE, KeyLayout.keyPrefix(ref.bucket(), ref.key()));
          commitState();
        });
  }

  /**
   * Gives up {@code bucket} (the reconfiguration protocol calls this at hand-over, and also ships
   * the bucket's timers and forwards its records): returns its lookup-table part for the receiver.
   */
  public BucketHandover handOver(int bucket) {
    state.begin();
    BucketHandover h = locations.handOver(state.batchTxn(), bucket);
    commitState();
    draining.bucketChanged(bucket);
    owned[bucket] = false;
    moved[bucket] = false;
    timers.buckets(ownedBuckets());
    return h;
  }

  /** Takes ownership of a bucket another task handed over (see {@link #handOver}). */
  public void takeOver(BucketHandover h) {
    state.begin();
    locations.takeOver(state.batchTxn(), h);
    commitState();
    draining.bucketChanged(h.bucket());
    owned[h.bucket()] = true;
    moved[h.bucket()] = !locations.isFullyLocal(h.bucket());
    timers.buckets(ownedBuckets());
  }

  private int[] ownedBuckets() {
    List<Integer> mine = new ArrayList<>();
    for (int b = 0; b < owned.length; b++) {
      if (owned[b]) {
        mine.add(b);
      }
    }
    return mine.stream().mapToInt(Integer::intValue).toArray();
  }

  /** Returns the bucket of the record's key and makes it the current key. */
  private int setKey(KeySelector<Object, Object> selector, Object value) {
    recordKey = null;
    Object key;
    try {
      key = selector.key(value);
    } catch (Exception e) {
      throw new UserFunctionException(opNames.get(0) + " (key selector)", e);
    }
    recordKey = key;
    byte[] keyBytes = keys.encode(key);
    recordKeyBytes = keyBytes;
    int bucket = Buckets.bucketOf(keyBytes, owned.length);
    state.setCurrentKey(key, keyBytes, bucket);
    return bucket;
  }

  /**
   * A record of a bucket this task does not own: forwarded to its receiver if this task handed the
   * bucket over in the current reconfiguration, else a protocol violation (never processed, never
   * dropped).
   */
  private void forwardOrFail(int bucket, Object value, long timestamp, int edge) {
    Integer receiver = role == null || !role.handedOver ? null : role.movesOut.get(bucket);
    if (receiver == null) {
      throw new ProtocolViolationException(
          "task "
              + setup.task()
              + " received key "
              + recordKey
              + " of bucket "
              + bucket
              + ", which it does not own");
    }
    int pos = role.peerOutPosition.get(receiver);
    if (forwards.get(pos).add(value, timestamp, edge)) {
      flush(pos);
    }
    metrics.recordsForwarded++;
  }

  /**
   * §6.6: a record that came directly from an upstream for a bucket this task receives from a
   * sender waits until that sender has forwarded everything the upstream sent it before switching.
   */
  private boolean holdUntilPeerMarker(InputChannel ch, int bucket, Object value, long ts) {
    Integer sender = role.movesIn.get(bucket);
    if (sender == null || ch.input() == PEER_EDGE) {
      return false;
    }
    EpochRole.HoldKey key = new EpochRole.HoldKey(sender, (TaskId) ch.source(), ch.input());
    if (role.peerMarkersIn.contains(key)) {
      return false;
    }
    role.held
        .computeIfAbsent(key, k -> new ArrayDeque<>())
        .add(new EpochRole.Held(value, ts, ch.input()));
    metrics.recordsHeld++;
    return true;
  }

  private void endBatch() {
    for (int i = 0; i < ops.size(); i++) {
      try {
        ops.get(i).endBatch();
      } catch (KoalaException e) {
        throw e;
      } catch (Exception e) {
        throw new UserFunctionException(opNames.get(i), e);
      }
    }
  }

  // ---------------------------------------------------------------- event time and timers

  /**
   * Applies {@link #pendingWatermark}: fires due event-time timers, tells the operators, forwards
   * it downstream.
   *
   * @return false when the output became backpressured with timers still due (resume later)
   */
  private boolean applyWatermark() {
    long w = pendingWatermark;
    currentWatermark = w;
    if (timers != null) {
      if (!fireTimers(TimeDomain.EVENT_TIME, w)) {
        return false;
      }
      scheduleProcessingTimers(); // event-time callbacks may have registered some
    }
    for (int i = 0; i < ops.size(); i++) {
      try {
        ops.get(i).processWatermark(w);
      } catch (KoalaException e) {
        throw e;
      } catch (Exception e) {
        throw new UserFunctionException(opNames.get(i), e);
      }
    }
    pendingWatermark = NONE;
    if (w != Long.MAX_VALUE) {
      forward(new Watermark(w));
    }
    checkRole();
    return true;
  }

  /**
   * Fires the timers of {@code domain} due at {@code upTo}, a chunk per write transaction.
   *
   * @return false when it stopped with timers still due because the output is backpressured
   */
  private boolean fireTimers(TimeDomain domain, long upTo) {
    int chunk = setup.settings().maxBatchRecords();
    while (true) {
      if (timers.next(domain) > upTo) {
        return true;
      }
      long t0 = services.nanoTime();
      state.begin();
      List<KeyedTimers.Due> due = timers.due(domain, upTo, chunk);
      for (KeyedTimers.Due t : due) {
        timers.remove(t);
        KeyRef ref = new KeyRef(t.bucket(), t.key());
        Parking.Parked callback = Parking.Parked.timer(t.timestamp(), t.namespace(), domain);
        if (parking.isParked(ref)) {
          parking.park(ref, callback, -1);
          metrics.recordsParked++;
          continue;
        }
        if (mayBeElsewhere(t.bucket())) {
          int holder = holderOf(t.bucket(), t.key());
          if (holder != locations.self()) {
            parkRemote(ref, callback, holder);
            continue;
          }
        }
        runParked(ref, callback);
      }
      endBatch();
      if (due.size() < chunk) {
        // exact again; includes timers the callbacks registered at or before upTo, which the
        // next round fires
        timers.refresh(domain);
      }
      commitState();
      recordKey = null;
      sendFetches();
      if (due.isEmpty()) {
        return true;
      }
      metrics.timers(services.nanoTime() - t0, due.size());
      if (blocked()) {
        return false;
      }
    }
  }

  private void scheduleProcessingTimers() {
    if (timers == null) {
      return;
    }
    long next = timers.next(TimeDomain.PROCESSING_TIME);
    if (next < processingTimerAt) {
      processingTimerAt = next;
      services.schedule(Timer.PROCESSING_TIME, Math.max(0, next - services.currentTimeMillis()));
    }
  }

  /** Sends {@code item} on every data output channel after the records emitted before it. */
  private void forward(ChannelItem item) {
    if (item instanceof Watermark w) {
      idleSent = false; // a watermark makes the channel active again downstream
      forwardedWatermark = w.timestamp();
    }
    for (int i = 0; i < outputs.size(); i++) {
      if (i != clientOutput && !outputs.get(i).closed()) {
        flush(i);
        outputs.get(i).offer(item, sender);
      }
    }
  }

  private void emitIdle() {
    if (!idleSent) {
      idleSent = true;
      forward(Idle.INSTANCE);
    }
  }

  // ---------------------------------------------------------------- sources

  private void poll() {
    if (blocked() || paused) {
      return;
    }
    long now = services.currentTimeMillis();
    long t0 = services.nanoTime();
    int max = setup.settings().maxBatchRecords();
    int read = 0;
    boolean more = false;
    long nextAt = Long.MAX_VALUE;
    boolean allDone = true;
    boolean declared = false;
    for (int pi = 0; pi < partitions.size(); pi++) {
      SourcePartition p = partitions.get(pi);
      if (p.done) {
        continue;
      }
      long available = p.reader.available(now);
      long n = Math.min(available - p.offset, max);
      for (long i = 0; i < n; i++) {
        Object v;
        try {
          v = p.reader.read(p.offset);
        } catch (KoalaException e) {
          throw e;
        } catch (Exception e) {
          throw new UserFunctionException(source.name(), e);
        }
        long ts = p.reader.timestamp(p.offset, v);
        p.offset++;
        p.watermarks.onRecord(ts, now);
        entry.emit(v, ts);
      }
      read += (int) Math.max(n, 0);
      declared |= p.watermarks.declare(p.reader.watermark(p.offset));
      if (p.offset >= p.reader.end()) {
        p.done = true;
        sourceTracker.onEnd(pi);
        continue;
      }
      allDone = false;
      if (p.offset < available) {
        more = true;
      } else {
        nextAt = Math.min(nextAt, p.reader.availableAt(p.offset));
      }
    }
    if (read > 0) {
      endBatch();
      metrics.recordsIn += read;
      batchDone(t0);
    }
    if (allDone) {
      if (!endApproved) {
        // a bounded input has been read: its end waits until no reconfiguration runs, so an epoch
        // never straddles the end of a job (the coordinator answers EndInput)
        if (!endReported) {
          endReported = true;
          services.send(COORDINATOR, new EpochMessage.InputEnded(setup.task()));
        }
        scheduleFlushIfPartial();
        return;
      }
      inputsEnded = true;
      drain();
      return;
    }
    emitSourceWatermark(now, declared);
    scheduleFlushIfPartial();
    if (blocked()) {
      return; // a credit grant resumes polling
    }
    if (more) {
      schedulePoll(0);
    } else {
      long wait = Math.max(1, Math.min(nextAt - now, 1000));
      if (sourceWatermarks.enabled()) {
        wait = Math.min(wait, setup.settings().watermarkIntervalMillis());
      }
      schedulePoll(wait);
    }
  }

  /**
   * Emits the source task's watermark (min over its active partitions) at most once per interval,
   * or at once when a partition's log declared a higher watermark ({@code declared}).
   */
  private void emitSourceWatermark(long now, boolean declared) {
    if (!declared && (!sourceWatermarks.enabled() || now < nextSourceWatermarkAt)) {
      return;
    }
    nextSourceWatermarkAt = now + setup.settings().watermarkIntervalMillis();
    long[] partitionWatermarks = new long[partitions.size()];
    boolean[] idle = new boolean[partitions.size()];
    for (int pi = 0; pi < partitions.size(); pi++) {
      SourcePartition p = partitions.get(pi);
      idle[pi] = p.watermarks.idle(now);
      partitionWatermarks[pi] = p.watermarks.watermark();
    }
    sourceTracker.update(partitionWatermarks, idle);
    long w = sourceTracker.combined();
    if (w != NONE && w > sourceWatermark) {
      sourceWatermark = w;
      pendingWatermark = w;
      drain();
    } else if (sourceTracker.allIdle()) {
      emitIdle();
    }
  }

  private void schedulePoll(long delay) {
    if (!pollScheduled) {
      pollScheduled = true;
      services.schedule(Timer.POLL, delay);
    }
  }

  // ---------------------------------------------------------------- output

  private void emit(Object value, long timestamp) {
    metrics.recordsOut++;
    route(null, value, timestamp);
  }

  /** Routes a record of the main output ({@code sideOutput} null) or of a side output. */
  private void route(String sideOutput, Object value, long timestamp) {
    for (int e = 0; e < edgeRouters.size(); e++) {
      if (java.util.Objects.equals(edgeSpecs.get(e).sideOutput(), sideOutput)) {
        int pos = edgeRouters.get(e).route(value);
        if (builders.get(pos).add(value, timestamp)) {
          flush(pos);
        }
      }
    }
  }

  // ---------------------------------------------------------------- reconfiguration: channels

  /**
   * Adds an input channel announced by a reconfiguration (from a new upstream task, or a peer
   * channel): until it delivers a watermark it holds this task's watermark (§6.1 step 1, P4).
   */
  public void addInput(InputSpec in) {
    if (inputs.containsKey(in.channel())) {
      return; // announced twice: idempotent
    }
    if (inputsEnded) {
      throw new IllegalStateException(
          "task " + setup.task() + " has ended its input; it cannot get channel " + in.channel());
    }
    inputIndex.put(in.channel(), watermarks.addChannel());
    inputs.put(
        in.channel(),
        new InputChannel(in.channel(), in.from(), in.input(), setup.settings().credits()));
    openInputs++;
  }

  /**
   * Switches the routing of output edge {@code edge} to {@code next} at epoch {@code epoch} (§6.1
   * step 4): flushes the edge's records, opens the channels {@code next} adds (each starting with
   * this task's last forwarded watermark, or Idle), sends a {@link Marker} on every channel the
   * edge had, closes those {@code next} drops with end-of-channel after their marker, and from then
   * on routes by {@code next}'s table. A record thus takes the old path or the new one, never both.
   * Idempotent per epoch.
   */
  public void switchRouting(int edge, OutputSpec next, long epoch) {
    OutputSpec current = edgeSpecs.get(edge);
    if (switchedAt.getOrDefault(edge, Long.MIN_VALUE) >= epoch) {
      return; // this epoch's switch is done (markers go out even when the table is unchanged)
    }
    switchedAt.put(edge, epoch);
    guard(
        () -> {
          for (int ch : current.channels()) {
            flush(outputIndex.get(ch));
          }
          java.util.Set<Integer> keep = new java.util.HashSet<>(next.channels());
          for (int ch : current.channels()) {
            OutputChannel out = outputs.get(outputIndex.get(ch));
            out.offer(new Marker(epoch), sender);
            if (!keep.contains(ch)) {
              out.offer(EndOfChannel.INSTANCE, sender);
            }
          }
          int[] positions = new int[next.channels().size()];
          for (int i = 0; i < positions.length; i++) {
            int ch = next.channels().get(i);
            Integer pos = outputIndex.get(ch);
            if (pos == null) {
              pos = addOutput(ch, next.targets().get(i), setup.settings(), opName(ops.size() - 1));
              ChannelItem first = firstItemOfNewChannel();
              if (first != null) {
                outputs.get(pos).offer(first, sender);
              }
            }
            positions[i] = pos;
          }
          edgeSpecs.set(edge, next);
          edgeRouters.set(
              edge,
              Router.of(
                  next,
                  positions,
                  edgeSelectors.get(edge),
                  edgeConsumers.get(edge),
                  setup.buckets(),
                  keys));
        });
  }

  /** What a new channel starts with: the last watermark forwarded, Idle, or nothing yet. */
  private ChannelItem firstItemOfNewChannel() {
    if (idleSent) {
      return Idle.INSTANCE;
    }
    return forwardedWatermark == NONE ? null : new Watermark(forwardedWatermark);
  }

  private void collectForClient(Object value) {
    if (builders.get(clientOutput).add(value, Long.MIN_VALUE)) {
      flush(clientOutput);
    }
  }

  private void flush(int pos) {
    BatchBuilder b = builders.get(pos);
    if (!b.isEmpty()) {
      if (pos != clientOutput) {
        idleSent = false; // data makes the channel active again downstream
      }
      outputs.get(pos).offer(b.take(), sender);
    }
    ForwardBuilder f = forwards.get(pos);
    if (f != null && !f.isEmpty()) {
      outputs.get(pos).offer(f.take(), sender);
    }
  }

  private void flushAll() {
    for (int i = 0; i < outputs.size(); i++) {
      flush(i);
    }
  }

  private void scheduleFlushIfPartial() {
    if (flushScheduled || status != Status.RUNNING) {
      return;
    }
    boolean partial = builders.stream().anyMatch(b -> !b.isEmpty());
    partial |= forwards.values().stream().anyMatch(f -> !f.isEmpty());
    if (partial) {
      flushScheduled = true;
      services.schedule(Timer.FLUSH, setup.settings().lingerMillis());
    }
  }

  private boolean blocked() {
    for (OutputChannel ch : outputs) {
      if (ch.queued() > 0) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether the only outputs waiting for credit are peer channels. Two tasks that hand buckets to
   * each other forward to each other: if a blocked peer output stopped all input, each would wait
   * for the other to consume. Peer input never produces peer output (one hop), so it is consumed
   * even then, which breaks the cycle.
   */
  private boolean blockedOnlyOnPeers() {
    if (forwards.isEmpty()) {
      return false;
    }
    boolean any = false;
    for (int pos = 0; pos < outputs.size(); pos++) {
      if (outputs.get(pos).queued() > 0) {
        if (!forwards.containsKey(pos)) {
          return false;
        }
        any = true;
      }
    }
    return any;
  }

  /** Consumes the first pending item of a peer input channel, if the parking rules allow it. */
  private boolean consumePeerItem() {
    if (role == null || !parking.isEmpty()) {
      return false;
    }
    java.util.Iterator<Deliver> it = pending.iterator();
    while (it.hasNext()) {
      Deliver d = it.next();
      if (role.peerInSender.containsKey(d.channel())) {
        if (!mayProcess(d.item())) {
          return false;
        }
        it.remove();
        consume(d);
        return true;
      }
    }
    return false;
  }

  private void sendItem(OutputChannel ch, long seq, ChannelItem item) {
    services.send(ch.target(), new Deliver(ch.id(), seq, item));
  }

  /**
   * Commits the batch's state and adds the keys that may be new to their bucket's filter; a filter
   * that outgrew its size is rebuilt from the store.
   */
  private void commitState() {
    state.commit();
    state.takeNewKeys(
        (key, bucket) -> {
          if (owned[bucket]) {
            locations.written(bucket, key);
          }
        });
    if (locations.hasFullFilters()) {
      try (ReadTxn txn = store.beginRead()) {
        locations.rebuildFilters(txn);
      }
    }
  }

  private int maxParked() {
    return 8 * setup.settings().maxBatchRecords();
  }

  // ---------------------------------------------------------------- end of input

  /** Every input has ended and every event-time timer has fired: finish and close the outputs. */
  private void finishInputs() {
    for (int i = 0; i < ops.size(); i++) {
      try {
        ops.get(i).finish();
      } catch (KoalaException e) {
        throw e;
      } catch (Exception e) {
        throw new UserFunctionException(opNames.get(i), e);
      }
    }
    flushAll();
    for (OutputChannel ch : outputs) {
      if (!ch.closed()) {
        ch.offer(EndOfChannel.INSTANCE, sender);
      }
    }
    status = Status.FINISHING;
    checkFinished();
  }

  private void checkFinished() {
    if (!blocked()) {
      status = Status.FINISHED;
      services.finished();
      if (holderSnapshot != NO_CHECKPOINT) {
        takeSnapshot(holderSnapshot);
        holderSnapshot = NO_CHECKPOINT;
      }
    }
  }

  // ---------------------------------------------------------------- checkpoints

  /**
   * Carries out a checkpoint command (DESIGN §8): a source snapshots its offsets and emits the
   * barrier, a retired holder snapshots its store once it has finished, and a committed checkpoint
   * releases the copies installed before the barrier of the oldest checkpoint still restorable.
   * Repeats are ignored.
   */
  public void onCheckpoint(CheckpointMessage.Command c) {
    if (status == Status.FAILED || status == Status.CANCELLED || status == Status.CREATED) {
      return;
    }
    guard(
        () -> {
          if (c instanceof CheckpointMessage.TriggerCheckpoint t) {
            if (source == null) {
              throw new ProtocolViolationException(
                  "checkpoint "
                      + t.checkpointId()
                      + " triggered at "
                      + setup.task()
                      + ", no source");
            }
            if (t.checkpointId() > lastBarrier) {
              takeSnapshot(t.checkpointId());
              forwardBarrier(t.checkpointId());
            }
          } else if (c instanceof CheckpointMessage.SnapshotHolder h) {
            if (h.checkpointId() <= lastBarrier) {
              return;
            }
            if (status == Status.FINISHED) {
              takeSnapshot(h.checkpointId());
            } else {
              holderSnapshot = h.checkpointId(); // once its outputs have delivered their ends
            }
          } else if (c instanceof CheckpointMessage.CheckpointCommitted cc) {
            releaseBefore(cc.oldestRestorable());
            if (opened) {
              eachOperator(op -> op.checkpointCommitted(cc.checkpointId()));
            }
          }
        });
  }

  /** For diagnostics: the checkpoint being aligned and the inputs it still waits for. */
  public String alignment() {
    if (aligning == NO_CHECKPOINT) {
      return "not aligning (last barrier " + lastBarrier + ", status " + status + ")";
    }
    List<String> waiting = new ArrayList<>();
    for (InputChannel c : inputs.values()) {
      if (!c.ended() && !barriersIn.contains(c.id())) {
        waiting.add(c.id() + " from " + c.source());
      }
    }
    return "aligning "
        + aligning
        + ", waiting for "
        + waiting
        + ", "
        + pending.size()
        + " pending, parked "
        + parking.count();
  }

  /** A barrier arrived on {@code ch}: the channel waits until every open input has delivered it. */
  private void barrier(InputChannel ch, long checkpointId) {
    if (role != null) {
      throw new ProtocolViolationException(
          "task " + setup.task() + ": barrier " + checkpointId + " during an epoch (C1)");
    }
    if (checkpointId <= lastBarrier
        || (aligning != NO_CHECKPOINT && checkpointId != aligning)
        || !barriersIn.add(ch.id())) {
      throw new ProtocolViolationException(
          "task "
              + setup.task()
              + ": barrier "
              + checkpointId
              + " on channel "
              + ch.id()
              + " while aligning "
              + aligning
              + " after "
              + lastBarrier);
    }
    aligning = checkpointId;
  }

  /**
   * Once every open input has delivered the barrier being aligned (an input that ended counts):
   * snapshots, emits the barrier, and lets the held items run, in their order.
   */
  private void checkAligned() {
    for (InputChannel c : inputs.values()) {
      if (!c.ended() && !barriersIn.contains(c.id())) {
        return;
      }
    }
    long id = aligning;
    aligning = NO_CHECKPOINT;
    barriersIn.clear();
    takeSnapshot(id);
    forwardBarrier(id);
    while (!alignHeld.isEmpty()) {
      pending.addFirst(alignHeld.pollLast());
    }
  }

  /**
   * Hands the host this task's snapshot: a read transaction of its store opened now, between
   * batches (so it sees exactly what the records before the barrier did, C2), and the rest of its
   * state ({@link TaskCheckpoint}). A running task's operators snapshot first, in chain order, so
   * what they emit precedes the barrier.
   */
  private void takeSnapshot(long checkpointId) {
    if (opened && status == Status.RUNNING) {
      eachOperator(op -> op.snapshotState(checkpointId));
    }
    List<Integer> ended = new ArrayList<>();
    for (InputChannel c : inputs.values()) {
      if (c.ended()) {
        ended.add(c.id());
      }
    }
    List<long[]> offsets = new ArrayList<>();
    for (SourcePartition p : partitions) {
      offsets.add(new long[] {p.partition, p.offset});
    }
    byte[] metadata =
        new TaskCheckpoint(
                checkpointId,
                currentWatermark,
                forwardedWatermark,
                idleSent,
                ended,
                offsets,
                locations == null ? null : locations.snapshot())
            .encode();
    lastBarrier = checkpointId;
    services.snapshot(checkpointId, state == null ? null : store.beginRead(), metadata);
  }

  /** Sends the barrier on every open output, the client's included, after what came before it. */
  private void forwardBarrier(long checkpointId) {
    CheckpointBarrier barrier = new CheckpointBarrier(checkpointId);
    for (int i = 0; i < outputs.size(); i++) {
      if (!outputs.get(i).closed()) {
        flush(i);
        outputs.get(i).offer(barrier, sender);
      }
    }
  }

  /**
   * The key under which an owner keeps a copy to release: the last checkpoint before its install,
   * the holder, and the key, so that a checkpoint's commit releases a prefix of them.
   */
  private static byte[] releaseKey(long checkpoint, int holder, KeyRef ref) {
    return ByteBuffer.allocate(RELEASE_PREFIX.length + 14 + ref.key().length)
        .put(RELEASE_PREFIX)
        .putLong(checkpoint)
        .putInt(holder)
        .putShort((short) ref.bucket())
        .put(ref.key())
        .array();
  }

  private static final byte[] RELEASE_PREFIX = {'r', 'l'};

  /** Releases the copies installed before the barrier of checkpoint {@code oldestRestorable}. */
  private void releaseBefore(long oldestRestorable) {
    if (state == null) {
      return;
    }
    List<byte[]> done = new ArrayList<>();
    List<long[]> generations = new ArrayList<>();
    state.begin();
    WriteTxn txn = state.batchTxn();
    txn.scan(
        Table.METADATA,
        RELEASE_PREFIX,
        (k, v) -> {
          if (ByteBuffer.wrap(k, RELEASE_PREFIX.length, 8).getLong() >= oldestRestorable) {
            return false;
          }
          done.add(k);
          generations.add(new long[] {ByteBuffer.wrap(v).getLong()});
          return true;
        });
    for (byte[] k : done) {
      txn.delete(Table.METADATA, k);
    }
    commitState();
    for (int i = 0; i < done.size(); i++) {
      ByteBuffer b = ByteBuffer.wrap(done.get(i));
      b.position(RELEASE_PREFIX.length + 8);
      int holder = b.getInt();
      int bucket = b.getShort() & 0xFFFF;
      byte[] key = new byte[b.remaining()];
      b.get(key);
      services.send(
          new TaskId(setup.task().operator(), holder),
          new StateMessage.Release(setup.task(), new KeyRef(bucket, key), generations.get(i)[0]));
    }
  }

  /** Calls {@code hook} on the operators, upstream first; a failure names the operator. */
  private void eachOperator(OperatorHook hook) {
    recordKey = null; // a hook works on no record's key
    for (int i = 0; i < ops.size(); i++) {
      try {
        hook.call(ops.get(i));
      } catch (KoalaException e) {
        throw e;
      } catch (Exception e) {
        throw new UserFunctionException(opNames.get(i), e);
      }
    }
  }

  @FunctionalInterface
  private interface OperatorHook {
    void call(Operator<Object, Object> op) throws Exception;
  }

  // ---------------------------------------------------------------- failure

  private void guard(ThrowingRunnable r) {
    try {
      r.run();
    } catch (UserFunctionException e) {
      fail(ErrorInfo.of(e.operator(), setup.task(), recordKey, e));
    } catch (Exception e) {
      fail(ErrorInfo.of(opName(0), setup.task(), recordKey, e));
    }
  }

  private void fail(ErrorInfo error) {
    if (status == Status.FAILED || status == Status.CANCELLED) {
      return;
    }
    status = Status.FAILED;
    if (state != null) {
      state.abort();
    }
    pending.clear();
    services.failed(error);
  }

  private String opName(int i) {
    return opNames.isEmpty() ? setup.task().operator().name() : opNames.get(i);
  }

  @FunctionalInterface
  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  // ---------------------------------------------------------------- metrics

  /** The task's metrics now. */
  public TaskMetricsSnapshot metrics() {
    long now = services.currentTimeMillis();
    long lag = 0;
    double lagSeconds = 0;
    for (SourcePartition p : partitions) {
      if (p.done) {
        continue;
      }
      long available = p.reader.available(now);
      if (available == Long.MAX_VALUE) {
        continue; // an unlimited source is never behind
      }
      if (available > p.offset) {
        lag += available - p.offset;
        lagSeconds = Math.max(lagSeconds, (now - p.reader.availableAt(p.offset)) / 1000.0);
      }
    }
    long stateBytes = 0;
    long stateEntries = 0;
    if (store != null && status != Status.CANCELLED) {
      StoreStats stats = store.stats();
      stateBytes = stats.bytes();
      stateEntries = stats.entries(Table.STATE);
    }
    return new TaskMetricsSnapshot(
        setup.task(),
        status.name(),
        metrics.recordsIn,
        metrics.recordsOut,
        metrics.inRate(),
        metrics.outRate(),
        metrics.batches,
        TaskMetricsSnapshot.encode(metrics.batchLatency),
        lag,
        Math.max(0, lagSeconds),
        stateBytes,
        stateEntries,
        blocked(),
        source != null ? sourceWatermark : currentWatermark,
        metrics.lateRecords,
        new TaskMetricsSnapshot.Reconfiguration(
            metrics.fetchRequests,
            metrics.keysFetched,
            metrics.stateBytesFetched,
            metrics.recordsForwarded,
            metrics.recordsHeld,
            metrics.bucketsHandedOver,
            metrics.bucketsTakenOver,
            parking.count(),
            locations == null ? 0 : locations.memoryBytes(),
            metrics.keysDrained,
            metrics.piggybackedKeys));
  }

  // ---------------------------------------------------------------- reconfiguration: roles

  /** The coordinator published the operator's retiring holders: drain them (§6.5). */
  private void retiring(EpochMessage.Retiring r) {
    if (locations == null) {
      services.send(COORDINATOR, new EpochMessage.References(r.epoch(), setup.task(), List.of()));
      return;
    }
    draining.retiring(r.epoch(), Set.copyOf(r.holders()), r.settings());
    reportReferences();
    scheduleDrain();
  }

  /**
   * Carries out a coordinator command of a reconfiguration and reports to {@link #COORDINATOR}:
   * {@link EpochMessage.Prepared} for a prepare or an announcement of inputs, {@link
   * EpochMessage.Switched} for a switch; the other steps report when they are reached. Every
   * command is idempotent. A command this task cannot carry out fails the task (and so the job).
   */
  public void onCommand(EpochMessage.Command c) {
    if ((status == Status.FINISHING || status == Status.FINISHED)
        && c instanceof EpochMessage.SwitchRouting sw) {
      // its input has ended, so nothing more will be routed by any table: the channels the new
      // table adds carry only their end, which their receivers wait for
      guard(
          () -> {
            for (int i = 0; i < sw.next().channels().size(); i++) {
              int ch = sw.next().channels().get(i);
              if (!outputIndex.containsKey(ch)) {
                int pos = addOutput(ch, sw.next().targets().get(i), setup.settings(), opName(0));
                outputs.get(pos).offer(EndOfChannel.INSTANCE, sender);
              }
            }
          });
      services.send(COORDINATOR, new EpochMessage.Switched(sw.epoch(), setup.task()));
      return;
    }
    if (status != Status.RUNNING) {
      // failed, cancelled, or its input has ended (the job is finishing): nothing left to move;
      // the coordinator gives up the epoch when the job ends
      return;
    }
    guard(
        () -> {
          if (c instanceof EpochMessage.PrepareTarget p) {
            long w = prepare(p);
            services.send(
                COORDINATOR, new EpochMessage.Prepared(p.epoch(), setup.task(), w, transfer()));
          } else if (c instanceof EpochMessage.ExpectInputs e) {
            expectInputs(e);
            services.send(
                COORDINATOR, new EpochMessage.Prepared(e.epoch(), setup.task(), NONE, transfer()));
          } else if (c instanceof EpochMessage.CatchUp u) {
            catchUp(u);
          } else if (c instanceof EpochMessage.HandOverBuckets h) {
            handOverBuckets(h);
          } else if (c instanceof EpochMessage.SwitchRouting sw) {
            switchRouting(sw.edge(), sw.next(), sw.epoch());
            services.send(COORDINATOR, new EpochMessage.Switched(sw.epoch(), setup.task()));
          } else if (c instanceof EpochMessage.Retiring r) {
            retiring(r);
          } else if (c instanceof EpochMessage.EndInput) {
            endApproved = true;
            schedulePoll(0);
          } else if (c instanceof EpochMessage.PauseInput p) {
            paused = true; // what was read flows on; nothing more is read
            services.send(COORDINATOR, new EpochMessage.Paused(p.epoch(), setup.task()));
          } else if (c instanceof EpochMessage.ResumeInput) {
            if (paused) {
              paused = false;
              schedulePoll(0);
            }
          }
        });
  }

  /**
   * Step 1 (§6.1), at a task of the target operator: learns its part, opens its incoming peer
   * channels (they hold its watermark until they deliver one, so it cannot emit past what it has
   * now; outgoing ones open at hand-over), and returns the watermark it will not emit past (W1).
   * Idempotent.
   */
  public long prepare(EpochMessage.PrepareTarget p) {
    if (role != null && role.epoch == p.epoch()) {
      return watermarks.combined();
    }
    if (role != null) {
      throw new ProtocolViolationException(
          "task "
              + setup.task()
              + " is still in epoch "
              + role.epoch
              + ", asked to prepare "
              + p.epoch());
    }
    role = new EpochRole(p);
    // channels that already ended (from retired upstream tasks) will bring no marker
    role.expectedMarkers.removeIf(c -> inputs.containsKey(c) && inputs.get(c).ended());
    for (EpochMessage.Peer in : p.peersIn()) {
      addInput(new InputSpec(in.channel(), in.task(), PEER_EDGE));
    }
    return watermarks.combined();
  }

  /** Step 1, downstream of the target: channels from new tasks are coming. */
  public void expectInputs(EpochMessage.ExpectInputs e) {
    for (InputSpec in : e.inputs()) {
      addInput(in);
    }
  }

  /**
   * Step 2a, at every task of the target: W* is the largest watermark any of them had at prepare. A
   * sender reports once its applied watermark reaches W* (so every timer at or before W* has fired
   * where its key was); a receiver's event time may rise to W* but not beyond until its hand-overs
   * are in (so it never passes a timer it is about to receive).
   */
  public void catchUp(EpochMessage.CatchUp c) {
    if (role == null || role.epoch != c.epoch()) {
      throw new ProtocolViolationException(
          "task " + setup.task() + " asked to catch up for epoch " + c.epoch() + " it is not in");
    }
    role.catchUpTo = c.watermark();
    if (c.watermark() != NONE) {
      // until their hand-over brings the sender's watermark, incoming peer channels cap this
      // task's event time at W*: it may catch up to W* (as a sender must) but not pass it
      for (int ch : role.peerInSender.keySet()) {
        long advanced = watermarks.onWatermark(inputIndex.get(ch), c.watermark());
        if (advanced != NONE) {
          pendingWatermark = Math.max(pendingWatermark, advanced);
        }
      }
      guard(this::drain);
    }
    checkRole();
  }

  /**
   * Step 2b, at a sender: gives up its moving buckets. Per receiver, the peer channel carries each
   * bucket's lookup-table part and timers (deleted here; those at or before the applied watermark
   * have fired), then the records parked on those keys (their fetches are abandoned), then the
   * applied watermark, then a {@link Marker} closing the hand-over. Later records of those buckets
   * are forwarded. Idempotent.
   */
  public void handOverBuckets(EpochMessage.HandOverBuckets h) {
    if (role == null || role.epoch != h.epoch()) {
      throw new ProtocolViolationException(
          "task " + setup.task() + " asked to hand over for epoch " + h.epoch() + " it is not in");
    }
    if (!role.handedOver) {
      guard(() -> handOver(h.move()));
      // the hand-over may fill a peer channel; peer input must still be consumed (see drain)
      guard(this::drain);
    }
    services.send(COORDINATOR, new EpochMessage.HandedOver(role.epoch, setup.task()));
  }

  private void handOver(Protocol.StateMove move) {
    // peer channels open only now: a receiver knows them once every task has prepared
    for (EpochMessage.Peer out : role.peersOut) {
      int pos = addOutput(out.channel(), out.task(), setup.settings(), opName(ops.size() - 1));
      forwards.put(pos, new ForwardBuilder(setup.settings().maxBatchRecords()));
      role.peerOutPosition.put(out.task().index(), pos);
    }
    Map<Integer, List<ChannelItem>> toReceiver = new HashMap<>();
    Map<Integer, List<Parking.Parked>> parkedRecords = new HashMap<>();
    Map<Integer, List<KeyRef>> parkedKeys = new HashMap<>();
    state.begin();
    WriteTxn txn = state.batchTxn();
    for (Map.Entry<Integer, Integer> m : role.movesOut.entrySet()) {
      int bucket = m.getKey();
      int receiver = m.getValue();
      BucketHandover lookup = locations.handOver(txn, bucket);
      if (move != Protocol.StateMove.ON_ACCESS
          && (lookup.defaultHolder() != locations.self() || !lookup.entries().isEmpty())) {
        throw new IllegalStateException(
            "the "
                + move
                + " protocols move whole buckets, but bucket "
                + bucket
                + " has state at other tasks, left by a reconfiguration with another protocol");
      }
      if (remoteServices > 0) {
        // the state is at the services, not here: the receiver reads it there too, once they
        // have this task's writes so far (Handover.writesBefore)
        lookup = new BucketHandover(bucket, receiver, lookup.filter(), null, false, List.of());
      } else if (move == Protocol.StateMove.PUSH_AHEAD) {
        // all of the bucket's state goes ahead of its hand-over, which then names the receiver as
        // where the state is
        toReceiver
            .computeIfAbsent(receiver, r -> new ArrayList<>())
            .addAll(stateChunks(txn, bucket));
        txn.deletePrefix(Table.STATE, KeyLayout.bucketPrefix(bucket));
        lookup = new BucketHandover(bucket, receiver, lookup.filter(), null, false, List.of());
      }
      List<Handover.ShippedTimer> shipped = new ArrayList<>();
      txn.scan(
          Table.TIMERS,
          KeyLayout.bucketPrefix(bucket),
          (k, v) -> {
            shipped.add(
                new Handover.ShippedTimer(
                    KeyLayout.timerTimestamp(k),
                    k[2],
                    KeyLayout.timerUserKey(k),
                    KeyLayout.timerNamespace(k)));
            return true;
          });
      txn.deletePrefix(Table.TIMERS, KeyLayout.bucketPrefix(bucket));
      for (KeyRef ref : parking.keysOf(bucket)) {
        for (Parking.Parked p : parking.abandon(ref)) {
          if (p.isTimer()) {
            shipped.add(
                new Handover.ShippedTimer(
                    p.timestamp(),
                    (byte) (p.timerDomain() == TimeDomain.EVENT_TIME ? 1 : 2),
                    ref.key(),
                    p.namespace()));
          } else {
            parkedRecords.computeIfAbsent(receiver, r -> new ArrayList<>()).add(p);
            parkedKeys.computeIfAbsent(receiver, r -> new ArrayList<>()).add(ref);
          }
        }
      }
      toReceiver
          .computeIfAbsent(receiver, r -> new ArrayList<>())
          .add(
              new Handover(
                  lookup,
                  shipped,
                  move == Protocol.StateMove.PULL_AT_ONCE,
                  Arrays.stream(writesSent).boxed().toList()));
      owned[bucket] = false;
      moved[bucket] = false;
      metrics.bucketsHandedOver++;
    }
    commitState();
    timers.buckets(ownedBuckets());
    role.handedOver = true;
    for (Map.Entry<Integer, Integer> peer : role.peerOutPosition.entrySet()) {
      int receiver = peer.getKey();
      int pos = peer.getValue();
      OutputChannel out = outputs.get(pos);
      for (ChannelItem item : toReceiver.getOrDefault(receiver, List.of())) {
        out.offer(item, sender);
      }
      for (Parking.Parked p : parkedRecords.getOrDefault(receiver, List.of())) {
        if (forwards.get(pos).add(p.value(), p.timestamp(), p.edge())) {
          flush(pos);
        }
      }
      flush(pos);
      if (currentWatermark != NONE) {
        out.offer(new Watermark(currentWatermark), sender);
      }
      out.offer(new Marker(role.epoch), sender);
    }
  }

  /** Installs pushed state of a bucket whose hand-over follows (stop-and-restart, fluid). */
  private void installChunk(StateChunk c) {
    state.begin();
    WriteTxn txn = state.batchTxn();
    byte[] last = null;
    for (int i = 0; i < c.keys().size(); i++) {
      byte[] k = c.keys().get(i);
      txn.put(Table.STATE, k, c.values().get(i));
      metrics.stateBytesFetched += k.length + c.values().get(i).length;
      byte[] key = KeyLayout.userKeyOf(k);
      if (last == null || !java.util.Arrays.equals(key, last)) {
        metrics.keysFetched++; // installed from another task, pushed rather than fetched
        last = key;
      }
    }
    commitState();
  }

  /**
   * A bucket's state, in chunks of about {@link StateServing#CHUNK_BYTES}: the scan a holder serves
   * drains with, run to the end.
   */
  private static List<StateChunk> stateChunks(WriteTxn txn, int bucket) {
    List<StateChunk> chunks = new ArrayList<>();
    StateMessage.DrainChunk d = null;
    do {
      d =
          StateServing.drain(
              txn, new StateMessage.Drain(bucket, d == null ? null : d.next(), Integer.MAX_VALUE));
      List<byte[]> keys = new ArrayList<>();
      List<byte[]> values = new ArrayList<>();
      for (KeyState ks : d.keys()) {
        keys.addAll(ks.storeKeys());
        values.addAll(ks.values());
      }
      if (!keys.isEmpty()) {
        chunks.add(new StateChunk(bucket, keys, values));
      }
    } while (!d.end());
    return chunks;
  }

  private void installHandover(Handover h, TaskId sender) {
    for (int service = 0; service < h.writesBefore().size(); service++) {
      long seq = h.writesBefore().get(service);
      if (seq > 0) {
        readBarriers.computeIfAbsent(service, x -> new HashMap<>()).merge(sender, seq, Math::max);
      }
    }
    BucketHandover lookup = h.bucket();
    state.begin();
    WriteTxn txn = state.batchTxn();
    locations.takeOver(txn, lookup);
    for (Handover.ShippedTimer t : h.timers()) {
      txn.put(
          Table.TIMERS,
          KeyLayout.timerKey(lookup.bucket(), t.domain(), t.timestamp(), t.key(), t.namespace()),
          new byte[0]);
      timers.installed(t.domain(), t.timestamp());
    }
    commitState();
    owned[lookup.bucket()] = true;
    moved[lookup.bucket()] = !locations.isFullyLocal(lookup.bucket());
    timers.buckets(ownedBuckets());
    scheduleProcessingTimers();
    metrics.bucketsTakenOver++;
    if (h.pullAtOnce() && moved[lookup.bucket()]) {
      pulling[lookup.bucket()] = true;
      bucketsPulling++;
      draining.pull(lookup.defaultHolder());
      pullFrom(lookup.defaultHolder());
    }
  }

  private void processForwarded(ForwardedBatch batch) {
    long t0 = services.nanoTime();
    currentBatch = new BatchTiming(t0);
    state.begin();
    for (int i = 0; i < batch.size(); i++) {
      Object value = batch.value(i);
      long ts = batch.timestamp(i);
      int edge = batch.edge(i);
      int bucket = setKey(inputSelectors.get(edge), value);
      if (!owned[bucket]) {
        throw new ProtocolViolationException(
            "task "
                + setup.task()
                + " got a forwarded record of bucket "
                + bucket
                + ", which it does not own");
      }
      if ((mayBeElsewhere(bucket) || !parking.isEmpty()) && parkIfRemote(bucket, value, ts, edge)) {
        continue;
      }
      processHead(value, ts, edge);
    }
    endBatch();
    commitState();
    recordKey = null;
    sendFetches();
    batchDone(t0);
  }

  /** A marker on an upstream channel (or, on a peer channel, the end of a hand-over). */
  private void marker(InputChannel ch) {
    if (role == null) {
      throw new ProtocolViolationException(
          "task "
              + setup.task()
              + " got a marker on channel "
              + ch.id()
              + " outside a reconfiguration");
    }
    Integer handingOver = role.peerInSender.get(ch.id());
    if (handingOver != null) {
      role.handOversPending.remove(handingOver);
      if (role.handOversPending.isEmpty() && !role.connectedReported) {
        role.connectedReported = true;
        services.send(COORDINATOR, new EpochMessage.Connected(role.epoch, setup.task()));
      }
      return;
    }
    if (!role.expectedMarkers.remove(ch.id())) {
      throw new ProtocolViolationException(
          "task " + setup.task() + " got an unexpected marker on channel " + ch.id());
    }
    upstreamDone(ch);
  }

  /**
   * Nothing more routed by the old table comes on upstream channel {@code ch} (its marker, or its
   * end: a retired upstream task never switches, and its end follows its last record): a sender
   * tells its receivers, through a peer marker, that it has forwarded all of it.
   */
  private void upstreamDone(InputChannel ch) {
    if (role.isSender()) {
      for (int pos : role.peerOutPosition.values()) {
        flush(pos);
        outputs.get(pos).offer(new PeerMarker((TaskId) ch.source(), ch.input()), sender);
      }
      if (role.expectedMarkers.isEmpty()) {
        for (int pos : role.peerOutPosition.values()) {
          outputs.get(pos).offer(EndOfChannel.INSTANCE, sender);
        }
        role.peersClosed = true;
      }
    }
  }

  /** A sender forwarded everything {@code pm.upstream()} sent it before switching: release. */
  private void peerMarker(InputChannel ch, PeerMarker pm) {
    int from = role.peerInSender.get(ch.id());
    EpochRole.HoldKey key = new EpochRole.HoldKey(from, pm.upstream(), pm.edge());
    role.peerMarkersIn.add(key);
    ArrayDeque<EpochRole.Held> released = role.held.remove(key);
    if (released == null) {
      return;
    }
    state.begin();
    for (EpochRole.Held r : released) {
      int bucket = setKey(inputSelectors.get(r.edge()), r.value());
      if ((mayBeElsewhere(bucket) || !parking.isEmpty())
          && parkIfRemote(bucket, r.value(), r.timestamp(), r.edge())) {
        continue;
      }
      processHead(r.value(), r.timestamp(), r.edge());
    }
    endBatch();
    commitState();
    recordKey = null;
    sendFetches();
  }

  private EpochMessage.Transfer transfer() {
    return new EpochMessage.Transfer(
        metrics.fetchRequests,
        metrics.keysFetched + metrics.keysDrained,
        metrics.stateBytesFetched,
        metrics.keysDrained,
        metrics.piggybackedKeys,
        metrics.recordsParked,
        locations == null ? 0 : locations.memoryBytes());
  }

  /** Reports what the current reconfiguration has reached at this task. */
  private void checkRole() {
    if (role == null) {
      return;
    }
    if (!role.caughtUpReported
        && role.catchUpTo != Long.MAX_VALUE
        && (role.catchUpTo == NONE || currentWatermark >= role.catchUpTo)) {
      role.caughtUpReported = true;
      services.send(COORDINATOR, new EpochMessage.CaughtUp(role.epoch, setup.task()));
    }
    if (role.drained() && bucketsPulling == 0) {
      services.send(COORDINATOR, new EpochMessage.Drained(role.epoch, setup.task(), transfer()));
      role = null;
    }
  }

  // ---------------------------------------------------------------- chain plumbing

  private Output<Object> chained(int i) {
    Operator<Object, Object> op = ops.get(i);
    String name = opNames.get(i);
    return (value, ts) -> {
      try {
        op.process(value, ts, 0);
      } catch (KoalaException e) {
        throw e;
      } catch (Exception e) {
        throw new UserFunctionException(name, e);
      }
    };
  }

  /** The context of operator {@code i} of the chain. */
  private final class Context implements OperatorContext<Object> {
    private final int index;
    private final Output<Object> output;

    Context(int index, Output<Object> output) {
      this.index = index;
      this.output = output;
    }

    @Override
    public String operatorName() {
      return opNames.get(index);
    }

    @Override
    public int taskIndex() {
      return setup.task().index();
    }

    @Override
    public int parallelism() {
      return setup.parallelism();
    }

    @Override
    public Output<Object> output() {
      return output;
    }

    @Override
    public KeyedStateContext keyedState() {
      checkKeyed();
      return state;
    }

    @Override
    public NamespacedState namespacedState() {
      checkKeyed();
      return state;
    }

    @Override
    public InternalTimers timers() {
      checkKeyed();
      return timers;
    }

    @Override
    public long currentWatermark() {
      return currentWatermark;
    }

    @Override
    public <T> Codec<T> codec(Class<T> type) {
      return Codecs.forClass(type, serde);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <X> Output<X> sideOutput(OutputTag<X> tag) {
      if (index != ops.size() - 1) {
        return (value, ts) -> {}; // only the chain's last operator has edges of its own
      }
      return (Output<X>) (Output<?>) (Output<Object>) (value, ts) -> route(tag.name(), value, ts);
    }

    @Override
    public void lateRecordDropped() {
      metrics.lateRecords++;
    }

    @Override
    public Object currentKey() {
      checkKeyed();
      return state.currentKey();
    }

    private void checkKeyed() {
      if (index != 0 || state == null) {
        throw new IllegalStateException(
            "operator '" + operatorName() + "' has no keyed state: it must follow keyBy(...)");
      }
    }

    @Override
    public Collector<Object> clientResults() {
      return TaskEngine.this::collectForClient;
    }

    @Override
    public long restoredCheckpoint() {
      return restored == null ? 0 : restored.checkpointId();
    }

    @Override
    public boolean checkpointing() {
      return services.checkpointing();
    }
  }

  /** One partition read by this source task. */
  private static final class SourcePartition {
    final int partition;
    final PartitionReader<Object> reader;
    final PartitionWatermarks watermarks;
    long offset;
    boolean done;

    SourcePartition(int partition, PartitionReader<Object> reader, PartitionWatermarks watermarks) {
      this.partition = partition;
      this.reader = reader;
      this.watermarks = watermarks;
      this.done = reader.end() == 0;
    }

    @Override
    public String toString() {
      return "partition " + partition + " at " + offset;
    }
  }
}
