package io.koala.task;

import io.koala.KoalaException;
import io.koala.connector.PartitionReader;
import io.koala.connector.SourceSpec;
import io.koala.function.WatermarkStrategy;
import io.koala.operator.Output;
import io.koala.plan.OperatorNode;
import io.koala.protocol.EpochMessage;
import io.koala.protocol.TaskSetup;
import io.koala.protocol.UserFunctionException;
import io.koala.time.PartitionWatermarks;
import io.koala.time.WatermarkTracker;
import java.util.ArrayList;
import java.util.List;

/**
 * What a source task reads, and when (DESIGN §4.3): its partitions of the source's replayable log,
 * read in order from their offsets as far as the log has made available, at most a batch per
 * partition per poll; the source's watermark (min over its active partitions, emitted at most once
 * per interval); and the end of a bounded input, which waits for the coordinator's approval so that
 * an epoch never straddles the end of a job. Stop-and-restart pauses it.
 */
final class SourceDriver {
  private static final long NONE = WatermarkTracker.NONE;

  private final TaskSetup setup;
  private final TaskHost services;
  private final TaskMetrics metrics;
  private final OperatorChain chain;
  private final InputGate input;
  private final OutputGate output;
  private final EventTime eventTime;
  private final BatchClock clock;
  private final Runnable process; // the task processes what it can (TaskEngine's loop)
  private final SourceSpec<Object> source; // null: the task is no source, and has no partitions
  private final WatermarkStrategy strategy;
  private final List<SourcePartition> partitions = new ArrayList<>();
  private WatermarkTracker tracker;
  private long watermark = NONE;
  private long nextWatermarkAt;
  private boolean pollScheduled;
  private boolean endReported; // it has read everything and told the coordinator
  private boolean endApproved; // the coordinator let it end (no reconfiguration runs)
  private boolean paused; // stop-and-restart: it reads nothing until resumed

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

  /**
   * The driver of a task whose chain starts at {@code head}: no partitions unless a source. {@code
   * process} runs the task's loop when the input ends or the source's watermark advances.
   */
  @SuppressWarnings("unchecked")
  SourceDriver(
      TaskSetup setup,
      OperatorNode head,
      TaskHost services,
      TaskMetrics metrics,
      OperatorChain chain,
      InputGate input,
      OutputGate output,
      EventTime eventTime,
      BatchClock clock,
      Runnable process) {
    this.setup = setup;
    this.services = services;
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
  }

  /** Whether the task is a source. */
  boolean isSource() {
    return source != null;
  }

  /**
   * Opens this task's partitions ({@code startMillis}: origin of their rate schedules), from the
   * offsets of {@code restored} when it resumes from a checkpoint.
   */
  void open(long startMillis, long now, TaskCheckpoint restored) {
    for (int p = setup.task().index(); p < source.partitions(); p += setup.parallelism()) {
      partitions.add(
          new SourcePartition(
              p, source.open(p, startMillis), new PartitionWatermarks(strategy, now)));
    }
    if (restored != null) {
      restoreOffsets(restored);
    }
    tracker = new WatermarkTracker(partitions.size());
    for (int i = 0; i < partitions.size(); i++) {
      if (partitions.get(i).done) {
        tracker.onEnd(i);
      }
    }
  }

  private void restoreOffsets(TaskCheckpoint restored) {
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

  /** Resumes the source's watermark from a checkpoint. */
  void restoreWatermark(long watermark) {
    this.watermark = watermark;
  }

  /** The watermark this source emitted last. */
  long watermark() {
    return watermark;
  }

  /** The offset of each partition, for a checkpoint. */
  List<long[]> offsets() {
    List<long[]> offsets = new ArrayList<>();
    for (SourcePartition p : partitions) {
      offsets.add(new long[] {p.partition, p.offset});
    }
    return offsets;
  }

  /** Records available but not read yet, and how far behind the oldest of them is. */
  record Lag(long records, double seconds) {}

  Lag lag(long now) {
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
    return new Lag(lag, Math.max(0, lagSeconds));
  }

  // ---------------------------------------------------------------- polling

  /** Asks for a poll after {@code delay} ms, unless one is asked for. */
  void schedulePoll(long delay) {
    if (!pollScheduled) {
      pollScheduled = true;
      services.schedule(TaskTimer.POLL, delay);
    }
  }

  /** The poll asked for is due. */
  void pollDue() {
    pollScheduled = false;
  }

  /**
   * Reads what the partitions have available, at most a batch from each, into the chain; then ends
   * the input once the coordinator approves, emits the source's watermark when it is due, and asks
   * for the next poll. Reads nothing while the output is backpressured (a credit grant resumes
   * polling), while a sink chained to it takes no records (its waker resumes polling) or while
   * paused.
   */
  void poll() {
    if (output.blocked() || paused || !chain.ready()) {
      return;
    }
    long now = services.currentTimeMillis();
    long t0 = services.nanoTime();
    int max = setup.settings().maxBatchRecords();
    Output<Object> entry = chain.entry();
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
        tracker.onEnd(pi);
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
      chain.endBatch();
      metrics.operatorIn[0] += read; // the source, first in the chain, read them
      clock.done(t0);
    }
    if (allDone) {
      if (!endApproved) {
        // a bounded input has been read: its end waits until no reconfiguration runs, so an epoch
        // never straddles the end of a job (the coordinator answers EndInput)
        if (!endReported) {
          endReported = true;
          services.send(TaskEngine.COORDINATOR, new EpochMessage.InputEnded(setup.task()));
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
    if (more) {
      schedulePoll(0);
    } else {
      long wait = Math.max(1, Math.min(nextAt - now, 1000));
      if (strategy.enabled()) {
        wait = Math.min(wait, setup.settings().watermarkIntervalMillis());
      }
      schedulePoll(wait);
    }
  }

  /**
   * Emits the source's watermark (min over its active partitions) at most once per interval, or at
   * once when a partition's log declared a higher watermark ({@code declared}); or, when it did not
   * advance and every partition is idle, that the task is idle.
   */
  private void emitWatermark(long now, boolean declared) {
    if (!declared && (!strategy.enabled() || now < nextWatermarkAt)) {
      return;
    }
    nextWatermarkAt = now + setup.settings().watermarkIntervalMillis();
    long[] partitionWatermarks = new long[partitions.size()];
    boolean[] idle = new boolean[partitions.size()];
    for (int pi = 0; pi < partitions.size(); pi++) {
      SourcePartition p = partitions.get(pi);
      idle[pi] = p.watermarks.idle(now);
      partitionWatermarks[pi] = p.watermarks.watermark();
    }
    tracker.update(partitionWatermarks, idle);
    long w = tracker.combined();
    if (w != NONE && w > watermark) {
      watermark = w;
      eventTime.advanceTo(w);
      process.run();
    } else if (tracker.allIdle()) {
      output.emitIdle();
    }
  }

  /** The coordinator let the input end. */
  void approveEnd() {
    endApproved = true;
    schedulePoll(0);
  }

  /** Stop-and-restart: what was read flows on; nothing more is read until {@link #resume}. */
  void pause() {
    paused = true;
  }

  void resume() {
    if (paused) {
      paused = false;
      schedulePoll(0);
    }
  }
}
