package io.koala.task;

import io.koala.KoalaException;
import io.koala.connector.Backlog;
import io.koala.connector.IngestSource;
import io.koala.connector.ReadResult;
import io.koala.connector.SourceContext;
import io.koala.connector.SourceOutput;
import io.koala.connector.SourceReader;
import io.koala.connector.SourceSpec;
import io.koala.connector.SplitOutput;
import io.koala.eventtime.WatermarkStrategy;
import io.koala.function.UserFunctionException;
import io.koala.operator.Output;
import io.koala.plan.OperatorNode;
import io.koala.protocol.EpochMessage;
import io.koala.protocol.IngestMessage;
import io.koala.protocol.ProtocolViolationException;
import io.koala.protocol.TaskSetup;
import io.koala.time.PartitionWatermarks;
import io.koala.time.WatermarkTracker;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a source task reads, and when (DESIGN §4.3): its {@link SourceReader}, asked for at most a
 * batch per split per poll while the output has credit; the source's watermark (min over its active
 * splits, emitted at most once per interval); the splits' positions for checkpoints; and the end of
 * a bounded input, which waits for the coordinator's approval so that an epoch never straddles the
 * end of a job. Stop-and-restart pauses it.
 */
final class SourceDriver {
  private static final long NONE = WatermarkTracker.NONE;

  private final TaskSetup setup;
  private final TaskHost host;
  private final TaskMetrics metrics;
  private final OperatorChain chain;
  private final InputGate input;
  private final OutputGate output;
  private final EventTime eventTime;
  private final BatchClock clock;
  private final Runnable process; // the task processes what it can (TaskEngine's loop)
  private final SourceSpec<Object> source; // null: the task is no source, and has no splits
  private final WatermarkStrategy strategy;
  private final List<Split> splits = new ArrayList<>(); // in the order the reader announced them
  private final Map<String, Split> splitsById = new LinkedHashMap<>();
  private final TreeMap<Long, Map<String, Long>> checkpointed = new TreeMap<>(); // not completed
  private SourceReader<Object> reader; // null: not open (or given up its splits, see kept)
  private List<Integer> slots; // the task index of each slot of the source's splits
  private long startMillis;
  // between giving up splits and being assigned its splits again: the positions of those it kept
  private Map<String, Long> kept;
  private EpochMessage.SplitsReleased released; // the last epoch's, repeated if asked again
  private long assignedEpoch = -1;
  // a reconfiguration of the source runs: it emits no watermark (nor idleness) until assigned its
  // splits, and reports once each split it gives up has caught up with the task that gets it
  private boolean frozen;
  private long catchUpEpoch = -1;
  private EpochMessage.CatchUpSplits catchUp; // null: no catch-up runs
  private WatermarkTracker tracker = new WatermarkTracker(0);
  private long watermark = NONE;
  private long nextWatermarkAt;
  private long now; // the time of the poll in progress
  private int read; // records emitted by the poll in progress
  private boolean declared; // a split declared a higher watermark in the poll in progress
  private boolean pollScheduled;
  private long pollDueAt = Long.MAX_VALUE; // when the poll asked for is due
  private boolean endReported; // it has read everything and told the coordinator
  private boolean endApproved; // the coordinator let it end (no reconfiguration runs)
  private boolean allEnded; // the reader said every split has ended
  private boolean paused; // stop-and-restart: it reads nothing until resumed

  /** One split read by this source task: where its records go, and its event time. */
  private final class Split implements SplitOutput<Object> {
    final String id;
    int index; // in the tracker
    final PartitionWatermarks watermarks;
    private final Output<Object> entry;
    boolean ended;

    Split(String id, int index) {
      this.id = id;
      this.index = index;
      this.watermarks = new PartitionWatermarks(strategy, host.currentTimeMillis());
      this.entry = chain.entry();
    }

    @Override
    public void emit(Object value, long timestamp) {
      watermarks.onRecord(timestamp, now);
      read++;
      entry.emit(value, timestamp);
    }

    @Override
    public void watermark(long watermark) {
      declared |= watermarks.declare(watermark);
    }

    @Override
    public void end() {
      if (!ended) {
        ended = true;
        tracker.onEnd(index);
      }
    }

    @Override
    public String toString() {
      return "split " + id + (ended ? " (ended)" : "");
    }
  }

