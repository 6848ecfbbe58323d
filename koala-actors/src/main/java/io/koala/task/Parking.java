package io.koala.task;

import io.koala.channel.SizeEstimate;
import io.koala.protocol.StateMessage.KeyRef;
import io.koala.state.TimeDomain;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Records and timer callbacks waiting for their key's state to arrive (DESIGN §6.4): per key, in
 * arrival order, so a later record of a parked key parks behind it; the keys being fetched and from
 * whom (a key already in flight joins that fetch); and the fetches to send at the end of the
 * current batch, one per holder. Each item keeps the arrival number (at the task's input gate) of
 * the channel item it came in, so that an item that must apply after every record that arrived
 * before it (a watermark, a barrier, an end) can tell whether any is still parked ({@link
 * #oldestArrival}); and what the parked items weigh ({@link #bytes}), which counts against the
 * task's budget of waiting records (D5). Pure.
 */
public final class Parking {
  private final Map<KeyRef, ArrayDeque<Parked>> parked = new HashMap<>();
  private final Map<KeyRef, Integer> inFlight = new HashMap<>();
  private final Map<Integer, List<KeyRef>> toFetch = new LinkedHashMap<>();
  private int count;
  private long bytes;
  // arrival numbers of the parked items, with their multiplicity: the first is the oldest
  private final TreeMap<Long, Integer> arrivals = new TreeMap<>();

  /** The "holder" of a key that waits for its bucket's pull rather than for a fetch. */
  private static final int PULLED = -2;

  /** The arrival number of a timer callback: it counts as before every channel item. */
  public static final long BEFORE_EVERYTHING = -1;

  /**
   * What keeping an item waiting costs besides its value: its entry, queue slot and arrival count
   * (about a batch slot's worth), so that a budget of waiting bytes bounds many tiny records too.
   */
  static final int ITEM_BYTES = 64;

  /**
   * The bytes {@code value} counts for while it waits, parked or held: its estimated size, as
   * batches are measured, plus {@link #ITEM_BYTES}.
   */
  public static int waitingBytes(Object value) {
    return SizeEstimate.of(value) + ITEM_BYTES;
  }

  /**
   * A parked record (from input edge {@code edge}, in the channel item of arrival number {@code
   * arrival}) or timer callback, which counts for {@code bytes} while it waits.
   */
  public record Parked(
      Object value,
      long timestamp,
      int edge,
      byte[] namespace,
      TimeDomain timerDomain,
      long arrival,
      int bytes) {
    /** A parked record that came in the channel item of arrival number {@code arrival}. */
    public static Parked record(Object value, long timestamp, int edge, long arrival) {
      return new Parked(value, timestamp, edge, null, null, arrival, waitingBytes(value));
    }

    /** A parked timer callback. */
    public static Parked timer(long timestamp, byte[] namespace, TimeDomain domain) {
      return new Parked(
          null,
          timestamp,
          -1,
          namespace,
          domain,
          BEFORE_EVERYTHING,
          ITEM_BYTES + (namespace == null ? 0 : namespace.length));
    }

    public boolean isTimer() {
      return timerDomain != null;
    }
  }

  /** Whether nothing is parked. */
  public boolean isEmpty() {
    return count == 0;
  }

  /** Items parked. */
  public int count() {
    return count;
  }

  /** What the parked items count for ({@link Parked#bytes}), together. */
  public long bytes() {
    return bytes;
  }

  /**
   * The arrival number of the oldest parked item ({@link #BEFORE_EVERYTHING} for a timer callback),
   * or {@link Long#MAX_VALUE} when nothing is parked.
   */
  public long oldestArrival() {
    return arrivals.isEmpty() ? Long.MAX_VALUE : arrivals.firstKey();
  }

  /** Keys with parked items. */
  public int keys() {
    return parked.size();
  }

  /** Whether {@code key} has parked items (so a later item of it must park behind them). */
  public boolean isParked(KeyRef key) {
    return parked.containsKey(key);
  }

  /**
   * Parks {@code item} behind the key's earlier items; if the key is not being fetched yet, it is
   * fetched from {@code holder} with the batch's other keys of that holder.
   */
  public void park(KeyRef key, Parked item, int holder) {
    add(key, item);
    prefetch(key, holder);
  }

  private void add(KeyRef key, Parked item) {
    parked.computeIfAbsent(key, k -> new ArrayDeque<>()).add(item);
    count++;
    bytes += item.bytes();
    arrivals.merge(item.arrival(), 1, Integer::sum);
  }

  /**
   * Parks {@code item} behind the key's earlier items without fetching the key: its state is being
   * pulled with the rest of its bucket (the eager protocol), and {@link #arrived} runs it.
   */
  public void await(KeyRef key, Parked item) {
    add(key, item);
    inFlight.putIfAbsent(key, PULLED);
  }

  /**
   * Fetches {@code key} from {@code holder} with the next fetches, with nothing parked behind it (a
   * forced transfer pulling a key an entry names); does nothing if it is being fetched.
   */
  public void prefetch(KeyRef key, int holder) {
    if (!inFlight.containsKey(key)) {
      inFlight.put(key, holder);
      toFetch.computeIfAbsent(holder, h -> new ArrayList<>()).add(key);
    }
  }

  /**
   * The key waits for its bucket's pull ({@link #await}); it is fetched from {@code holder} after
   * all, with the next fetches (its bucket's pull ended without it).
   */
  public void fetchInstead(KeyRef key, int holder) {
    Integer h = inFlight.get(key);
    if (h != null && h == PULLED) {
      inFlight.remove(key);
      prefetch(key, holder);
    }
  }

  /**
   * A reply from {@code holder} left {@code key} out (it was too large to carry them all): asks for
   * it again with the next fetches, if it is still awaited from that holder.
   */
  public void refetch(KeyRef key, int holder) {
    Integer h = inFlight.get(key);
    if (h != null && h == holder) {
      toFetch.computeIfAbsent(holder, x -> new ArrayList<>()).add(key);
    }
  }

  /** The fetches to send now, by holder; clears them. */
  public Map<Integer, List<KeyRef>> takeFetches() {
    Map<Integer, List<KeyRef>> out = new LinkedHashMap<>(toFetch);
    toFetch.clear();
    return out;
  }

  /** The holder {@code key} is being fetched from, or -1. */
  public int fetchingFrom(KeyRef key) {
    return inFlight.getOrDefault(key, -1);
  }

  /**
   * The key's bucket was handed over before its state arrived: gives up the fetch (a late reply is
   * then ignored) and returns the key's parked items, in arrival order, to forward.
   */
  public ArrayDeque<Parked> abandon(KeyRef key) {
    return arrived(key);
  }

  /** Keys of {@code bucket} with parked items or being fetched. */
  public List<KeyRef> keysOf(int bucket) {
    List<KeyRef> out = new ArrayList<>();
    for (KeyRef k : parked.keySet()) {
      if (k.bucket() == bucket) {
        out.add(k);
      }
    }
    for (KeyRef k : inFlight.keySet()) {
      if (k.bucket() == bucket && !parked.containsKey(k)) {
        out.add(k); // prefetched, with nothing parked behind it
      }
    }
    return out;
  }

  /** The key's state arrived: its parked items, in arrival order, to run now. */
  public ArrayDeque<Parked> arrived(KeyRef key) {
    inFlight.remove(key);
    ArrayDeque<Parked> items = parked.remove(key);
    if (items == null) {
      return new ArrayDeque<>();
    }
    count -= items.size();
    for (Parked p : items) {
      bytes -= p.bytes();
      arrivals.compute(p.arrival(), (a, n) -> n == 1 ? null : n - 1);
    }
    return items;
  }
}
