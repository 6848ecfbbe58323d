package io.koala.keys;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The keys a task's records touched lately, per bucket (DESIGN §6.3, issue 20 step 2): what a
 * sender ships with a bucket's hand-over as its hot set, so that the receiver asks for those keys'
 * state at once, in a few large requests, instead of parking a record for each on its first access.
 *
 * <p>Two generations of exact key sets: keys go into the current one; when it is {@code window}
 * old, or holds half of {@code maxKeys}, it becomes the previous one and the previous one is
 * dropped. So the hot set is what was touched in the last one to two windows, at most {@code
 * maxKeys} keys (about their bytes plus 6 bytes each). A key touched once is as hot as one touched
 * often: the receiver fetches each anyway on its first access. Pure; not thread-safe.
 */
public final class RecentKeys {
  private static final Comparator<byte[]> STORE_ORDER =
      Comparator.<byte[]>comparingInt(k -> k.length).thenComparing(Arrays::compareUnsigned);

  private final long windowNanos;
  private final int generationKeys;
  private LocalKeySet[] current;
  private LocalKeySet[] previous;
  private int currentSize;
  private long currentSince;

  /**
   * @param buckets buckets of the keyed input
   * @param windowNanos how long a generation collects keys; 0 turns tracking off
   * @param maxKeys the most keys both generations hold together
   * @param now the current time, in nanoseconds
   */
  public RecentKeys(int buckets, long windowNanos, int maxKeys, long now) {
    if (windowNanos < 0 || maxKeys < 0) {
      throw new IllegalArgumentException(
          "a negative hot-set window or size: " + windowNanos + " ns, " + maxKeys + " keys");
    }
    this.windowNanos = windowNanos;
    this.generationKeys = maxKeys / 2;
    this.current = new LocalKeySet[buckets];
    this.previous = new LocalKeySet[buckets];
    this.currentSince = now;
  }

  /** Whether keys are tracked at all. */
  public boolean enabled() {
    return windowNanos > 0 && generationKeys > 0;
  }

  /** A record of {@code key} in {@code bucket} ran at time {@code now}. */
  public void touch(int bucket, byte[] key, long now) {
    if (!enabled()) {
      return;
    }
    age(now);
    if (currentSize >= generationKeys) {
      turnOver(now);
    }
    LocalKeySet set = current[bucket];
    if (set == null) {
      set = current[bucket] = new LocalKeySet();
    }
    int before = set.size();
    set.add(key);
    currentSize += set.size() - before;
  }

  /** Turns the generations over as time {@code now} requires. */
  private void age(long now) {
    if (now - currentSince >= 2 * windowNanos) {
      turnOver(now);
      turnOver(now); // nothing touched in the last window: both generations are stale
    } else if (now - currentSince >= windowNanos) {
      turnOver(now);
    }
  }

  private void turnOver(long now) {
    previous = current;
    current = new LocalKeySet[previous.length];
    currentSize = 0;
    currentSince = now;
  }

  /**
   * The hot set of {@code bucket}, in the store's key order (as {@link io.koala.store.KeyLayout}
   * lays them out: shorter keys first, then by unsigned bytes), each key once, until their bytes
   * reach {@code maxBytes} (the rest is left out), at time {@code now}; forgets the bucket's keys.
   */
  public List<byte[]> take(int bucket, int maxBytes, long now) {
    List<byte[]> keys = new ArrayList<>();
    if (!enabled()) {
      return keys;
    }
    age(now);
    LocalKeySet cur = current[bucket];
    LocalKeySet prev = previous[bucket];
    if (cur != null) {
      cur.forEach(keys::add);
      currentSize -= cur.size();
    }
    if (prev != null) {
      prev.forEach(
          k -> {
            if (cur == null || !cur.contains(k)) {
              keys.add(k);
            }
          });
    }
    current[bucket] = null;
    previous[bucket] = null;
    keys.sort(STORE_ORDER);
    long bytes = 0;
    for (int i = 0; i < keys.size(); i++) {
      bytes += keys.get(i).length;
      if (bytes > maxBytes) {
        return new ArrayList<>(keys.subList(0, i));
      }
    }
    return keys;
  }
}