  /**
   * The driver of a task whose chain starts at {@code head}: no splits unless a source. {@code
   * process} runs the task's loop when the input ends or the source's watermark advances.
   */
  @SuppressWarnings("unchecked")
  SourceDriver(
      TaskSetup setup,
      OperatorNode head,
      TaskHost host,
      TaskMetrics metrics,
      OperatorChain chain,
      InputGate input,
      OutputGate output,
      EventTime eventTime,
      BatchClock clock,
      Runnable process) {
    this.setup = setup;
    this.host = host;
    this.metrics = metrics;
    this.chain = chain;
    this.input = input;
    this.output = output;
    this.eventTime = eventTime;
    this.clock = clock;
    this.process = process;
    boolean isSource = head.kind() == OperatorNode.Kind.SOURCE;
    this.source = isSource ? (SourceSpec<Object>) head.source() : null;
    this.strategy = isSource ? head.watermarks() : WatermarkStrategy.none();
    this.slots = defaultSlots(setup);
  }

  /** The source's tasks by slot as the setup has them (none listed: slot i is task i). */
  private static List<Integer> defaultSlots(TaskSetup setup) {
    if (!setup.inputRouting().isEmpty()) {
      return setup.inputRouting();
    }
    List<Integer> slots = new ArrayList<>();
    for (int i = 0; i < setup.parallelism(); i++) {
      slots.add(i);
    }
    return slots;
  }

  /** Whether the task is a source. */
  boolean isSource() {
    return source != null;
  }

  /**
   * Opens this task's reader ({@code startMillis}: origin of rate schedules) and starts it, from
   * the positions of {@code restored} when it resumes from a checkpoint.
   */
  void open(long startMillis, TaskCheckpoint restored) {
    this.startMillis = startMillis;
    if (!slots.contains(setup.task().index())) {
      // deployed by a reconfiguration of the source: it reads once it is assigned its splits
      kept = new TreeMap<>();
      return;
    }
    openReader(restored == null ? Map.of() : restored.positions());
  }

  /** Opens a reader for this task's slot and starts it from {@code positions}. */
  @SuppressWarnings("unchecked")
  private void openReader(Map<String, Long> positions) {
    Runnable waker = host.waker();
    int slot = slots.indexOf(setup.task().index());
    int parallelism = slots.size();
    SourceContext ctx =
        new SourceContext() {
          @Override
          public String sourceName() {
            return source.name();
          }

          @Override
          public int taskIndex() {
            return slot;
          }

          @Override
          public int parallelism() {
            return parallelism;
          }

          @Override
          public long startMillis() {
            return startMillis;
          }

          @Override
          public long currentTimeMillis() {
            return host.currentTimeMillis();
          }

          @Override
          public Runnable waker() {
            return waker;
          }

          @Override
          public boolean skipRecord(String what, Exception cause) {
            return chain.skipUnreadable(what, cause);
          }
        };
    SourceOutput<Object> out = id -> splitsById.computeIfAbsent(id, this::newSplit);
    userCall(
        () -> {
          reader =
              source instanceof IngestSource<?> ingest
                  ? new IngestReader(
                      (IngestSource<Object>) ingest,
                      host,
                      setup.task().index(),
                      setup.parallelism())
                  : source.createReader(ctx);
          reader.start(positions, out);
        });
  }

  private Split newSplit(String id) {
    Split s = new Split(id, tracker.addChannel());
    splits.add(s);
    return s;
  }

  /** A message of an ingest handle (or its attachment): the reader takes it, then reads. */
  void onIngest(IngestMessage.ToTask m) {
    if (!(reader instanceof IngestReader r)) {
      throw new ProtocolViolationException(
          "task " + setup.task() + " is no ingest source, and got " + m);
    }
    r.onMessage(m);
    pollNow();
  }

  /** Housekeeping, about once a second. */
  void tick() {
    if (reader instanceof IngestReader r) {
      r.tick();
    }
  }

  /** Resumes the source's watermark from a checkpoint. */
  void restoreWatermark(long watermark) {
    this.watermark = watermark;
  }

  /** The watermark this source emitted last. */
  long watermark() {
    return watermark;
  }

  /**
   * The position of each split, for checkpoint {@code checkpointId}'s snapshot; the dead letters of
   * the records read past go first.
   */
  Map<String, Long> positions(long checkpointId) {
    chain.sendUnreadable();
    if (reader == null) {
      return kept == null ? Map.of() : new TreeMap<>(kept);
    }
    Map<String, Long> positions = new TreeMap<>(reader.positions());
    checkpointed.put(checkpointId, positions);
    return positions;
  }

