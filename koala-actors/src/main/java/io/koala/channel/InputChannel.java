package io.koala.channel;

import io.koala.protocol.ProtocolViolationException;

/**
 * The receiver side of one data channel: checks that items arrive in sequence and decides when to
 * grant more credit. It grants {@code window} items beyond what it has consumed, in steps of half a
 * window so that credit messages stay rare. Pure.
 */
public final class InputChannel {
  private final int id;
  private final Object source;
  private final int input;
  private final int window;
  private long expectedSeq;
  private long consumed;
  private long granted;
  private boolean endReceived;
  private boolean ended;

  /**
   * @param input index of the input edge of the receiving operator this channel belongs to
   * @param window credit the receiver keeps open; the initial credit both sides assume
   */
  public InputChannel(int id, Object source, int input, int window) {
    if (window < 1) {
      throw new IllegalArgumentException("credit window must be at least 1, got " + window);
    }
    this.id = id;
    this.source = source;
    this.input = input;
    this.window = window;
    this.granted = window;
  }

  public int id() {
    return id;
  }

  public Object source() {
    return source;
  }

  public int input() {
    return input;
  }

  /**
   * Accepts item {@code seq}; {@code endOfChannel} says whether it is the channel's last.
   *
   * @throws ProtocolViolationException on a gap, a repeat, or an item after end-of-channel
   */
  public void accept(long seq, boolean endOfChannel) {
    if (endReceived) {
      throw new ProtocolViolationException(
          "channel " + id + " from " + source + ": item " + seq + " after end-of-channel");
    }
    if (seq != expectedSeq) {
      throw new ProtocolViolationException(
          "channel "
              + id
              + " from "
              + source
              + ": expected item "
              + expectedSeq
              + " but got "
              + seq
              + " (a message was lost or duplicated)");
    }
    if (seq >= granted) {
      throw new ProtocolViolationException(
          "channel " + id + " from " + source + ": item " + seq + " sent without credit");
    }
    expectedSeq++;
    endReceived = endOfChannel;
  }

  /**
   * Records that one accepted item has been consumed.
   *
   * @return the new credit limit to grant, or -1 when no grant is due yet
   */
  public long consumed(boolean endOfChannel) {
    consumed++;
    if (endOfChannel) {
      ended = true;
      return -1;
    }
    long target = consumed + window;
    if (target - granted >= Math.max(1, window / 2)) {
      granted = target;
      return granted;
    }
    return -1;
  }

  /** The current grant, for periodic re-sending. */
  public long granted() {
    return granted;
  }

  /**
   * Whether a grant beyond the initial window has been made: only then is there a grant to re-send
   * (the sender assumes the initial one, and may not have opened the channel yet: a channel a
   * reconfiguration adds opens at the sender's switch).
   */
  public boolean hasGranted() {
    return granted > window;
  }

  /** Restores a channel whose end was consumed before a checkpoint: it delivers nothing more. */
  public void restoreEnded() {
    endReceived = true;
    ended = true;
  }

  /** Whether end-of-channel has been consumed. */
  public boolean ended() {
    return ended;
  }

  /** Items accepted but not yet consumed. */
  public long inFlight() {
    return expectedSeq - consumed;
  }
}
