package io.koala.routing;

import io.koala.store.KeyLayout;

/**
 * Key-to-bucket math: {@code bucket = murmur3_32(keyBytes) mod B}. The number of buckets B is fixed
 * for a job's life, between 1 and {@link KeyLayout#MAX_BUCKETS}; a keyed operator's parallelism can
 * never exceed it.
 */
public final class Buckets {
  /** Default number of buckets of a job. */
  public static final int DEFAULT_BUCKETS = 128;

  private Buckets() {}

  /** The bucket of a key, given its serialized bytes. */
  public static int bucketOf(byte[] keyBytes, int buckets) {
    return Math.floorMod(Murmur3.hash32(keyBytes), buckets);
  }

  /** Checks that {@code buckets} is a usable bucket count. */
  public static int checkBucketCount(int buckets) {
    if (buckets < 1 || buckets > KeyLayout.MAX_BUCKETS) {
      throw new IllegalArgumentException(
          "bucket count " + buckets + " outside [1, " + KeyLayout.MAX_BUCKETS + "]");
    }
    return buckets;
  }
}
