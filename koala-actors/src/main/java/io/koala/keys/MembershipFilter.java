package io.koala.keys;

import io.koala.routing.Murmur3;
import java.nio.ByteBuffer;

/**
 * Which keys a holder has, as a Bloom filter (DESIGN §5.3): a negative answer is exact (the key is
 * new, so its owner needs no round trip), a positive one may be false (a fetch then finds the key
 * absent). Keys are added as they are written, so a bucket's filter is ready at hand-over without
 * scanning the bucket.
 *
 * <p>A filter has a capacity, sized at {@link #BITS_PER_KEY} bits per key (about 1% false positives
 * when full, fewer before). Adding past the capacity keeps it correct but raises its false-positive
 * rate, so its owner rebuilds it from the store then ({@link #isFull}; {@link
 * KeyLocations#rebuildFilters}), with room for {@link #GROWTH} times the keys present: memory stays
 * between 9.6 and 12 bits per key, and the rebuilds scan each key about five times over the life of
 * a bucket that only grows. Not thread-safe; {@link #toBytes} / {@link #fromBytes} ship it.
 */
public final class MembershipFilter {
  /** Bits per key of capacity: about 1% false positives with {@link #HASHES} hashes when full. */
  public static final double BITS_PER_KEY = 9.6;

  /** A rebuilt filter has room for this many times the keys present. */
  public static final double GROWTH = 1.25;

  /** The capacity of a new, empty filter and the least capacity of a rebuilt one. */
  public static final long MIN_CAPACITY = 64;

  private static final int HASHES = 7;

  private final long[] bits;
  private final long capacity;
  private long keys;

  private MembershipFilter(long[] bits, long capacity, long keys) {
    this.bits = bits;
    this.capacity = capacity;
    this.keys = keys;
  }

  /** An empty filter with room for {@link #MIN_CAPACITY} keys. */
  public MembershipFilter() {
    this(MIN_CAPACITY);
  }

  /** An empty filter with room for {@code capacity} keys. */
  public MembershipFilter(long capacity) {
    this(
        new long[(int) ((Math.max(64, (long) Math.ceil(capacity * BITS_PER_KEY)) + 63) / 64)],
        capacity,
        0);
  }

  /** An empty filter sized for {@code present} keys and room to grow. */
  public static MembershipFilter forKeys(long present) {
    return new MembershipFilter(Math.max(MIN_CAPACITY, (long) Math.ceil(present * GROWTH)));
  }

  /** Adds {@code key} (its bytes). */
  public void add(byte[] key) {
    int h1 = Murmur3.hash32(key, 0, key.length, 0x3c6ef372);
    int h2 = Murmur3.hash32(key, 0, key.length, 0x7f4a7c15) | 1;
    long m = (long) bits.length * 64;
    boolean added = false;
    for (int i = 0; i < HASHES; i++) {
      long bit = Math.floorMod(h1 + (long) i * h2, m);
      long mask = 1L << bit;
      int word = (int) (bit >>> 6);
      if ((bits[word] & mask) == 0) {
        bits[word] |= mask;
        added = true;
      }
    }
    if (added) {
      keys++; // a key the filter already answered yes to is not counted again
    }
  }

  /** False only if {@code key} was never added. */
  public boolean mightContain(byte[] key) {
    int h1 = Murmur3.hash32(key, 0, key.length, 0x3c6ef372);
    int h2 = Murmur3.hash32(key, 0, key.length, 0x7f4a7c15) | 1;
    long m = (long) bits.length * 64;
    for (int i = 0; i < HASHES; i++) {
      long bit = Math.floorMod(h1 + (long) i * h2, m);
      if ((bits[(int) (bit >>> 6)] & (1L << bit)) == 0) {
        return false;
      }
    }
    return true;
  }

  /** Whether more keys were added than the filter was sized for: time to rebuild it. */
  public boolean isFull() {
    return keys > capacity;
  }

  /** Keys added (not counting those the filter already answered yes to). */
  public long keys() {
    return keys;
  }

  /** The number of keys the filter was sized for. */
  public long capacity() {
    return capacity;
  }

  /** Bytes of filter bits. */
  public long bytes() {
    return (long) bits.length * 8;
  }

  /** The filter as bytes, for hand-over. */
  public byte[] toBytes() {
    ByteBuffer buf = ByteBuffer.allocate(8 + 8 + 4 + bits.length * 8);
    buf.putLong(capacity).putLong(keys).putInt(bits.length);
    for (long w : bits) {
      buf.putLong(w);
    }
    return buf.array();
  }

  /** The filter written by {@link #toBytes}. */
  public static MembershipFilter fromBytes(byte[] bytes) {
    ByteBuffer buf = ByteBuffer.wrap(bytes);
    long capacity = buf.getLong();
    long keys = buf.getLong();
    long[] bits = new long[buf.getInt()];
    for (int j = 0; j < bits.length; j++) {
      bits[j] = buf.getLong();
    }
    return new MembershipFilter(bits, capacity, keys);
  }
}
