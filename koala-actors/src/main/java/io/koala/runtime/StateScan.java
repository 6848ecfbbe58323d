package io.koala.runtime;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A page of a scan of a keyed operator's state ({@link JobHandle#scan}): keys with their state, in
 * bucket order and, within a bucket, in the store's key order; and where the scan goes on, if it
 * has not reached the end of its bucket range.
 *
 * @param <K> the operator's key type
 * @param <R> what each key's state reads as (see {@link StateQuery})
 */
public final class StateScan<K, R> {
  private final List<Map.Entry<K, R>> entries;
  private final Cursor next;

  StateScan(List<Map.Entry<K, R>> entries, Cursor next) {
    this.entries = List.copyOf(entries);
    this.next = next;
  }

  /** The keys of this page with their state; keys without the state are left out. */
  public List<Map.Entry<K, R>> entries() {
    return entries;
  }

  /** Where the next page starts, or empty when the scan has covered its whole bucket range. */
  public Optional<Cursor> next() {
    return Optional.ofNullable(next);
  }

  /**
   * Where a scan starts: a bucket range, and within the first bucket the key after which to go on.
   * Keys are spread over the job's buckets ({@code koala.buckets}) by the hash of their bytes; a
   * scan of {@link #all()} visits every bucket.
   */
  public static final class Cursor {
    final int bucket;
    final int endBucket; // exclusive; -1: the last bucket
    final byte[] after; // null: from the bucket's first key

    Cursor(int bucket, int endBucket, byte[] after) {
      this.bucket = bucket;
      this.endBucket = endBucket;
      this.after = after;
    }

    /** Every key of the operator. */
    public static Cursor all() {
      return new Cursor(0, -1, null);
    }

    /** The keys of buckets {@code from} (inclusive) to {@code to} (exclusive). */
    public static Cursor buckets(int from, int to) {
      if (from < 0 || to <= from) {
        throw new IllegalArgumentException(
            "a bucket range needs 0 <= from < to; got from " + from + ", to " + to);
      }
      return new Cursor(from, to, null);
    }

    /** The bucket this cursor is in. */
    public int bucket() {
      return bucket;
    }

    @Override
    public String toString() {
      return "Cursor(bucket " + bucket + (after == null ? "" : ", after a key") + ")";
    }
  }
}
