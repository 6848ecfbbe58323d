package io.koala.samples;

import java.util.SplittableRandom;

/**
 * The randomness of the samples' generators: record {@code index} of a stream with {@code seed}
 * draws from its own generator, so a record is a pure function of (index, seed) and a source can
 * restart from any offset (DESIGN §4.3).
 */
public final class RecordRandom {
  private RecordRandom() {}

  /** 64 well-mixed bits of (index, seed): SplitMix64's finalizer over a Weyl step. */
  public static long mix(long index, long seed) {
    long z = index * 0x9E3779B97F4A7C15L + seed;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** The generator of record {@code index}. */
  public static SplittableRandom of(long index, long seed) {
    return new SplittableRandom(mix(index, seed));
  }
}
