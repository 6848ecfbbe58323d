package io.koala.core;

import io.koala.core.TaskSetup.InputSpec;
import io.koala.core.TaskSetup.OutputSpec;
import io.koala.core.checkpoint.CheckpointMessage;
import io.koala.core.checkpoint.TaskCheckpoint;
import io.koala.core.reconfig.BucketHandover;
import io.koala.core.reconfig.EpochMessage;
import io.koala.core.reconfig.KeyLocations;
import io.koala.core.reconfig.StateMessage;
import io.koala.dataflow.KeySelector;
import io.koala.plan.ExecutionPlan.Vertex;
import io.koala.plan.TaskId;
import io.koala.serialization.KeyEncoder;
import io.koala.serialization.KryoSerde;
import io.koala.store.ReadTxn;
import io.koala.store.StateStore;
import io.koala.store.StoreStats;
import io.koala.store.Table;
import java.util.List;
import java.util.function.IntPredicate;

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
 *
 * <p>The engine owns the lifecycle and the loop ({@code drain}: what runs next, and the dispatch of
 * each channel item); the decisions are its parts': {@link OperatorChain} (the operators and every
 * call into user code), {@link InputGate} (input channels, credit, arrival order, barrier holds),
 * {@link OutputGate} (routing, batching, credit, routing switches), {@link EventTime} (watermarks
 * and timers), {@link SourceDriver} (what a source reads, and when), {@link BarrierAligner}
 * (checkpoints), {@link EpochParticipant} (this task's part in a reconfiguration), {@link
 * StatePlane} (where keyed state is, and getting it here), and {@link BatchClock} (capacity and
 * batch latency).
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
  private final StateStore store; // null: the chain keeps no keyed state
  private final TaskMetrics metrics = new TaskMetrics();
  private final OperatorChain chain;
  private final InputGate input;
  private final OutputGate output;
  private final BatchClock clock;
  private final SourceDriver source;
  private final StatePlane keyed; // null: the chain keeps no keyed state
  private final EventTime eventTime;
  private final EpochParticipant epoch;
  private final BarrierAligner aligner;
  private final IntPredicate peerInput; // whether a channel is an incoming peer channel
  private Status status = Status.CREATED;
  private TaskCheckpoint restored; // what start() resumes from, or null

  /**
   * @param store the task's store, or {@code null} when the chain keeps no keyed state
   */
  public TaskEngine(
      TaskSetup setup, Vertex vertex, StateStore store, KryoSerde serde, Services services) {
    this.setup = setup;
    this.services = services;
    this.serde = serde;
    this.store = store;
    KeyEncoder keys = new KeyEncoder(serde); // one per task: routing and keyed state share it
    output = new OutputGate(setup, vertex, serde, keys, services, metrics);
    input = new InputGate(setup, services);
    clock = new BatchClock(vertex, services, metrics);
    boolean isKeyed = vertex.head().keyedState() || vertex.head().hasKeyedInput();
    if (isKeyed && store == null) {
      throw new IllegalArgumentException("keyed task " + setup.task() + " needs a state store");
    }
    chain = new OperatorChain(setup, vertex, metrics);
    RemoteStateClient remote = isKeyed ? new RemoteStateClient(setup, services) : null;
    keyed =
        isKeyed
            ? new StatePlane(
                setup,
                vertex,
                store,
                serde,
                keys,
                services,
                metrics,
                chain,
                clock,
                remote,
                this::currentWatermark,
                this::lastBarrier,
                this::scheduleProcessingTimers)
            : null;
    eventTime = new EventTime(setup, services, metrics, input.channels(), chain, output, keyed);
    source =
        new SourceDriver(
            setup,
            vertex.head(),
            services,
            metrics,
            chain,
            input,
            output,
            eventTime,
            clock,
            this::drain);
    epoch =
        new EpochParticipant(
            setup, services, metrics, chain, input, output, eventTime, keyed, remote, clock);
    aligner = new BarrierAligner(setup, services, chain, input, output, eventTime, source, keyed);
    peerInput = epoch::isPeerInput;
  }

  private long currentWatermark() {
    return eventTime.current();
  }

  private long lastBarrier() {
    return aligner.lastBarrier();
  }

  private void scheduleProcessingTimers() {
    eventTime.scheduleProcessingTimers();
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
          chain.open(
              new OperatorChain.Environment(
                  services,
                  serde,
                  keyed == null ? null : keyed.state(),
                  keyed == null ? null : keyed.timers(),
                  eventTime,
                  output,
                  restored == null ? 0 : restored.checkpointId()));
          long now = services.currentTimeMillis();
          if (source.isSource()) {
            source.open(startMillis, now, restored);
          }
          if (restored != null) {
            restoreTask();
          }
          if (keyed != null) {
            keyed.init(restored == null);
            eventTime.scheduleProcessingTimers();
          }
          status = Status.RUNNING;
          if (restored != null) {
            output.resumeDownstream(); // from where this task's event time was
          }
          metrics.tick(now);
          if (source.isSource()) {
            source.schedulePoll(0);
          } else if (!input.hasOpenInputs()) {
            input.end();
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
          if (keyed != null) {
            restoreTask();
          }
          status = Status.FINISHED;
          aligner.restore(checkpoint.checkpointId());
        });
  }

  /** Applies {@link #restored} to the event time, the inputs and the lookup table. */
  private void restoreTask() {
    TaskCheckpoint cp = restored;
    aligner.restore(cp.checkpointId());
    eventTime.restore(cp.watermark());
    output.restore(cp.forwardedWatermark(), cp.idle());
    source.restoreWatermark(cp.forwardedWatermark());
    for (int channel : cp.endedInputs()) {
      InputGate.Lane lane = input.restoreEnded(channel);
      if (lane != null) { // else a peer channel of an epoch before the checkpoint
        eventTime.onEnd(lane.watermarkIndex());
      }
    }
    if (keyed != null) {
      keyed.restore(cp);
    }
  }

  /** Stops processing for good; open writes are discarded. */
  public void cancel() {
    if (status != Status.FINISHED && status != Status.FAILED) {
      status = Status.CANCELLED;
    }
    if (keyed != null) {
      keyed.abort();
    }
  }

  /** Closes the operators (after finish, failure or cancellation). Idempotent. */
  public void close() {
    if (keyed != null) {
      keyed.abort();
    }
    chain.close();
  }

  public Status status() {
    return status;
  }

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
    return keyed == null ? NOT_OWNER : keyed.locate(key);
  }

  // ---------------------------------------------------------------- inputs

  /** A channel item arrived. */
  public void onDeliver(Deliver d) {
    if (status != Status.RUNNING && status != Status.CREATED) {
      return;
    }
    guard(
        () -> {
          input.accept(d);
          drain();
        });
  }

  /** A credit grant arrived for one of this task's output channels. */
  public void onCredit(Credit c) {
    if (status == Status.FAILED || status == Status.CANCELLED || status == Status.FINISHED) {
      return; // a stopped task sends nothing more
    }
    if (!output.hasChannel(c.channel())) {
      if (epoch.announcesPeerOut(c.channel())) {
        return; // a receiver's grant for a peer channel this task opens at hand-over
      }
      fail(
          new ProtocolViolationException(
              "task " + setup.task() + " has no output channel " + c.channel()));
      return;
    }
    guard(
        () -> {
          output.onCredit(c.channel(), c.limit());
          if (status == Status.FINISHING) {
            checkFinished();
          } else if (status == Status.RUNNING && !output.blocked()) {
            if (source.isSource()) {
              source.schedulePoll(0);
            }
            drain();
          } else if (status == Status.RUNNING && output.blockedOnlyOnPeers()) {
            drain();
          }
        });
  }

  /** A timer asked for with {@link Services#schedule} is due. */
  public void onTimer(Timer timer) {
    switch (timer) {
      case FLUSH -> {
        output.flushDue();
        if (status == Status.RUNNING) {
          guard(output::flushAll);
        }
      }
      case POLL -> {
        source.pollDue();
        if (status == Status.RUNNING) {
          guard(source::poll);
        }
      }
      case PROCESSING_TIME -> {
        eventTime.processingTimerDue();
        if (status == Status.RUNNING) {
          guard(this::drain);
        }
      }
      case CAPACITY -> {
        clock.capacityDue();
        if (status == Status.RUNNING) {
          guard(this::drain);
        }
      }
      case DRAIN -> {
        if (keyed != null) {
          keyed.drainDue();
          if (status == Status.RUNNING) {
            guard(keyed::drainHolders);
          }
        }
      }
    }
  }

  /**
   * Periodic housekeeping, about once per second: re-sends every credit grant (grants are
   * cumulative, so a lost one cannot stall a channel) and rolls the per-second rates.
   */
  public void onTick() {
    metrics.tick(services.currentTimeMillis());
    if (status == Status.RUNNING || status == Status.FINISHING) {
      input.resendCredits();
    }
  }

  // ---------------------------------------------------------------- processing

  /**
   * Processes what can be processed: due processing-time timers, the watermark being applied, then
   * queued items in arrival order, stopping while the output is backpressured.
   */
  private void drain() {
    while (status == Status.RUNNING) {
      if (output.blocked()) {
        if (output.blockedOnlyOnPeers() && consumePeerItem()) {
          continue;
        }
        break;
      }
      if (eventTime.processingTimersDue()) {
        if (!eventTime.fireProcessingTimers()) {
          break; // more are due once the output drains
        }
        continue;
      }
      if (eventTime.hasPending()) {
        if (!eventTime.apply()) {
          break; // timers left to fire once the output drains
        }
        epoch.check();
        continue;
      }
      if (input.ended()) {
        if (!nothingParked()) {
          break; // the last records are still waiting for their state
        }
        finishInputs();
        break;
      }
      InputGate.Lane lane = input.oldest(); // channels behind a barrier wait for the snapshot (§8)
      if (lane == null) {
        break;
      }
      Deliver d = input.peek(lane);
      if ((keyed != null && !keyed.admits(d.item())) || !clock.mayRun(d.item())) {
        break;
      }
      input.poll(lane);
      consume(lane, d);
    }
    scheduleFlushIfPartial();
  }

  /**
   * Consumes the first pending item of a peer input channel, if the parking rules allow it (see
   * {@link OutputGate#blockedOnlyOnPeers}).
   */
  private boolean consumePeerItem() {
    if (!epoch.active() || !nothingParked()) {
      return false;
    }
    InputGate.Lane lane = input.oldest(peerInput);
    if (lane == null) {
      return false;
    }
    Deliver d = input.peek(lane);
    if (!clock.mayRun(d.item())) {
      return false;
    }
    input.poll(lane);
    consume(lane, d);
    return true;
  }

  private void consume(InputGate.Lane lane, Deliver d) {
    InputChannel ch = lane.channel();
    int index = lane.watermarkIndex();
    ChannelItem item = d.item();
    long advanced = NONE;
    if (item instanceof RecordBatch batch) {
      eventTime.onData(index);
      process(ch, batch);
    } else if (item instanceof Watermark w) {
      advanced = eventTime.onWatermark(index, w.timestamp());
    } else if (item == Idle.INSTANCE) {
      advanced = eventTime.onIdle(index);
    } else if (item instanceof ForwardedBatch forwarded) {
      eventTime.onData(index);
      epoch.processForwarded(forwarded);
    } else if (item instanceof Handover h) {
      epoch.installHandover(h, (TaskId) ch.source());
    } else if (item instanceof StateChunk c) {
      epoch.installChunk(c);
    } else if (item instanceof PeerMarker pm) {
      epoch.peerMarker(ch, pm);
    } else if (item instanceof Marker) {
      epoch.marker(ch);
    } else if (item instanceof CheckpointBarrier b) {
      if (epoch.active()) {
        throw new ProtocolViolationException(
            "task " + setup.task() + ": barrier " + b.checkpointId() + " during an epoch (C1)");
      }
      aligner.barrier(lane, b.checkpointId());
    } else if (item == EndOfChannel.INSTANCE) {
      advanced = eventTime.onEnd(index);
      epoch.channelEnded(ch);
    } else {
      throw new IllegalStateException("unhandled " + item);
    }
    input.consumed(lane, item == EndOfChannel.INSTANCE);
    eventTime.consumed(advanced, item == Idle.INSTANCE || item == EndOfChannel.INSTANCE);
    epoch.check();
    aligner.checkAligned(status == Status.RUNNING);
  }

  /**
   * Runs a batch of records from upstream channel {@code ch}: a keyed task forwards those of
   * buckets it handed over, holds those that must wait for a peer marker (§6.6) and parks those
   * whose state is elsewhere (§6.4); the others run now.
   */
  private void process(InputChannel ch, RecordBatch batch) {
    long t0 = services.nanoTime();
    clock.start(t0);
    int edge = ch.input();
    KeySelector<Object, Object> selector = keyed == null ? null : keyed.selector(edge);
    if (keyed != null) {
      keyed.begin();
    }
    for (int i = 0; i < batch.size(); i++) {
      Object value = batch.value(i);
      long ts = batch.timestamp(i);
      if (keyed != null) {
        int bucket = keyed.setKey(selector, value);
        if (!keyed.owns(bucket)) {
          epoch.forwardOrFail(bucket, value, ts, edge);
          continue;
        }
        if (epoch.holds(ch, bucket, value, ts) || keyed.parked(bucket, value, ts, edge)) {
          continue;
        }
      }
      chain.processHead(value, ts, edge);
    }
    chain.endBatch();
    if (keyed != null) {
      keyed.commit();
      eventTime.scheduleProcessingTimers();
      keyed.sendFetches();
    }
    chain.recordKey(null);
    clock.done(t0);
  }

  private boolean nothingParked() {
    return keyed == null || keyed.nothingParked();
  }

  private void scheduleFlushIfPartial() {
    if (status == Status.RUNNING) {
      output.scheduleFlushIfPartial();
    }
  }

  // ---------------------------------------------------------------- end of input

  /** Every input has ended and every event-time timer has fired: finish and close the outputs. */
  private void finishInputs() {
    chain.finish();
    output.end();
    status = Status.FINISHING;
    checkFinished();
  }

  private void checkFinished() {
    if (!output.blocked()) {
      status = Status.FINISHED;
      services.finished();
      aligner.finished();
    }
  }

  // ---------------------------------------------------------------- the state plane

  /**
   * The state server of task {@code holder} of this operator stopped: fails the task if it still
   * references state there or awaits a reply from it (§6.8, C7) — that state is gone.
   */
  public void onHolderTerminated(int holder) {
    if (keyed == null
        || status == Status.FAILED
        || status == Status.CANCELLED
        || status == Status.FINISHED) {
      return;
    }
    if (keyed.references(holder)) {
      fail(
          new IllegalStateException(
              "task "
                  + new TaskId(setup.task().operator(), holder)
                  + ", which holds state "
                  + setup.task()
                  + " still needs, stopped (its worker or node may be gone)"));
    }
  }

  /**
   * A holder answered a fetch: installs each key still owned and still awaited from that holder,
   * and each drained key that resolves to exactly that holder (K4), in one transaction; runs the
   * keys' parked items in order, and releases the holder's copies.
   */
  public void onStateReply(StateMessage.StateReply reply) {
    if (status != Status.RUNNING || keyed == null) {
      return;
    }
    guard(
        () -> {
          keyed.onStateReply(reply);
          epoch.check();
          drain();
        });
  }

  /** A remote state service cannot serve this task's state any more: the task fails. */
  public void onServiceFailed(StateMessage.ServiceFailed f) {
    if (status == Status.RUNNING || status == Status.FINISHING) {
      fail(new IllegalStateException(f.reason()));
    }
  }

  /**
   * An owner installed a copy this task held: deletes it if this task still has the bucket's
   * generation the copy was fetched at and does not own the bucket (§6.7, K5).
   */
  public void onRelease(StateMessage.Release release) {
    if (keyed == null || status == Status.FAILED || status == Status.CANCELLED) {
      return;
    }
    if (keyed.releases(release)) {
      guard(() -> keyed.delete(release.key()));
    }
  }

  /**
   * Gives up {@code bucket} (the reconfiguration protocol calls this at hand-over, and also ships
   * the bucket's timers and forwards its records): returns its lookup-table part for the receiver.
   */
  public BucketHandover handOver(int bucket) {
    return keyed.handOver(bucket);
  }

  /** Takes ownership of a bucket another task handed over (see {@link #handOver}). */
  public void takeOver(BucketHandover h) {
    keyed.takeOver(h);
  }

  // ---------------------------------------------------------------- reconfiguration: channels

  /**
   * Adds an input channel announced by a reconfiguration (from a new upstream task, or a peer
   * channel): until it delivers a watermark it holds this task's watermark (§6.1 step 1, P4).
   */
  public void addInput(InputSpec in) {
    if (input.has(in.channel())) {
      return; // announced twice: idempotent
    }
    if (input.ended()) {
      throw new IllegalStateException(
          "task " + setup.task() + " has ended its input; it cannot get channel " + in.channel());
    }
    input.add(in, eventTime.addChannel());
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
    if (output.switching(edge, epoch)) {
      guard(() -> output.switchRouting(edge, next, epoch, chain.tailName()));
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
    guard(() -> aligner.onCommand(c, status));
  }

  /** For diagnostics: the checkpoint being aligned and the inputs it still waits for. */
  public String alignment() {
    return aligner.alignment(status, keyed == null ? 0 : keyed.parkedCount());
  }

  // ---------------------------------------------------------------- failure

  private void guard(ThrowingRunnable r) {
    try {
      r.run();
    } catch (UserFunctionException e) {
      fail(ErrorInfo.of(e.operator(), setup.task(), chain.recordKey(), e));
    } catch (Exception e) {
      fail(ErrorInfo.of(chain.headName(), setup.task(), chain.recordKey(), e));
    }
  }

  /** Fails the task for {@code e}, which no record's key is behind. */
  private void fail(Exception e) {
    fail(ErrorInfo.of(chain.headName(), setup.task(), null, e));
  }

  private void fail(ErrorInfo error) {
    if (status == Status.FAILED || status == Status.CANCELLED) {
      return;
    }
    status = Status.FAILED;
    if (keyed != null) {
      keyed.abort();
    }
    input.clear();
    services.failed(error);
  }

  @FunctionalInterface
  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  // ---------------------------------------------------------------- metrics

  /** The task's metrics now. */
  public TaskMetricsSnapshot metrics() {
    long now = services.currentTimeMillis();
    SourceDriver.Lag lag = source.lag(now);
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
        lag.records(),
        lag.seconds(),
        stateBytes,
        stateEntries,
        output.blocked(),
        source.isSource() ? source.watermark() : eventTime.current(),
        metrics.lateRecords,
        new TaskMetricsSnapshot.Reconfiguration(
            metrics.fetchRequests,
            metrics.keysFetched,
            metrics.stateBytesFetched,
            metrics.recordsForwarded,
            metrics.recordsHeld,
            metrics.bucketsHandedOver,
            metrics.bucketsTakenOver,
            keyed == null ? 0 : keyed.parkedCount(),
            keyed == null ? 0 : keyed.lookupMemoryBytes(),
            metrics.keysDrained,
            metrics.piggybackedKeys));
  }

  // ---------------------------------------------------------------- reconfiguration: commands

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
      guard(() -> output.endNewChannels(sw.next(), chain.headName()));
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
                COORDINATOR,
                new EpochMessage.Prepared(p.epoch(), setup.task(), w, epoch.transfer()));
          } else if (c instanceof EpochMessage.ExpectInputs e) {
            expectInputs(e);
            services.send(
                COORDINATOR,
                new EpochMessage.Prepared(e.epoch(), setup.task(), NONE, epoch.transfer()));
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
            source.approveEnd();
          } else if (c instanceof EpochMessage.PauseInput p) {
            source.pause();
            services.send(COORDINATOR, new EpochMessage.Paused(p.epoch(), setup.task()));
          } else if (c instanceof EpochMessage.ResumeInput) {
            source.resume();
          }
        });
  }

  /** The coordinator published the operator's retiring holders: drain them (§6.5). */
  private void retiring(EpochMessage.Retiring r) {
    if (keyed == null) {
      services.send(COORDINATOR, new EpochMessage.References(r.epoch(), setup.task(), List.of()));
      return;
    }
    keyed.retiring(r);
  }

  /**
   * Step 1 (§6.1), at a task of the target operator: learns its part, opens its incoming peer
   * channels (they hold its watermark until they deliver one, so it cannot emit past what it has
   * now; outgoing ones open at hand-over), and returns the watermark it will not emit past (W1).
   * Idempotent.
   */
  public long prepare(EpochMessage.PrepareTarget p) {
    if (epoch.prepare(p)) {
      for (EpochMessage.Peer in : p.peersIn()) {
        addInput(new InputSpec(in.channel(), in.task(), PEER_EDGE));
      }
    }
    return eventTime.combined();
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
    if (epoch.catchUp(c)) {
      guard(this::drain);
    }
    epoch.check();
  }

  /**
   * Step 2b, at a sender: gives up its moving buckets. Per receiver, the peer channel carries each
   * bucket's lookup-table part and timers (deleted here; those at or before the applied watermark
   * have fired), then the records parked on those keys (their fetches are abandoned), then the
   * applied watermark, then a {@link Marker} closing the hand-over. Later records of those buckets
   * are forwarded. Idempotent.
   */
  public void handOverBuckets(EpochMessage.HandOverBuckets h) {
    if (epoch.mustHandOver(h)) {
      guard(() -> epoch.handOver(h.move()));
      // the hand-over may fill a peer channel; peer input must still be consumed (see drain)
      guard(this::drain);
    }
    services.send(COORDINATOR, new EpochMessage.HandedOver(h.epoch(), setup.task()));
  }
}
