package io.koala.protocol;

import io.koala.plan.TaskId;
import io.koala.protocol.TaskSetup.InputSpec;
import io.koala.protocol.TaskSetup.OutputSpec;
import java.util.List;

/**
 * The control plane of a reconfiguration (DESIGN §6.1–§6.2): the coordinator's commands to tasks
 * and the tasks' reports back. Every command names its epoch; a task treats a repeated command as
 * idempotent.
 */
public sealed interface EpochMessage extends KoalaMessage
    permits EpochMessage.Command, EpochMessage.Report {

  /** Coordinator → task. */
  sealed interface Command extends EpochMessage, TaskMessage
      permits PrepareTarget,
          ExpectInputs,
          CatchUp,
          HandOverBuckets,
          SwitchRouting,
          Retiring,
          SourceCommand {
    long epoch();
  }

  /** Coordinator → source task: what its source reads, and when (the task's source driver). */
  sealed interface SourceCommand extends Command
      permits CatchUpSplits, ReleaseSplits, AssignSplits, PauseInput, ResumeInput, EndInput {}

  /** Task → coordinator. */
  sealed interface Report extends EpochMessage
      permits Prepared,
          CaughtUp,
          HandedOver,
          Connected,
          Switched,
          Drained,
          References,
          InputEnded,
          Paused,
          SplitsReleased,
          SplitsAssigned {
    long epoch();

    TaskId task();
  }

  /** A peer channel: its id and the task at its other end. */
  record Peer(int channel, TaskId task) implements KoalaMessage {}

  /**
   * Step 1, to every task of the target operator: the buckets it gives and gets, its peer channels,
   * the upstream channels on which a marker will arrive, and whether the epoch removes it ({@code
   * leaving}: its input ends after the markers, and it retires). Reply {@link Prepared} with the
   * watermark the task will not emit past until its peer channels deliver theirs.
   */
  record PrepareTarget(
      long epoch,
      List<BucketMove> movesOut,
      List<BucketMove> movesIn,
      List<Peer> peersOut,
      List<Peer> peersIn,
      List<Integer> expectedMarkers,
      boolean leaving)
      implements Command {
    public PrepareTarget {
      movesOut = List.copyOf(movesOut);
      movesIn = List.copyOf(movesIn);
      peersOut = List.copyOf(peersOut);
      peersIn = List.copyOf(peersIn);
      expectedMarkers = List.copyOf(expectedMarkers);
    }

    /** A task the epoch keeps. */
    public PrepareTarget(
        long epoch,
        List<BucketMove> movesOut,
        List<BucketMove> movesIn,
        List<Peer> peersOut,
        List<Peer> peersIn,
        List<Integer> expectedMarkers) {
      this(epoch, movesOut, movesIn, peersOut, peersIn, expectedMarkers, false);
    }
  }

  /**
   * Step 1, to tasks downstream of the target: channels from new tasks are coming; and, when the
   * target is a source whose splits move, a marker will come on each of {@code markers} (the
   * channels from the source's tasks) once those tasks have given up their splits: reply {@link
   * Prepared} now and {@link Drained} once every one of them is consumed.
   */
  record ExpectInputs(long epoch, List<InputSpec> inputs, List<Integer> markers)
      implements Command {
    public ExpectInputs {
      inputs = List.copyOf(inputs);
      markers = List.copyOf(markers);
    }

    /** New channels only: no marker is coming. */
    public ExpectInputs(long epoch, List<InputSpec> inputs) {
      this(epoch, inputs, List.of());
    }
  }

  /**
   * A split of a source leaving its task: its position and its watermark there ({@link
   * io.koala.time.WatermarkTracker#NONE} if none yet), and the index of the task that reads it
   * next.
   */
  record SplitMove(String split, long position, long watermark, int to) implements KoalaMessage {}

  /**
   * Source epoch, step 3, to every task the source had: its tasks will be {@code slots} (the task
   * index of each slot), the task at slot {@code i} emitted watermark {@code watermarks.get(i)}
   * before it froze ({@link io.koala.time.WatermarkTracker#NONE}: none, as a new task). Read on
   * until each split that will leave you has reached the watermark of the task it goes to (or
   * ended, or is idle), so that none of its records is late behind that task's watermark; the
   * splits you keep need not wait. Reply {@link CaughtUp}.
   */
  record CatchUpSplits(long epoch, List<Integer> slots, List<Long> watermarks)
      implements SourceCommand {
    public CatchUpSplits {
      slots = List.copyOf(slots);
      watermarks = List.copyOf(watermarks);
      if (slots.size() != watermarks.size()) {
        throw new IllegalArgumentException(
            slots.size() + " slots but " + watermarks.size() + " watermarks");
      }
    }
  }

  /**
   * Source epoch, step 4, to every task the source had: its tasks are now {@code slots} (the task
   * index of each slot); stop reading, keep the splits that are still yours, give up the others,
   * send a marker on every output channel (a task not in {@code slots} ends its output instead, and
   * retires). Reply {@link SplitsReleased}. The task reads nothing until {@link AssignSplits}.
   */
  record ReleaseSplits(long epoch, List<Integer> slots) implements SourceCommand {
    public ReleaseSplits {
      slots = List.copyOf(slots);
    }
  }

  /** The splits a source task gave up, with where each goes. */
  record SplitsReleased(long epoch, TaskId task, List<SplitMove> moves) implements Report {
    public SplitsReleased {
      moves = List.copyOf(moves);
    }
  }

  /**
   * Source epoch, step 5, once every task downstream of the source consumed the markers of {@link
   * ReleaseSplits}: to every task of the source, read again, with the source's tasks {@code slots},
   * the splits you kept and {@code splits} (from their positions). Reply {@link SplitsAssigned}.
   */
  record AssignSplits(long epoch, List<Integer> slots, List<SplitMove> splits)
      implements SourceCommand {
    public AssignSplits {
      slots = List.copyOf(slots);
      splits = List.copyOf(splits);
    }
  }

  /** A source task reads its splits again. */
  record SplitsAssigned(long epoch, TaskId task) implements Report {}

  /**
   * Step 2a, to every task of the target: W*. Senders report {@link CaughtUp} once their applied
   * watermark reaches it; receivers do not pass it until their hand-overs are in.
   */
  record CatchUp(long epoch, long watermark) implements Command {}

  /**
   * Step 2b, to senders: hand over your moving buckets, their state moving as {@code move} says;
   * reply {@link HandedOver}.
   */
  record HandOverBuckets(long epoch, ReconfigurationProtocol.StateMove move) implements Command {}

  /**
   * Stop-and-restart, to every source task before the epoch: stop reading; reply {@link Paused}.
   */
  record PauseInput(long epoch) implements SourceCommand {}

  /** Stop-and-restart, to every source task after the epoch: read again. */
  record ResumeInput(long epoch) implements SourceCommand {}

  /** A source has stopped reading for epoch {@code epoch}. */
  record Paused(long epoch, TaskId task) implements Report {}

  /** Step 4, to upstream tasks: switch output edge {@code edge} to {@code next}. */
  record SwitchRouting(long epoch, int edge, OutputSpec next) implements Command {}

  /**
   * After epoch {@code epoch} of the task's operator, to every live task of it: the retiring
   * holders of the operator, to drain (§6.5) with {@code settings}. Reply {@link References} now
   * and whenever the references change.
   */
  record Retiring(long epoch, List<Integer> holders, DrainSettings settings) implements Command {
    public Retiring {
      holders = List.copyOf(holders);
    }
  }

  /**
   * The retiring holders (published after {@code epoch}) the task still references in its lookup
   * table; the coordinator terminates a holder no live task references.
   */
  record References(long epoch, TaskId task, List<Integer> holders) implements Report {
    public References {
      holders = List.copyOf(holders);
    }
  }

  /**
   * Source → coordinator: the source has read all of its bounded input and holds its end until
   * {@link EndInput}, so that the end of a job never falls inside a reconfiguration. Not part of an
   * epoch ({@link #epoch} is 0).
   */
  record InputEnded(TaskId task) implements Report {
    @Override
    public long epoch() {
      return 0;
    }
  }

  /**
   * Coordinator → source that reported {@link InputEnded}: no reconfiguration runs (and none will
   * start), end your output. {@code epoch} is the last epoch started, 0 if none.
   */
  record EndInput(long epoch) implements SourceCommand {}

  /**
   * A task's running totals of lazily transferred state, which the coordinator differences over an
   * epoch, and one level, which it sums as of the epoch's end.
   *
   * @param fetchRequests fetch requests sent (a drain request alone is none)
   * @param keys keys installed from other tasks, fetched or drained
   * @param bytes bytes of state installed from other tasks
   * @param drainedKeys of {@code keys}, those drained from retiring holders (§6.5)
   * @param piggybackedKeys of those, the ones that came with a fetch's reply
   * @param recordsParked records (and timer callbacks) parked until their key's state arrived
   * @param lookupTableBytes the level: bytes of the key lookup table's membership filters
   */
  record Transfer(
      long fetchRequests,
      long keys,
      long bytes,
      long drainedKeys,
      long piggybackedKeys,
      long recordsParked,
      long lookupTableBytes)
      implements KoalaMessage {
    public static final Transfer NONE = new Transfer(0, 0, 0, 0, 0, 0, 0);

    /** Totals and levels summed (over tasks). */
    public Transfer plus(Transfer o) {
      return totals(o, 1, lookupTableBytes + o.lookupTableBytes);
    }

    /** Totals summed over two periods one after the other; the level is the later one's. */
    public Transfer followedBy(Transfer later) {
      return totals(later, 1, later.lookupTableBytes);
    }

    /** These totals plus {@code sign} times {@code o}'s, with {@code level} as the level. */
    private Transfer totals(Transfer o, int sign, long level) {
      return new Transfer(
          fetchRequests + sign * o.fetchRequests,
          keys + sign * o.keys,
          bytes + sign * o.bytes,
          drainedKeys + sign * o.drainedKeys,
          piggybackedKeys + sign * o.piggybackedKeys,
          recordsParked + sign * o.recordsParked,
          level);
    }

    /** Totals differenced; the level stays this one's (the later one). */
    public Transfer minus(Transfer o) {
      return totals(o, -1, lookupTableBytes);
    }
  }

  record Prepared(long epoch, TaskId task, long watermark, Transfer transfer) implements Report {}

  record CaughtUp(long epoch, TaskId task) implements Report {}

  record HandedOver(long epoch, TaskId task) implements Report {}

  /** A receiver has installed every hand-over of every sender (step 3). */
  record Connected(long epoch, TaskId task) implements Report {}

  record Switched(long epoch, TaskId task) implements Report {}

  /** Every expected marker consumed and every peer channel closed (step 5). */
  record Drained(long epoch, TaskId task, Transfer transfer) implements Report {}
}