  /** Checkpoint {@code checkpointId} is durable: the reader may acknowledge what it recorded. */
  void checkpointCompleted(long checkpointId) {
    Map<String, Long> positions = checkpointed.get(checkpointId);
    checkpointed.headMap(checkpointId, true).clear();
    if (positions != null && reader != null) {
      userCall(() -> reader.checkpointCompleted(checkpointId, positions));
    }
  }

  /** Records available but not read yet, and how far behind the oldest of them is. */
  record Lag(long records, double seconds) {}

  Lag lag(long now) {
    if (reader == null || allEnded) {
      return new Lag(0, 0);
    }
    Backlog b = reader.backlog(now);
    return new Lag(b.records(), b.oldestSeconds());
  }

  // ---------------------------------------------------------------- polling

  /** Asks for a poll after {@code delay} ms, unless one is asked for. */
  void schedulePoll(long delay) {
    if (!pollScheduled) {
      pollScheduled = true;
      pollDueAt = host.currentTimeMillis() + delay;
      host.schedule(TaskTimer.POLL, delay);
    }
  }

  /**
   * Asks for a poll now, even if a later one is asked for: records arrived for a reader that was
   * waiting (its waker, an ingest batch), which the pending poll would hold back for up to a
   * second.
   */
  void pollNow() {
    if (pollScheduled && pollDueAt <= host.currentTimeMillis()) {
      return;
    }
    pollScheduled = true;
    pollDueAt = host.currentTimeMillis();
    host.schedule(TaskTimer.POLL, 0);
  }

  /** The poll asked for is due (an earlier one's timer firing later only polls once more). */
  void pollDue() {
    pollScheduled = false;
    pollDueAt = Long.MAX_VALUE;
  }

  /**
   * Reads what the reader has available, at most a batch per split, into the chain; then ends the
   * input once the coordinator approves, emits the source's watermark when it is due, and asks for
   * the next poll. Reads nothing while the output is backpressured (a credit grant resumes
   * polling), while a sink chained to it takes no records (its waker resumes polling) or while
   * paused.
   */
  void poll() {
    if (output.blocked() || paused || reader == null || !chain.ready()) {
      return;
    }
    chain.sendUnreadable();
    now = host.currentTimeMillis();
    long t0 = host.nanoTime();
    read = 0;
    declared = false;
    ReadResult result = allEnded ? ReadResult.END : readOnce();
    if (read > 0) {
      chain.endBatch();
      metrics.operatorIn[0] += read; // the source, first in the chain, read them
      clock.done(t0);
    }
    checkCaughtUp();
    if (result.ended()) {
      allEnded = true;
      if (!endApproved) {
        // a bounded input has been read: its end waits until no reconfiguration runs, so an epoch
        // never straddles the end of a job (the coordinator answers EndInput)
        if (!endReported) {
          endReported = true;
          host.send(TaskEngine.COORDINATOR, new EpochMessage.InputEnded(setup.task()));
        }
        output.scheduleFlushIfPartial();
        return;
      }
      input.end();
      process.run();
      return;
    }
    emitWatermark(now, declared);
    output.scheduleFlushIfPartial();
    if (output.blocked()) {
      return; // a credit grant resumes polling
    }
    if (result.more()) {
      schedulePoll(0);
    } else {
      long wait = Math.max(1, Math.min(result.retryAtMillis() - now, 1000));
      if (strategy.enabled()) {
        wait = Math.min(wait, setup.settings().watermarkIntervalMillis());
      }
      schedulePoll(wait);
    }
  }

  private ReadResult readOnce() {
    ReadResult[] result = new ReadResult[1];
    userCall(() -> result[0] = reader.read(setup.settings().maxBatchRecords()));
    return result[0];
  }

  /** Runs a call into the source's code; its failure names the source. */
  private void userCall(ThrowingCall call) {
    try {
      call.run();
    } catch (KoalaException e) {
      throw e;
    } catch (Exception e) {
      throw new UserFunctionException(source.name(), e);
    }
  }

  @FunctionalInterface
  private interface ThrowingCall {
    void run() throws Exception;
  }

