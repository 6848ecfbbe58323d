package io.koala.task;

import io.koala.channel.InputChannel;
import io.koala.protocol.ChannelItem;
import io.koala.protocol.Credit;
import io.koala.protocol.Deliver;
import io.koala.protocol.EndOfChannel;
import io.koala.protocol.ProtocolViolationException;
import io.koala.protocol.TaskSetup;
import io.koala.protocol.TaskSetup.InputSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The input side of one task: its channels ({@link InputChannel}: sequence checks and credit), the
 * items delivered but not yet consumed, and which channels wait behind a checkpoint barrier. Each
 * channel has its own queue, and every item an arrival number: the gate hands out the oldest head
 * of the channels that may flow, so items are consumed in arrival order across channels (DESIGN
 * §4.5: a watermark is applied only after every record that arrived before it), and a channel held
 * behind a barrier keeps its items, in their order, until the barrier is aligned (§8).
 */
final class InputGate {
  private final TaskSetup setup;
  private final TaskHost host;
  private final Map<Integer, Lane> lanes = new HashMap<>(); // channel → lane
  private Lane[] order = new Lane[0]; // the same lanes, to scan for the oldest head
  private long arrivals; // items delivered so far: the next item's arrival number
  private int queued; // items delivered and not yet consumed, held ones included
  private int openInputs;
  private boolean ended; // every input has ended (or, for a source, its partitions)

  /** One input channel and the items it delivered that are not consumed yet, in order. */
  static final class Lane {
    private final InputChannel channel;
    private final int watermarkIndex; // the channel's number in the task's watermark tracker
    private Deliver[] items = new Deliver[4]; // a ring, with the arrival number of each item
    private long[] arrivalOf = new long[4];
    private int head;
    private int size;
    private boolean held; // past the barrier being aligned: its items wait for the snapshot

    Lane(InputChannel channel, int watermarkIndex) {
      this.channel = channel;
      this.watermarkIndex = watermarkIndex;
    }

    InputChannel channel() {
      return channel;
    }

    int watermarkIndex() {
      return watermarkIndex;
    }

    private void add(Deliver d, long arrival) {
      if (size == items.length) {
        Deliver[] moreItems = new Deliver[2 * size];
        long[] moreArrivals = new long[2 * size];
        for (int i = 0; i < size; i++) {
          moreItems[i] = items[(head + i) & (items.length - 1)];
          moreArrivals[i] = arrivalOf[(head + i) & (items.length - 1)];
        }
        items = moreItems;
        arrivalOf = moreArrivals;
        head = 0;
      }
      int tail = (head + size) & (items.length - 1);
      items[tail] = d;
      arrivalOf[tail] = arrival;
      size++;
    }

    private Deliver poll() {
      Deliver d = items[head];
      items[head] = null;
      head = (head + 1) & (items.length - 1);
      size--;
      return d;
    }

    private void clear() {
      Arrays.fill(items, null);
      head = 0;
      size = 0;
    }
  }

  InputGate(TaskSetup setup, TaskHost host) {
    this.setup = setup;
    this.host = host;
    for (InputSpec in : setup.inputs()) {
      add(in, lanes.size());
    }
  }

  /** Number of channels the task started with (numbered 0.. in its watermark tracker). */
  int channels() {
    return lanes.size();
  }

  /** Adds a channel; {@code watermarkIndex} is its number in the task's watermark tracker. */
  void add(InputSpec in, int watermarkIndex) {
    Lane lane =
        new Lane(
            new InputChannel(in.channel(), in.from(), in.input(), setup.settings().credits()),
            watermarkIndex);
    lanes.put(in.channel(), lane);
    order = Arrays.copyOf(order, order.length + 1);
    order[order.length - 1] = lane;
    openInputs++;
  }

  boolean has(int channel) {
    return lanes.containsKey(channel);
  }

  /** The number of input channel {@code channel} in the task's watermark tracker. */
  int watermarkIndex(int channel) {
    return lanes.get(channel).watermarkIndex;
  }

  /** Whether {@code channel} is a channel of this task whose end has been consumed. */
  boolean hasEnded(int channel) {
    Lane lane = lanes.get(channel);
    return lane != null && lane.channel.ended();
  }

  /** Whether every input has ended. */
  boolean ended() {
    return ended;
  }

  /** The task's input is over: a source has read everything, or a task has no inputs. */
  void end() {
    ended = true;
  }

  boolean hasOpenInputs() {
    return openInputs > 0;
  }

  // ---------------------------------------------------------------- delivery and consumption

  /**
   * Checks and queues a delivered item; returns its channel's lane.
   *
   * @throws ProtocolViolationException for an unknown channel, a gap, or an item without credit
   */
  Lane accept(Deliver d) {
    Lane lane = lanes.get(d.channel());
    if (lane == null) {
      throw new ProtocolViolationException(
          "task " + setup.task() + " has no input channel " + d.channel());
    }
    lane.channel.accept(d.seq(), d.item() == EndOfChannel.INSTANCE);
    lane.add(d, arrivals++);
    queued++;
    return lane;
  }

  /** Whether any channel has items not consumed yet, held ones included. */
  boolean hasQueued() {
    return queued > 0;
  }

