package io.koala.task;

import io.koala.function.UserFunctionException;
import io.koala.job.ErrorInfo;
import io.koala.job.HolderStoppedException;
import io.koala.job.StatePlaneStats.Stall;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.keys.KeyLocations;
import io.koala.plan.ExecutionPlan.Vertex;
import io.koala.plan.TaskId;
import io.koala.protocol.BucketHandover;
import io.koala.protocol.CheckpointMessage;
import io.koala.protocol.Credit;
import io.koala.protocol.Deliver;
import io.koala.protocol.EpochMessage;
import io.koala.protocol.IngestMessage;
import io.koala.protocol.ProtocolViolationException;
import io.koala.protocol.QueryMessage;
import io.koala.protocol.StateMessage;
import io.koala.protocol.TaskSetup;
import io.koala.protocol.TaskSetup.InputSpec;
import io.koala.protocol.TaskSetup.OutputSpec;
import io.koala.serialization.KeyEncoder;
import io.koala.serialization.KryoSerde;
import io.koala.store.StateStore;
import io.koala.store.StoreStats;
import io.koala.store.Table;
import io.koala.time.WatermarkTracker;
import java.util.Map;

/**
 * The data plane of one task as a pure, single-threaded state machine: it consumes channel items
 * and credits, runs the operator chain, tracks event time, fires timers, batches and routes its
 * output under credit-based flow control, and reports what to send and when to wake it through
 * {@link TaskHost}. It never blocks and never reads a clock except through {@link TaskHost}, so the
 * same engine runs inside a task actor and inside a deterministic simulator.
 *
 * <p>Its lifecycle is {@link TaskStatus}.
 *
 * <p>Flow control: an input item is consumed (and its credit returned) only when processed; while
 * any output channel holds items waiting for credit, the task processes nothing more, so
 * backpressure reaches the sources, which then fall behind their logs (lag).
 *
 * <p>Event time (DESIGN §4.5): items of all channels are consumed in arrival order, and a watermark
 * is applied only after every record that arrived before it: while such a record is parked for its
 * state, the watermark's channel waits and the other channels flow ({@link StatePlane#admits}). The
 * task's watermark is the minimum over its channels ({@link WatermarkTracker}); when it advances,
 * the due event-time timers fire in timestamp order (in chunks, pausing while the output is
 * backpressured), the operators see the watermark, and it is forwarded on every output channel
 * after the records emitted before it.
 *
 * <p>The engine owns the lifecycle and the loop ({@code drain}: what runs next); the decisions are
 * its parts': {@link ItemDispatch} (what each item does), {@link OperatorChain} (the operators and
 * every call into user code), {@link InputGate} (input channels, credit, arrival order, barrier
 * holds), {@link OutputGate} (routing, batching, credit, routing switches), {@link EventTime}
 * (watermarks and timers), {@link SourceDriver} (what a source reads, and when), {@link
 * BarrierAligner} (checkpoints), {@link EpochParticipant} (this task's part in a reconfiguration),
 * {@link StatePlane} (where keyed state is, and getting it here), and {@link BatchClock} (capacity
 * and batch latency).
 */
public final class TaskEngine {

  /** Target of the channel carrying results back to the job's client. */
  public static final String CLIENT = "client";

  /** Target of reports to the job's coordinator. */
  public static final String COORDINATOR = "coordinator";

  /** The input edge number of a peer channel (its records carry their own edges). */
  public static final int PEER_EDGE = -1;

  private static final long NONE = WatermarkTracker.NONE;

  private final TaskSetup setup;
  private final TaskHost host;
  private final KryoSerde serde;
  private final StateStore store; // null: the chain keeps no keyed state
  private final TaskMetrics metrics;
  private final OperatorChain chain;
  private final RecordErrors errors;
  private final InputGate input;
  private final OutputGate output;
  private final BatchClock clock;
  private final SourceDriver source;
  private final StatePlane keyed; // null: the chain keeps no keyed state
  private final EventTime eventTime;
  private final EpochParticipant epoch;
  private final BarrierAligner aligner;
  private final ItemDispatch dispatch;
  private final TaskStalls stalls;
  private final InputGate.Admission admission; // which channels' first items may run now
  private final InputGate.Admission peerAdmission; // the same, among incoming peer channels
  private final KeyQueries queries;
  private TaskStatus status = TaskStatus.CREATED;
  private TaskCheckpoint restored; // what start() resumes from, or null

