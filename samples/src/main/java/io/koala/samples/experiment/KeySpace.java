package io.koala.samples.experiment;

import io.koala.routing.Buckets;
import io.koala.serialization.KeyEncoder;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.TypeRegistry;
import io.koala.store.KeyLayout;
import java.util.BitSet;
import java.util.List;

/**
 * The generator's keys by bucket, for the state a protocol had to move: which keys are in the moved
 * buckets, and which of those the records after the rescale touched.
 */
final class KeySpace {
  private final RescaleSettings s;
  private final RescaleWorkload workload;
  private final KeyEncoder encoder = new KeyEncoder(new KryoSerde(TypeRegistry.withDefaults()));
  private short[] bucketOfKey;

  KeySpace(RescaleSettings s, RescaleWorkload workload) {
    this.s = s;
    this.workload = workload;
  }

  /** Stored bytes of one key's state: its store key (as the tasks write it) and its value. */
  int bytesPerKey() {
    return KeyLayout.stateKey(0, encoder.encode(0L), 0, new byte[0]).length + s.stateBytes();
  }

  private short[] buckets() {
    if (bucketOfKey == null) {
      bucketOfKey = new short[Math.toIntExact(s.keys())];
      for (int k = 0; k < bucketOfKey.length; k++) {
        bucketOfKey[k] =
            (short) Buckets.bucketOf(encoder.encode((long) k), Buckets.DEFAULT_BUCKETS);
      }
    }
    return bucketOfKey;
  }

  private static boolean[] set(List<Integer> buckets) {
    boolean[] in = new boolean[Buckets.DEFAULT_BUCKETS];
    buckets.forEach(b -> in[b] = true);
    return in;
  }

  /** Keys whose bucket is in {@code buckets}. */
  long keysIn(List<Integer> buckets) {
    boolean[] in = set(buckets);
    long n = 0;
    for (short b : buckets()) {
      if (in[b]) {
        n++;
      }
    }
    return n;
  }

  /** Records {@code [fromIndex, toIndex)} per bucket of their key. */
  long[] bucketLoads(long fromIndex, long toIndex) {
    short[] bucketOf = buckets();
    long[] loads = new long[Buckets.DEFAULT_BUCKETS];
    for (long i = fromIndex; i < toIndex; i++) {
      loads[bucketOf[(int) workload.keyOf(i, s.seed())]]++;
    }
    return loads;
  }

  /** Distinct keys in {@code buckets} that the records {@code [fromIndex, toIndex)} touch. */
  long touchedIn(List<Integer> buckets, long fromIndex, long toIndex) {
    boolean[] in = set(buckets);
    short[] bucketOf = buckets();
    BitSet touched = new BitSet(bucketOf.length);
    for (long i = fromIndex; i < toIndex; i++) {
      int k = (int) workload.keyOf(i, s.seed());
      if (in[bucketOf[k]]) {
        touched.set(k);
      }
    }
    return touched.cardinality();
  }
}