  /**
   * Emits the source's watermark (min over its active splits) at most once per interval, or at once
   * when a split's data declared a higher watermark ({@code declared}); or, when it did not advance
   * and every split is idle, or it has no split, that the task is idle.
   */
  private void emitWatermark(long now, boolean declared) {
    if (frozen || (!declared && (!strategy.enabled() || now < nextWatermarkAt))) {
      return;
    }
    nextWatermarkAt = now + setup.settings().watermarkIntervalMillis();
    if (splits.isEmpty()) {
      // no split yet (a reader that learns its splits later, as Kafka's does, or none for this
      // task): it has no event time to give, and a tracker without channels reads as the end of
      // the input, whose watermark would fire every timer here and downstream. Idle instead: no
      // task downstream waits for this one until one of its splits gives a watermark.
      output.emitIdle();
      return;
    }
    long[] splitWatermarks = new long[splits.size()];
    boolean[] idle = new boolean[splits.size()];
    for (int i = 0; i < splits.size(); i++) {
      Split s = splits.get(i);
      idle[i] = s.watermarks.idle(now);
      splitWatermarks[i] = s.watermarks.watermark();
    }
    tracker.update(splitWatermarks, idle);
    long w = tracker.combined();
    if (w != NONE && w > watermark) {
      watermark = w;
      eventTime.advanceTo(w);
      process.run();
    } else if (tracker.allIdle()) {
      output.emitIdle();
    }
  }

  // ---------------------------------------------------------------- splits moving

  /**
   * Carries out a coordinator command about what this source reads and when (DESIGN §4.3, §6.1):
   * the end of its input approved, a pause or resume of a stop-and-restart epoch, the catch-up,
   * release and assignment of splits that move; {@code drain} runs the task's loop once a task the
   * source no longer has must end its output.
   */
  void onCommand(EpochMessage.SourceCommand c, Runnable drain) {
    if (c instanceof EpochMessage.EndInput) {
      approveEnd();
    } else if (c instanceof EpochMessage.PauseInput p) {
      pause();
      host.send(TaskEngine.COORDINATOR, new EpochMessage.Paused(p.epoch(), setup.task()));
    } else if (c instanceof EpochMessage.ResumeInput) {
      resume();
    } else if (c instanceof EpochMessage.CatchUpSplits u) {
      catchUp(u);
    } else if (c instanceof EpochMessage.ReleaseSplits r) {
      release(r);
      drain.run(); // a task the source no longer has ends its output and finishes
    } else if (c instanceof EpochMessage.AssignSplits a) {
      assign(a);
      host.send(TaskEngine.COORDINATOR, new EpochMessage.SplitsAssigned(a.epoch(), setup.task()));
    } else {
      throw new IllegalStateException("unhandled " + c);
    }
  }

  /**
   * Gives up this task's splits for epoch {@code r.epoch()}, as {@link EpochMessage.ReleaseSplits}
   * says: closes the reader, keeps the positions of the splits it still reads under the new slots
   * and reports the others ({@link EpochMessage.SplitsReleased}), each with its position, its
   * watermark and the task that reads it next, after a marker on every output channel; a task the
   * source no longer has ends its input instead (the caller's loop then ends its output, and it
   * finishes without reporting the input's end). Reads nothing until {@link #assign}. Repeated for
   * the same epoch, it reports the same again.
   */
  private void release(EpochMessage.ReleaseSplits r) {
    if (released == null || released.epoch() != r.epoch()) {
      released = giveUp(r);
      if (hasSlot()) {
        output.markAll(r.epoch());
      } else {
        input.end();
      }
    }
    host.send(TaskEngine.COORDINATOR, released);
  }

  private EpochMessage.SplitsReleased giveUp(EpochMessage.ReleaseSplits r) {
    if (!source.rescalable()) {
      throw new ProtocolViolationException(
          "source '" + source.name() + "' cannot move its splits, and was asked to");
    }
    Map<String, Long> positions = new TreeMap<>();
    if (reader != null) {
      userCall(() -> positions.putAll(reader.positions()));
      close();
    } else if (kept != null) {
      positions.putAll(kept);
    }
    slots = r.slots();
    kept = new TreeMap<>();
    List<EpochMessage.SplitMove> moves = new ArrayList<>();
    positions.forEach(
        (id, position) -> {
          int to = slots.get(slotOf(id, slots));
          if (to == setup.task().index()) {
            kept.put(id, position);
            return;
          }
          // it leaves the tracker when the task is assigned its splits (its watermark is frozen
          // until then): ended here, it could leave the tracker with no open split, as at the end
          Split s = splitsById.remove(id);
          moves.add(
              new EpochMessage.SplitMove(
                  id, position, s == null ? NONE : s.watermarks.watermark(), to));
        });
    return new EpochMessage.SplitsReleased(r.epoch(), setup.task(), moves);
  }

  /**
   * A reconfiguration of the source prepares: the task reads on but emits no watermark until it is
   * assigned its splits, so that no task downstream passes the event time of a split that moves.
   *
   * @return the watermark it emitted last, which it will not pass until then
   */
  long freeze() {
    frozen = true;
    return watermark;
  }

