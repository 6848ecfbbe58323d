package io.koala.channel;

import io.koala.protocol.ChannelItem;
import io.koala.protocol.EndOfChannel;
import java.util.ArrayDeque;

/**
 * The sender side of one data channel: numbers items, sends them while credit lasts, and queues the
 * rest in order until credit arrives. Pure; {@link #offer} and {@link #onCredit} return what may be
 * sent now.
 */
public final class OutputChannel {
  private final int id;
  private final Object target;
  private final ArrayDeque<ChannelItem> queued = new ArrayDeque<>();
  private long nextSeq;
  private long limit;
  private boolean closed;

  /** Receives the items that may go out now, with their sequence numbers. */
  @FunctionalInterface
  public interface Sender {
    void send(OutputChannel channel, long seq, ChannelItem item);
  }

  /**
   * @param target where the channel leads (a task id, or the job coordinator)
   * @param initialCredit credit both sides assume before the first grant
   */
  public OutputChannel(int id, Object target, int initialCredit) {
    this.id = id;
    this.target = target;
    this.limit = initialCredit;
  }

  public int id() {
    return id;
  }

  public Object target() {
    return target;
  }

  /** Whether end-of-channel has been offered: nothing more may follow it. */
  public boolean closed() {
    return closed;
  }

  /**
   * Sends {@code item} now if credit allows and nothing is queued before it; queues it otherwise.
   *
   * @throws IllegalStateException after end-of-channel
   */
  public void offer(ChannelItem item, Sender sender) {
    if (closed) {
      throw new IllegalStateException("channel " + id + " to " + target + " is closed: " + item);
    }
    if (item == EndOfChannel.INSTANCE) {
      closed = true;
    }
    if (queued.isEmpty() && nextSeq < limit) {
      sender.send(this, nextSeq++, item);
    } else {
      queued.add(item);
    }
  }

  /** Raises the credit limit (never lowers it) and sends what it allows. */
  public void onCredit(long newLimit, Sender sender) {
    if (newLimit > limit) {
      limit = newLimit;
    }
    while (!queued.isEmpty() && nextSeq < limit) {
      sender.send(this, nextSeq++, queued.poll());
    }
  }

  /** Number of items waiting for credit. */
  public int queued() {
    return queued.size();
  }

  /** Number of items sent so far. */
  public long sent() {
    return nextSeq;
  }

  @Override
  public String toString() {
    return "OutputChannel(" + id + " → " + target + ", sent " + nextSeq + ", limit " + limit + ")";
  }
}
