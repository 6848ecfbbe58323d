package io.koala.task;

import io.koala.keys.KeyLocations;
import io.koala.keys.RecentKeys;
import io.koala.keys.StateServing;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.StateMessage.KeyRef;
import io.koala.store.WriteTxn;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import java.util.function.IntUnaryOperator;

/**
 * A keyed task's hot sets (issue 20 step 2). As a sender: the keys its records touched lately, per
 * bucket ({@link RecentKeys}), shipped with a bucket's hand-over. As a receiver: the hot keys of
 * the buckets it took over, asked for ahead of their records, at the pace of the replies: at most
 * {@link #WINDOW} requests outstanding to a holder, each as many keys as a reply carries whole, so
 * the stream never crowds out the task's processing or its on-demand fetches, which go out at once
 * whatever the window. A key is asked for only if it still resolves to another task and is not
 * being fetched already: one installed since, or parked behind a fetch of its own, is skipped.
 * Pure.
 */
final class HotSet {
  /** Requests outstanding to one holder at most while its hot keys are asked for. */
  static final int WINDOW = 2;

  private final RecentKeys recent;
  private final Map<Integer, ArrayDeque<KeyRef>> queued = new LinkedHashMap<>(); // by holder
  private boolean handOversArriving; // hot keys wait until every hand-over of the epoch is in

  HotSet(ChannelSettings settings, int buckets, long now) {
    recent =
        new RecentKeys(
            buckets,
            TimeUnit.MILLISECONDS.toNanos(settings.hotWindowMillis()),
            settings.hotKeys(),
            now);
  }

  /** Whether recent keys are tracked ({@code koala.reconfiguration.hot-set.window} > 0). */
  boolean tracks() {
    return recent.enabled();
  }

  /** A record of {@code key} of owned {@code bucket} runs at time {@code now}. */
  void touch(int bucket, byte[] key, long now) {
    recent.touch(bucket, key, now);
  }

  /**
   * The hot set of {@code bucket}, which this task hands over now: the keys its records touched
   * lately, in the store's order, at most {@link StateServing#CHUNK_BYTES} of them.
   */
  List<byte[]> take(int bucket, long now) {
    return recent.take(bucket, StateServing.CHUNK_BYTES, now);
  }

  /**
   * The hot keys of {@code bucket}, taken over with {@code holder} as its default holder; they are
   * asked for once every hand-over of the reconfiguration is in ({@link #handOversIn}), so that
   * their replies, which a task runs ahead of its channels, do not delay the hand-overs still to
   * come.
   */
  void tookOver(int bucket, int holder, List<byte[]> keys) {
    if (keys.isEmpty()) {
      return;
    }
    handOversArriving = true;
    ArrayDeque<KeyRef> q = queued.computeIfAbsent(holder, h -> new ArrayDeque<>());
    for (byte[] key : keys) {
      q.add(new KeyRef(bucket, key));
    }
  }

  /** Every hand-over of the reconfiguration is in: the hot keys may be asked for. */
  void handOversIn() {
    handOversArriving = false;
  }

  /** Whether no hot key may be asked for now. */
  boolean isIdle() {
    return queued.isEmpty() || handOversArriving;
  }

  /**
   * Prefetches the next hot keys of each holder with room in its window ({@code outstanding}: the
   * requests awaited from a holder), {@code perRequest} keys per free request; resolves each in
   * {@code txn}, skipping those no longer of a bucket this task {@code owns}, here already, or
   * being fetched.
   */
  void next(
      WriteTxn txn,
      KeyLocations locations,
      Parking parking,
      IntPredicate owns,
      IntUnaryOperator outstanding,
      int perRequest) {
    for (Iterator<Map.Entry<Integer, ArrayDeque<KeyRef>>> it = queued.entrySet().iterator();
        it.hasNext(); ) {
      Map.Entry<Integer, ArrayDeque<KeyRef>> e = it.next();
      ArrayDeque<KeyRef> q = e.getValue();
      long room = (long) Math.max(0, WINDOW - outstanding.applyAsInt(e.getKey())) * perRequest;
      while (room > 0 && !q.isEmpty()) {
        KeyRef ref = q.poll();
        if (!owns.test(ref.bucket()) || parking.fetchingFrom(ref) != -1) {
          continue;
        }
        int holder = locations.resolve(txn, ref.bucket(), ref.key());
        if (holder != locations.self()) {
          parking.prefetch(ref, holder);
          room--;
        }
      }
      if (q.isEmpty()) {
        it.remove();
      }
    }
  }
}