  /**
   * Whether the first item of a channel may be consumed now. A channel whose first item is not
   * admitted waits, with the items behind it; the other channels flow on.
   */
  @FunctionalInterface
  interface Admission {
    /** All items are admitted. */
    Admission ALL = (channel, item, arrival) -> true;

    boolean admits(int channel, ChannelItem item, long arrival);
  }

  /**
   * The channel whose first item arrived first among those not held and whose first item {@code
   * admission} admits, or null when none has one.
   */
  Lane oldest(Admission admission) {
    if (queued == 0) {
      return null;
    }
    Lane best = null;
    long first = Long.MAX_VALUE;
    for (Lane lane : order) {
      if (lane.size > 0 && !lane.held) {
        long arrival = lane.arrivalOf[lane.head];
        if (arrival < first
            && admission.admits(lane.channel.id(), lane.items[lane.head].item(), arrival)) {
          best = lane;
          first = arrival;
        }
      }
    }
    return best;
  }

  /**
   * Replaces each queued item of {@code lane} but its last (the one that just arrived) by what
   * {@code f} makes of it; items keep their sequence numbers, arrival numbers and credit.
   */
  void rewriteBeforeLast(Lane lane, UnaryOperator<ChannelItem> f) {
    for (int i = 0; i < lane.size - 1; i++) {
      int at = (lane.head + i) & (lane.items.length - 1);
      Deliver d = lane.items[at];
      ChannelItem item = f.apply(d.item());
      if (item != d.item()) {
        lane.items[at] = new Deliver(d.channel(), d.seq(), item);
      }
    }
  }

  /** The arrival number of the first item of {@code lane}, which has one. */
  long headArrival(Lane lane) {
    return lane.arrivalOf[lane.head];
  }

  /** The first item of {@code lane}, which has one. */
  Deliver peek(Lane lane) {
    return lane.items[lane.head];
  }

  /** Takes the first item of {@code lane}, which has one, for consumption. */
  Deliver poll(Lane lane) {
    queued--;
    return lane.poll();
  }

  /**
   * The item taken from {@code lane} has been consumed: grants credit when due, and counts the
   * channel's end.
   */
  void consumed(Lane lane, boolean endOfChannel) {
    if (endOfChannel && --openInputs == 0) {
      ended = true;
    }
    long grant = lane.channel.consumed(endOfChannel);
    if (grant >= 0) {
      host.send(lane.channel.source(), new Credit(lane.channel.id(), grant));
    }
  }

  /** Re-sends every grant made (grants are cumulative, so a lost one cannot stall a channel). */
  void resendCredits() {
    for (Lane lane : lanes.values()) {
      InputChannel ch = lane.channel;
      if (!ch.ended() && ch.hasGranted()) {
        host.send(ch.source(), new Credit(ch.id(), ch.granted()));
      }
    }
  }

  /** Drops every queued item: the task has failed. */
  void clear() {
    for (Lane lane : order) {
      lane.clear();
    }
    queued = 0;
  }

  /**
   * Restores a channel whose end was consumed before a checkpoint.
   *
   * @return its lane, or null when the task has no such channel (a peer channel of an epoch before
   *     the checkpoint)
   */
  Lane restoreEnded(int channel) {
    Lane lane = lanes.get(channel);
    if (lane == null) {
      return null;
    }
    lane.channel.restoreEnded();
    if (--openInputs == 0) {
      ended = true;
    }
    return lane;
  }

  /** The channels whose end has been consumed. */
  List<Integer> endedChannels() {
    List<Integer> out = new ArrayList<>();
    for (Lane lane : lanes.values()) {
      if (lane.channel.ended()) {
        out.add(lane.channel.id());
      }
    }
    return out;
  }

  // ---------------------------------------------------------------- alignment holds

  /**
   * Holds {@code lane} behind the barrier it delivered: its later items wait until {@link
   * #releaseHolds}.
   *
   * @return false when it was held already (a second barrier on one channel)
   */
  boolean hold(Lane lane) {
    if (lane.held) {
      return false;
    }
    lane.held = true;
    return true;
  }

  /** Whether every open channel has delivered the barrier (an input that ended counts). */
  boolean allHeld() {
    for (Lane lane : lanes.values()) {
      if (!lane.channel.ended() && !lane.held) {
        return false;
      }
    }
    return true;
  }

  /** The barrier is aligned: held channels flow again, their items first (they arrived first). */
  void releaseHolds() {
    for (Lane lane : order) {
      lane.held = false;
    }
  }

  /** For diagnostics: the open channels not past the barrier, as "channel from source". */
  List<String> waitingForBarrier() {
    List<String> waiting = new ArrayList<>();
    for (Lane lane : lanes.values()) {
      if (!lane.channel.ended() && !lane.held) {
        waiting.add(lane.channel.id() + " from " + lane.channel.source());
      }
    }
    return waiting;
  }

  /** For diagnostics: the items queued on channels that are not held. */
  int pending() {
    int n = 0;
    for (Lane lane : order) {
      if (!lane.held) {
        n += lane.size;
      }
    }
    return n;
  }
}