  /**
   * Catch-up ({@link EpochMessage.CatchUpSplits}): the task reads on until each split it will give
   * up has reached the watermark the task that gets it emitted before it froze (or ended, or is
   * idle), so that none of the split's records is late behind that task's watermark; a split that
   * goes to a new task, or stays, need not wait. Reports {@link EpochMessage.CaughtUp} then.
   */
  private void catchUp(EpochMessage.CatchUpSplits c) {
    if (c.epoch() != catchUpEpoch) {
      catchUpEpoch = c.epoch();
      catchUp = c;
      checkCaughtUp();
    }
  }

  private void checkCaughtUp() {
    if (catchUp == null) {
      return;
    }
    long at = host.currentTimeMillis();
    for (Split s : splitsById.values()) {
      if (s.ended || s.watermarks.idle(at)) {
        continue;
      }
      int slot = slotOf(s.id, catchUp.slots());
      if (catchUp.slots().get(slot) != setup.task().index()
          && s.watermarks.watermark() < catchUp.watermarks().get(slot)) {
        return; // NONE (the next task emitted none) is below every watermark: it never waits
      }
    }
    catchUp = null;
    host.send(TaskEngine.COORDINATOR, new EpochMessage.CaughtUp(catchUpEpoch, setup.task()));
  }

  /** The slot of {@code split} among the source's tasks {@code slots}, as the source puts it. */
  private int slotOf(String split, List<Integer> slots) {
    int parallelism = slots.size();
    int[] slot = new int[1];
    userCall(() -> slot[0] = source.slotOf(split, parallelism));
    if (slot[0] < 0 || slot[0] >= parallelism) {
      throw new IllegalStateException(
          "source '"
              + source.name()
              + "' puts split '"
              + split
              + "' in slot "
              + slot[0]
              + " of "
              + parallelism
              + " (SourceSpec.slotOf)");
    }
    return slot[0];
  }

  /** Whether the source's tasks include this one (a task released from every slot retires). */
  private boolean hasSlot() {
    return slots.contains(setup.task().index());
  }

  /**
   * Reads again after a {@link #release}, as {@link EpochMessage.AssignSplits} says: the splits it
   * kept and those assigned to it, from their positions, each from at least the watermark it had
   * where it was read before. Idempotent per epoch.
   */
  private void assign(EpochMessage.AssignSplits a) {
    if (a.epoch() == assignedEpoch) {
      return;
    }
    assignedEpoch = a.epoch();
    if (reader != null) {
      throw new ProtocolViolationException(
          "task " + setup.task() + " is assigned splits at epoch " + a.epoch() + " while reading");
    }
    slots = a.slots();
    Map<String, Long> positions = kept == null ? new TreeMap<>() : new TreeMap<>(kept);
    for (EpochMessage.SplitMove m : a.splits()) {
      positions.put(m.split(), m.position());
    }
    kept = null;
    frozen = false;
    allEnded = false; // a split it gets may not have ended; its end is approved as before
    endReported = false;
    // the splits it kept, then those the reader adds, in a new tracker; ended ones leave it once
    // all are in (ending them first could leave it with no open split, as at the end of input)
    tracker = new WatermarkTracker(0);
    splits.clear();
    List<Split> endedKept = new ArrayList<>();
    for (Split s : splitsById.values()) {
      s.index = tracker.addChannel();
      splits.add(s);
      if (s.ended) {
        endedKept.add(s);
      }
    }
    openReader(positions);
    for (Split s : endedKept) {
      tracker.onEnd(s.index);
    }
    for (EpochMessage.SplitMove m : a.splits()) {
      Split s = splitsById.get(m.split());
      if (s != null && m.watermark() != NONE) {
        s.watermark(m.watermark());
      }
    }
    schedulePoll(0);
  }

  /** Closes the reader, once; like closing operators, best effort (the task's outcome is known). */
  void close() {
    SourceReader<Object> r = reader;
    reader = null;
    if (r != null) {
      try {
        r.close();
      } catch (Exception e) {
        // the task has stopped; a reader that fails to close has nothing left to lose
      }
    }
  }

  /** The coordinator let the input end. */
  private void approveEnd() {
    endApproved = true;
    schedulePoll(0);
  }

  /** Stop-and-restart: what was read flows on; nothing more is read until {@link #resume}. */
  void pause() {
    paused = true;
  }

  private void resume() {
    if (paused) {
      paused = false;
      schedulePoll(0);
    }
  }
}
