package io.koala.bench.experiment;

import io.koala.routing.Buckets;
import io.koala.serialization.KeyEncoder;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.TypeRegistry;
import io.koala.store.KeyLayout;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * The generator's keys by bucket, for the state a protocol had to move: which keys had state in the
 * moved buckets, and which of those the records after the rescale touched. A key has state once a
 * record touched it; with a workload whose keys drift to new ones (Q6* with recent sellers) the
 * keys touched after a rescale include keys that had no state anywhere, and nothing had to move for
 * them.
 */
final class KeySpace {
  private final RescaleSettings s;
  private final RescaleWorkload workload;
  private final KeyEncoder encoder = new KeyEncoder(new KryoSerde(TypeRegistry.withDefaults()));
  private short[] bucketOfKey = new short[0];
  private final BitSet existing = new BitSet(); // keys touched by the records [0, existingBefore)
  private long existingBefore;

  KeySpace(RescaleSettings s, RescaleWorkload workload) {
    this.s = s;
    this.workload = workload;
  }

  /** Stored bytes of one key's state: its store key (as the tasks write it) and its value. */
  int bytesPerKey() {
    return KeyLayout.stateKey(0, encoder.encode(0L), 0, new byte[0]).length + s.stateBytes();
  }

  private int bucketOf(int key) {
    if (key >= bucketOfKey.length) {
      int from = bucketOfKey.length;
      bucketOfKey = Arrays.copyOf(bucketOfKey, Math.max(key + 1, from * 2));
      for (int k = from; k < bucketOfKey.length; k++) {
        bucketOfKey[k] =
            (short) Buckets.bucketOf(encoder.encode((long) k), Buckets.DEFAULT_BUCKETS);
      }
    }
    return bucketOfKey[key];
  }

  private int keyOf(long index) {
    return Math.toIntExact(workload.keyOf(index, s.seed()));
  }

  /** The keys with state once the records before {@code index} ran: those they touched. */
  private BitSet existingBefore(long index) {
    if (index < existingBefore) {
      existing.clear();
      existingBefore = 0;
    }
    for (long i = existingBefore; i < index; i++) {
      existing.set(keyOf(i));
    }
    existingBefore = index;
    return existing;
  }

  private static boolean[] set(List<Integer> buckets) {
    boolean[] in = new boolean[Buckets.DEFAULT_BUCKETS];
    buckets.forEach(b -> in[b] = true);
    return in;
  }

  /** Keys whose bucket is in {@code buckets} and that had state before record {@code index}. */
  long keysIn(List<Integer> buckets, long index) {
    boolean[] in = set(buckets);
    BitSet keys = existingBefore(index);
    long n = 0;
    for (int k = keys.nextSetBit(0); k >= 0; k = keys.nextSetBit(k + 1)) {
      if (in[bucketOf(k)]) {
        n++;
      }
    }
    return n;
  }

  /** Records {@code [fromIndex, toIndex)} per bucket of their key. */
  double[] bucketLoads(long fromIndex, long toIndex) {
    double[] loads = new double[Buckets.DEFAULT_BUCKETS];
    for (long i = fromIndex; i < toIndex; i++) {
      loads[bucketOf(keyOf(i))]++;
    }
    return loads;
  }

  /**
   * Distinct keys in {@code buckets} that the records {@code [fromIndex, toIndex)} touch and that
   * had state before {@code fromIndex}: the state a lazy protocol cannot avoid moving.
   */
  long touchedIn(List<Integer> buckets, long fromIndex, long toIndex) {
    boolean[] in = set(buckets);
    BitSet before = existingBefore(fromIndex);
    BitSet touched = new BitSet();
    for (long i = fromIndex; i < toIndex; i++) {
      int k = keyOf(i);
      if (before.get(k) && in[bucketOf(k)]) {
        touched.set(k);
      }
    }
    return touched.cardinality();
  }
}