  /**
   * @param store the task's store, or {@code null} when the chain keeps no keyed state
   */
  public TaskEngine(
      TaskSetup setup, Vertex vertex, StateStore store, KryoSerde serde, TaskHost host) {
    this.setup = setup;
    this.host = host;
    this.serde = serde;
    this.store = store;
    KeyEncoder keys = new KeyEncoder(serde); // one per task: routing and keyed state share it
    boolean isKeyed = vertex.head().keyedState() || vertex.head().hasKeyedInput();
    errors =
        new RecordErrors(
            vertex.recordErrors(),
            setup.jobId(),
            setup.task(),
            vertex.chain().size(),
            vertex.sendsDeadLetters());
    metrics = new TaskMetrics(vertex, isKeyed ? setup.buckets() : 0, setup.settings(), errors);
    output = new OutputGate(setup, vertex, serde, keys, host, metrics);
    input = new InputGate(setup, host);
    clock = new BatchClock(vertex, host, metrics);
    stalls = new TaskStalls(host, metrics);
    if (isKeyed && store == null) {
      throw new IllegalArgumentException("keyed task " + setup.task() + " needs a state store");
    }
    chain = new OperatorChain(setup, vertex, metrics, errors);
    RemoteStateClient remote = isKeyed ? new RemoteStateClient(setup, host) : null;
    keyed =
        isKeyed
            ? new StatePlane(
                setup,
                vertex,
                store,
                serde,
                keys,
                host,
                metrics,
                chain,
                clock,
                remote,
                this::currentWatermark,
                this::lastBarrier,
                this::scheduleProcessingTimers)
            : null;
    KeyedBatch keyedBatch =
        isKeyed ? new KeyedBatch(keyed, chain, this::scheduleProcessingTimers) : null;
    metrics.loads.owners(isKeyed ? keyed::owns : b -> false);
    eventTime =
        new EventTime(setup, host, metrics, input.channels(), chain, output, keyed, keyedBatch);
    source =
        new SourceDriver(
            setup,
            vertex.head(),
            host,
            metrics,
            chain,
            input,
            output,
            eventTime,
            clock,
            this::drain);
    epoch =
        new EpochParticipant(
            setup,
            host,
            metrics,
            chain,
            input,
            output,
            eventTime,
            keyed,
            keyedBatch,
            remote,
            clock,
            source.isSource() ? source::watermark : eventTime::combined);
    aligner = new BarrierAligner(setup, host, chain, input, output, eventTime, source, keyed);
    dispatch =
        new ItemDispatch(
            host,
            chain,
            input,
            eventTime,
            keyed,
            keyedBatch,
            epoch,
            aligner,
            clock,
            () -> status == TaskStatus.RUNNING);
    admission =
        keyed == null
            ? InputGate.Admission.ALL
            : (channel, item, arrival) ->
                keyed.admits(item, arrival, epoch.heldBytesAgainst(channel));
    peerAdmission =
        (channel, item, arrival) ->
            epoch.isPeerInput(channel) && admission.admits(channel, item, arrival);
    queries =
        new KeyQueries(
            setup.task(),
            host,
            keyed,
            store,
            remote != null && remote.enabled(),
            vertex.head().declaredKeyType(),
            epoch);
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
    if (status != TaskStatus.CREATED) {
      return;
    }
    guard(
        () -> {
          chain.open(environment());
          long now = host.currentTimeMillis();
          clock.jobStarted(startMillis);
          if (source.isSource()) {
            source.open(startMillis, restored);
          }
          if (restored != null) {
            aligner.restoreTask(restored);
          }
          if (keyed != null) {
            keyed.init(restored == null);
            eventTime.scheduleProcessingTimers();
          }
          status = status.to(TaskStatus.RUNNING);
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

  /** What the chain's operators reach outside it, as restored ({@link #restore}) if so. */
  private OperatorChain.Environment environment() {
    return new OperatorChain.Environment(
        host,
        serde,
        keyed == null ? null : keyed.state(),
        keyed == null ? null : keyed.timers(),
        eventTime,
        output,
        restored == null ? 0 : restored.checkpointId(),
        restored == null ? Map.of() : restored.sinkStates());
  }

  /**
   * Resumes this task, before {@link #start}, from its snapshot in a checkpoint (DESIGN §8); the
   * store the engine was built with holds the snapshot's state.
   */
  public void restore(TaskCheckpoint checkpoint) {
    if (status != TaskStatus.CREATED) {
      throw new IllegalStateException("task " + setup.task() + " restored after it started");
    }
    restored = checkpoint;
  }

  /**
   * Resumes a retired holder from its snapshot: it processes nothing more, serves its state to the
   * owners that reference it (through its host's state server) and deletes released copies; its
   * sink, if it ends in one, opens from the snapshot to publish what the checkpoints prepared.
   */
  public void startAsHolder(TaskCheckpoint checkpoint) {
    restore(checkpoint);
    guard(
        () -> {
          if (keyed != null) {
            aligner.restoreTask(checkpoint);
          }
          chain.openSinkOfHolder(environment());
          status = status.to(TaskStatus.FINISHED);
          aligner.restore(checkpoint.checkpointId());
        });
  }

  /** Stops processing for good; open writes are discarded. */
  public void cancel() {
    if (!status.ended()) {
      status = status.to(TaskStatus.CANCELLED);
    }
    if (keyed != null) {
      keyed.abort();
    }
  }

  /**
   * Closes the source's reader and the operators (after finish, failure or cancellation).
   * Idempotent.
   */
  public void close() {
    if (keyed != null) {
      keyed.abort();
    }
    source.close();
    chain.close();
  }

  public TaskStatus status() {
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

  /**
   * A state query: answered from this task's store, or by the holder of the key's state, if this
   * task processes the key's bucket; else the client is told to ask elsewhere. Between batches.
   */
  public void onQuery(QueryMessage.Read read) {
    queries.onRead(read, servingQueries());
  }

  /** A scan of a bucket's keys (see {@link #onQuery}). */
  public void onScan(QueryMessage.Scan scan) {
    queries.onScan(scan, servingQueries(), host.nanoTime());
  }

  /** A holder's part of a scan this task runs. */
  public void onHolderScanned(QueryMessage.HolderScanned m) {
    queries.onHolderScanned(m);
  }

  private boolean servingQueries() {
    return status.servesQueries();
  }

  // ---------------------------------------------------------------- inputs

  /** A channel item arrived. */
  public void onDeliver(Deliver d) {
    if (status != TaskStatus.RUNNING && status != TaskStatus.CREATED) {
      return;
    }
    guard(
        () -> {
          epoch.arrived(input.accept(d), d.item());
          drain();
        });
  }

  /** A credit grant arrived for one of this task's output channels. */
  public void onCredit(Credit c) {
    if (status.ended()) {
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
          if (status == TaskStatus.FINISHING) {
            checkFinished();
          } else if (status == TaskStatus.RUNNING && !output.blocked()) {
            if (source.isSource()) {
              source.schedulePoll(0);
            }
            drain();
          } else if (status == TaskStatus.RUNNING && output.blockedOnlyOnPeers()) {
            drain();
          }
        });
  }

  /** A message of the source's ingest handle, or its attachment. */
  public void onIngest(IngestMessage.ToTask m) {
    if (status == TaskStatus.RUNNING) {
      guard(() -> source.onIngest(m));
    }
  }

  /** A timer asked for with {@link TaskHost#schedule} is due. */
  public void onTimer(TaskTimer timer) {
    switch (timer) {
      case FLUSH -> due(output::flushDue, output::flushAll);
      case POLL -> due(source::pollDue, source::poll);
      case PROCESSING_TIME -> due(eventTime::processingTimerDue, this::drain);
      case CAPACITY -> due(clock::capacityDue, this::drain);
      case DRAIN -> {
        if (keyed != null) {
          due(keyed::drainDue, keyed::drainHolders);
        }
      }
      case READY -> {
        if (status == TaskStatus.FINISHING) {
          guard(this::checkFinished); // its sink took the last records
        } else {
          due(() -> {}, this::woken);
        }
      }
    }
  }

  /**
   * The sink may take records again, or the source's reader has records (both wake the task through
   * its waker): reading and processing go on.
   */
  private void woken() {
    if (source.isSource()) {
      source.pollNow();
    }
    drain();
  }

  /** A timer is due: {@code due} notes it, and {@code work} runs if the task runs. */
  private void due(Runnable due, ThrowingRunnable work) {
    due.run();
    if (status == TaskStatus.RUNNING) {
      guard(work);
    }
  }

  /**
   * Periodic housekeeping, about once per second: re-sends every credit grant (grants are
   * cumulative, so a lost one cannot stall a channel) and rolls the per-second rates.
   */
  public void onTick() {
    metrics.tick(host.currentTimeMillis());
    queries.expire(host.nanoTime());
    if (status.processing()) {
      input.resendCredits();
    }
    if (status == TaskStatus.RUNNING) {
      guard(source::tick);
    }
  }

  // ---------------------------------------------------------------- processing

  /**
   * Processes what can be processed: due processing-time timers, the watermark being applied, then
   * queued items in arrival order, stopping while the output is backpressured; notes why it stopped
   * with work queued ({@link TaskStalls}).
   */
  private void drain() {
    stalls.resumed();
    Stall stopped = loop();
    stalls.stopped(status == TaskStatus.RUNNING ? stopped : null);
    scheduleFlushIfPartial();
  }

  /** The loop of {@link #drain}: returns why it stopped, or null when it has nothing to do. */
  private Stall loop() {
    while (status == TaskStatus.RUNNING) {
      if (output.blocked()) {
        if (output.blockedOnlyOnPeers() && consumePeerItem()) {
          continue;
        }
        return Stall.BLOCKED_OUTPUT;
      }
      if (!chain.ready()) {
        return Stall.SINK_BUSY; // the sink's waker resumes the loop (TaskTimer.READY)
      }
      if (eventTime.processingTimersDue()) {
        if (!eventTime.fireProcessingTimers()) {
          return Stall.BLOCKED_OUTPUT; // more are due once the output drains
        }
        continue;
      }
      if (eventTime.hasPending()) {
        if (!eventTime.apply()) {
          return Stall.BLOCKED_OUTPUT; // timers left to fire once the output drains
        }
        epoch.check();
        continue;
      }
      if (input.ended()) {
        if (!nothingParked()) {
          return Stall.PARKED_GATE; // the last records are still waiting for their state
        }
        finishInputs();
        return null;
      }
      // the oldest item the parking rules admit; channels behind a barrier wait for the snapshot
      // (§8), and a channel whose first item is refused waits with it while the others flow
      InputGate.Lane lane = input.oldest(admission);
      if (lane == null) {
        return nothingAdmitted();
      }
      Deliver d = input.peek(lane);
      if (!clock.mayRun(d.item())) {
        return Stall.THROTTLE;
      }
      take(lane, d);
    }
    return null;
  }

  /** Why the loop found no item to consume: a refusal, alignment, or nothing queued (null). */
  private Stall nothingAdmitted() {
    InputGate.Lane refused = input.oldest(InputGate.Admission.ALL);
    if (refused != null) {
      return keyed.refusal(
          input.peek(refused).item(), epoch.heldBytesAgainst(refused.channel().id()));
    }
    return input.hasQueued() ? Stall.ALIGNMENT : null;
  }

  /**
   * Consumes the first admitted item of a peer input channel, if any: while only peer outputs are
   * backpressured, peer input still flows (see {@link OutputGate#blockedOnlyOnPeers}).
   */
  private boolean consumePeerItem() {
    if (!epoch.active()) {
      return false;
    }
    InputGate.Lane lane = input.oldest(peerAdmission);
    if (lane == null) {
      return false;
    }
    Deliver d = input.peek(lane);
    if (!clock.mayRun(d.item())) {
      return false;
    }
    take(lane, d);
    return true;
  }

  private void take(InputGate.Lane lane, Deliver d) {
    long arrival = input.headArrival(lane);
    input.poll(lane);
    dispatch.consume(lane, d, arrival);
  }

  private boolean nothingParked() {
    return keyed == null || keyed.nothingParked();
  }

  private void scheduleFlushIfPartial() {
    if (status == TaskStatus.RUNNING) {
      output.scheduleFlushIfPartial();
    }
  }

  // ---------------------------------------------------------------- end of input

  /** Every input has ended and every event-time timer has fired: finish and close the outputs. */
  private void finishInputs() {
    chain.finish();
    output.end();
    status = status.to(TaskStatus.FINISHING);
    checkFinished();
  }

  private void checkFinished() {
    if (!output.blocked() && chain.ready()) {
      status = status.to(TaskStatus.FINISHED);
      host.finished();
      aligner.finished();
    }
  }

  // ---------------------------------------------------------------- the state plane

  /**
   * The state server of task {@code holder} of this operator stopped: fails the task if it still
   * references state there or awaits a reply from it (§6.8, C7) — that state is gone.
   */
  public void onHolderTerminated(int holder) {
    if (keyed == null || status.ended()) {
      return;
    }
    if (keyed.references(holder)) {
      fail(
          new HolderStoppedException(
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
    if (status != TaskStatus.RUNNING || keyed == null) {
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
    if (status.processing()) {
      fail(new IllegalStateException(f.reason()));
    }
  }

  /**
   * An owner installed copies this task held: deletes each it still has at the generation the copy
   * was fetched at, of a bucket it does not own (§6.7, K5), in one transaction.
   */
  public void onRelease(StateMessage.Release release) {
    if (keyed == null || status.stopped()) {
      return;
    }
    guard(() -> keyed.release(release));
  }

  /**
   * For tests of the state plane between two engines: gives up {@code bucket} by the ownership
   * steps of a hand-over, without an epoch (no peer channel, no timers shipped, no records
   * forwarded: the protocol's hand-over is {@link EpochMessage.HandOverBuckets}); returns its
   * lookup-table part for {@link #takeOver}.
   */
  public BucketHandover handOver(int bucket) {
    return keyed.handOver(bucket);
  }

  /** For tests of the state plane: takes over a bucket {@link #handOver} gave up. */
  public void takeOver(BucketHandover h) {
    keyed.takeOver(h);
  }

  // ---------------------------------------------------------------- reconfiguration: channels

  /** Adds an input channel announced by a reconfiguration ({@link EpochParticipant#addInput}). */
  public void addInput(InputSpec in) {
    epoch.addInput(in);
  }

  /**
   * Switches the routing of output edge {@code edge} to {@code next} at epoch {@code epoch} (§6.1
   * step 4; {@link EpochParticipant#switchRouting}). Idempotent per epoch.
   */
  public void switchRouting(int edge, OutputSpec next, long epoch) {
    this.epoch.switchRouting(edge, next, epoch, this::guard);
  }

  // ---------------------------------------------------------------- checkpoints

  /**
   * Carries out a checkpoint command (DESIGN §8): a source snapshots its offsets and emits the
   * barrier, a retired holder snapshots its store once it has finished, an abandoned checkpoint's
   * alignment ends, and a committed checkpoint releases the copies installed before the barrier of
   * the oldest checkpoint still restorable. Repeats are ignored.
   */
  public void onCheckpoint(CheckpointMessage.Command c) {
    if (status.stopped() || status == TaskStatus.CREATED) {
      return;
    }
    guard(
        () -> {
          aligner.onCommand(c, status);
          if (c instanceof CheckpointMessage.AbortCheckpoint) {
            drain(); // the channels its barrier held flow again
          }
        });
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
    if (status.stopped()) {
      return;
    }
    status = status.to(TaskStatus.FAILED);
    if (keyed != null) {
      keyed.abort();
    }
    input.clear();
    host.failed(error);
  }

  @FunctionalInterface
  interface ThrowingRunnable {
    void run() throws Exception;
  }

  // ---------------------------------------------------------------- metrics

  /** The task's metrics now. */
  public TaskMetricsSnapshot metrics() {
    stalls.settle();
    long now = host.currentTimeMillis();
    StoreStats stats = store != null && status != TaskStatus.CANCELLED ? store.stats() : null;
    return metrics.snapshot(
        setup.task(),
        status.name(),
        source.lag(now),
        stats == null ? 0 : stats.bytes(),
        stats == null ? 0 : stats.entries(Table.STATE),
        output.blocked(),
        source.isSource() ? source.watermark() : eventTime.current(),
        keyed == null ? 0 : keyed.parkedCount(),
        keyed == null ? 0 : keyed.parkedBytes() + epoch.heldBytes(),
        keyed == null ? 0 : keyed.lookupMemoryBytes());
  }

  // ---------------------------------------------------------------- reconfiguration: commands

  /**
   * Carries out a coordinator command of a reconfiguration and reports to {@link #COORDINATOR}:
   * {@link EpochMessage.Prepared} for a prepare or an announcement of inputs, {@link
   * EpochMessage.Switched} for a switch; the other steps report when they are reached ({@link
   * EpochParticipant}). Every command is idempotent. A command this task cannot carry out fails the
   * task (and so the job).
   */
  public void onCommand(EpochMessage.Command c) {
    if ((status == TaskStatus.FINISHING || status == TaskStatus.FINISHED)
        && c instanceof EpochMessage.SwitchRouting sw) {
      // its input has ended, so nothing more will be routed by any table: the channels the new
      // table adds carry only their end, which their receivers wait for
      guard(() -> output.endNewChannels(sw.next(), chain.headName()));
      host.send(COORDINATOR, new EpochMessage.Switched(sw.epoch(), setup.task()));
      return;
    }
    if (status != TaskStatus.RUNNING) {
      // failed, cancelled, or its input has ended (the job is finishing): nothing left to move;
      // the coordinator gives up the epoch when the job ends
      return;
    }
    guard(
        () -> {
          if (c instanceof EpochMessage.SourceCommand s) {
            source.onCommand(s, this::drain);
            return;
          }
          if (c instanceof EpochMessage.PrepareTarget && source.isSource()) {
            source.freeze(); // its splits stay where they are until the epoch moves them
          }
          epoch.onCommand(c, this::drain, this::guard);
        });
  }
}
