package io.koala.task.state;

import io.koala.operator.InternalTimers;
import io.koala.protocol.Handover;
import io.koala.state.TimeDomain;
import io.koala.store.KeyLayout;
import io.koala.store.Table;
import io.koala.store.WriteTxn;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The timers of a keyed task, in its store's {@link Table#TIMERS} table under the key's bucket (see
 * {@link KeyLayout#timerKey}), so they move with their bucket and are snapshotted with the state.
 * Registration and deletion go through the batch's write transaction for the current key; {@link
 * #due} finds the timers to fire, across the task's buckets, in timestamp order. The earliest
 * timestamp of each domain is cached (a lower bound, so an empty scan is skipped).
 */
public final class KeyedTimers implements InternalTimers {
  private static final byte[] NO_NAMESPACE = new byte[0];
  private static final byte[] EMPTY = new byte[0];

  private final KeyedStateBackend state;
  private int[] buckets;
  private final LongSupplier watermark;
  private final LongSupplier clock;
  private long nextEvent = Long.MAX_VALUE;
  private long nextProcessing = Long.MAX_VALUE;

  /** A timer ready to fire. */
  public record Due(int bucket, long timestamp, byte[] key, byte[] namespace, byte[] storeKey) {}

  /**
   * @param buckets the buckets the task owns (the timers it fires)
   * @param watermark the task's current watermark
   * @param clock the wall clock
   */
  public KeyedTimers(
      KeyedStateBackend state, int[] buckets, LongSupplier watermark, LongSupplier clock) {
    this.state = state;
    this.buckets = buckets.clone();
    this.watermark = watermark;
    this.clock = clock;
  }

  /** The buckets whose timers this task fires (those it owns), after a reconfiguration. */
  public void buckets(int[] owned) {
    this.buckets = owned.clone();
  }

  static byte domainByte(TimeDomain domain) {
    return (byte) (domain == TimeDomain.EVENT_TIME ? 1 : 2);
  }

  @Override
  public long currentWatermark() {
    return watermark.getAsLong();
  }

  @Override
  public long currentProcessingTime() {
    return clock.getAsLong();
  }

  @Override
  public void registerEventTimeTimer(long timestamp) {
    registerEventTimeTimer(timestamp, NO_NAMESPACE);
  }

  @Override
  public void deleteEventTimeTimer(long timestamp) {
    deleteEventTimeTimer(timestamp, NO_NAMESPACE);
  }

  @Override
  public void registerProcessingTimeTimer(long timestamp) {
    registerProcessingTimeTimer(timestamp, NO_NAMESPACE);
  }

  @Override
  public void deleteProcessingTimeTimer(long timestamp) {
    deleteProcessingTimeTimer(timestamp, NO_NAMESPACE);
  }

  @Override
  public void registerEventTimeTimer(long timestamp, byte[] namespace) {
    put(TimeDomain.EVENT_TIME, timestamp, namespace);
    nextEvent = Math.min(nextEvent, timestamp);
  }

  @Override
  public void deleteEventTimeTimer(long timestamp, byte[] namespace) {
    delete(TimeDomain.EVENT_TIME, timestamp, namespace);
  }

  @Override
  public void registerProcessingTimeTimer(long timestamp, byte[] namespace) {
    put(TimeDomain.PROCESSING_TIME, timestamp, namespace);
    nextProcessing = Math.min(nextProcessing, timestamp);
  }

  @Override
  public void deleteProcessingTimeTimer(long timestamp, byte[] namespace) {
    delete(TimeDomain.PROCESSING_TIME, timestamp, namespace);
  }

  private void put(TimeDomain domain, long timestamp, byte[] namespace) {
    WriteTxn txn = state.currentTxn();
    txn.put(Table.TIMERS, storeKey(domain, timestamp, namespace), EMPTY);
  }

  private void delete(TimeDomain domain, long timestamp, byte[] namespace) {
    state.currentTxn().delete(Table.TIMERS, storeKey(domain, timestamp, namespace));
  }

  private byte[] storeKey(TimeDomain domain, long timestamp, byte[] namespace) {
    return KeyLayout.timerKey(
        state.currentBucket(), domainByte(domain), timestamp, state.currentKeyBytes(), namespace);
  }

  /** A lower bound of the earliest timer of {@code domain} ({@link Long#MAX_VALUE}: none). */
  public long next(TimeDomain domain) {
    return domain == TimeDomain.EVENT_TIME ? nextEvent : nextProcessing;
  }

  /**
   * Up to {@code limit} timers of {@code domain} with timestamps at or below {@code upTo}, earliest
   * first (ties by key length, key bytes, then namespace: the store's order, so the firing order
   * does not depend on {@code limit}), read in the batch's transaction. Fire them after {@link
   * #remove removing} each, then call {@link #refresh} once none are left.
   */
  public List<Due> due(TimeDomain domain, long upTo, int limit) {
    if (next(domain) > upTo) {
      return List.of();
    }
    WriteTxn txn = state.batchTxn();
    byte d = domainByte(domain);
    List<Due> out = new ArrayList<>();
    for (int b : buckets) {
      txn.scan(
          Table.TIMERS,
          KeyLayout.timerPrefix(b, d),
          null,
          limit,
          (k, v) -> {
            long ts = KeyLayout.timerTimestamp(k);
            if (ts > upTo) {
              return false;
            }
            out.add(new Due(b, ts, KeyLayout.timerUserKey(k), KeyLayout.timerNamespace(k), k));
            return true;
          });
    }
    // the store's order after bucket and domain: timestamp, key length, key, namespace
    out.sort(
        (x, y) ->
            Arrays.compareUnsigned(
                x.storeKey(), 3, x.storeKey().length, y.storeKey(), 3, y.storeKey().length));
    return out.size() > limit ? out.subList(0, limit) : out;
  }

  /** Brings the cached earliest timestamp of {@code domain} up to date from the store. */
  public void refresh(TimeDomain domain) {
    refreshNext(domain, state.batchTxn(), domainByte(domain));
  }

  /**
   * Takes every timer of {@code bucket} out of the store for its hand-over (DESIGN §6.3): they are
   * deleted here in {@code txn} and fire at the receiver, which {@link #install}s them.
   */
  public List<Handover.ShippedTimer> ship(WriteTxn txn, int bucket) {
    List<Handover.ShippedTimer> shipped = new ArrayList<>();
    txn.scan(
        Table.TIMERS,
        KeyLayout.bucketPrefix(bucket),
        (k, v) -> {
          shipped.add(
              new Handover.ShippedTimer(
                  KeyLayout.timerTimestamp(k),
                  KeyLayout.timerDomain(k),
                  KeyLayout.timerUserKey(k),
                  KeyLayout.timerNamespace(k)));
          return true;
        });
    txn.deletePrefix(Table.TIMERS, KeyLayout.bucketPrefix(bucket));
    return shipped;
  }

  /**
   * A timer that was parked on a key of a bucket being handed over (its callback waited for the
   * key's state), shipped with the bucket instead of firing here.
   */
  public static Handover.ShippedTimer shipParked(
      long timestamp, TimeDomain domain, byte[] key, byte[] namespace) {
    return new Handover.ShippedTimer(timestamp, domainByte(domain), key, namespace);
  }

  /** Installs in {@code txn} the timers shipped with {@code bucket}, handed over to this task. */
  public void install(WriteTxn txn, int bucket, List<Handover.ShippedTimer> timers) {
    for (Handover.ShippedTimer t : timers) {
      txn.put(
          Table.TIMERS,
          KeyLayout.timerKey(bucket, t.domain(), t.timestamp(), t.key(), t.namespace()),
          EMPTY);
      installed(t.domain(), t.timestamp());
    }
  }

  /** Keeps the cached earliest timestamp of {@code domain} a lower bound after an install. */
  private void installed(byte domain, long timestamp) {
    if (domain == domainByte(TimeDomain.EVENT_TIME)) {
      nextEvent = Math.min(nextEvent, timestamp);
    } else {
      nextProcessing = Math.min(nextProcessing, timestamp);
    }
  }

  /** Removes a due timer before it fires. */
  public void remove(Due due) {
    state.batchTxn().delete(Table.TIMERS, due.storeKey());
  }

  private void refreshNext(TimeDomain domain, WriteTxn txn, byte d) {
    long[] min = {Long.MAX_VALUE};
    for (int b : buckets) {
      txn.scan(
          Table.TIMERS,
          KeyLayout.timerPrefix(b, d),
          null,
          1,
          (k, v) -> {
            min[0] = Math.min(min[0], KeyLayout.timerTimestamp(k));
            return false;
          });
    }
    if (domain == TimeDomain.EVENT_TIME) {
      nextEvent = min[0];
    } else {
      nextProcessing = min[0];
    }
  }

  /** Recomputes the cached earliest timestamps from the store (at start-up). */
  public void recoverNext() {
    refreshNext(TimeDomain.EVENT_TIME, state.batchTxn(), domainByte(TimeDomain.EVENT_TIME));
    refreshNext(
        TimeDomain.PROCESSING_TIME, state.batchTxn(), domainByte(TimeDomain.PROCESSING_TIME));
  }
}
