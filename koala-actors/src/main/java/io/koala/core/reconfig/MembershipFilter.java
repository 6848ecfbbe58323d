package io.koala.core.reconfig;

import io.koala.core.Murmur3;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Which keys a holder has, as a scalable Bloom filter (DESIGN §5.3): a negative answer is exact
 * (the key is new, so its owner needs no round trip), a positive one may be false (a fetch then
 * finds the key absent). Keys are added as they are written, so a bucket's filter is ready at
 * hand-over without scanning the bucket. It grows by stages of doubling capacity, each with half
 * the false-positive rate of the one before, so the total rate stays under twice the first stage's.
 * Not thread-safe; {@link #toBytes} / {@link #fromBytes} ship it.
 */
public final class MembershipFilter {
  private static final int FIRST_CAPACITY = 1024;
  private static final double FIRST_FPP = 0.006;
  private static final double TIGHTENING = 0.8;

  private final List<Stage> stages = new ArrayList<>();
  private long keys;

  /** One Bloom filter of fixed capacity. */
  private static final class Stage {
    final long[] bits;
    final int hashes;
    final long capacity;
    long added;

    Stage(long capacity, double fpp) {
      long m =
          Math.max(64, (long) Math.ceil(-capacity * Math.log(fpp) / (Math.log(2) * Math.log(2))));
      this.bits = new long[(int) ((m + 63) / 64)];
      this.hashes = Math.max(1, (int) Math.round((double) m / capacity * Math.log(2)));
      this.capacity = capacity;
    }

    Stage(long[] bits, int hashes, long capacity, long added) {
      this.bits = bits;
      this.hashes = hashes;
      this.capacity = capacity;
      this.added = added;
    }

    long size() {
      return (long) bits.length * 64;
    }

    void add(int h1, int h2) {
      long m = size();
      for (int i = 0; i < hashes; i++) {
        long bit = Math.floorMod(h1 + (long) i * h2, m);
        bits[(int) (bit >>> 6)] |= 1L << bit;
      }
      added++;
    }

    boolean mightContain(int h1, int h2) {
      long m = size();
      for (int i = 0; i < hashes; i++) {
        long bit = Math.floorMod(h1 + (long) i * h2, m);
        if ((bits[(int) (bit >>> 6)] & (1L << bit)) == 0) {
          return false;
        }
      }
      return true;
    }
  }

  /** Adds {@code key} (its bytes). */
  public void add(byte[] key) {
    int h1 = Murmur3.hash32(key, 0, key.length, 0x3c6ef372);
    int h2 = Murmur3.hash32(key, 0, key.length, 0x7f4a7c15) | 1;
    Stage last = stages.isEmpty() ? null : stages.get(stages.size() - 1);
    if (last != null && last.mightContain(h1, h2)) {
      return; // already (or falsely) present: adding again would only fill the filter
    }
    if (last == null || last.added >= last.capacity) {
      int n = stages.size();
      last = new Stage((long) FIRST_CAPACITY << n, FIRST_FPP * Math.pow(TIGHTENING, n));
      stages.add(last);
    }
    last.add(h1, h2);
    keys++;
  }

  /** False only if {@code key} was never added. */
  public boolean mightContain(byte[] key) {
    if (stages.isEmpty()) {
      return false;
    }
    int h1 = Murmur3.hash32(key, 0, key.length, 0x3c6ef372);
    int h2 = Murmur3.hash32(key, 0, key.length, 0x7f4a7c15) | 1;
    for (Stage s : stages) {
      if (s.mightContain(h1, h2)) {
        return true;
      }
    }
    return false;
  }

  /** Keys added (not counting repeats the filter already answered yes to). */
  public long keys() {
    return keys;
  }

  /** Bytes of filter bits. */
  public long bytes() {
    long b = 0;
    for (Stage s : stages) {
      b += (long) s.bits.length * 8;
    }
    return b;
  }

  /** The filter as bytes, for hand-over. */
  public byte[] toBytes() {
    int size = 12;
    for (Stage s : stages) {
      size += 4 + 8 + 8 + 4 + s.bits.length * 8;
    }
    ByteBuffer buf = ByteBuffer.allocate(size);
    buf.putInt(stages.size()).putLong(keys);
    for (Stage s : stages) {
      buf.putInt(s.hashes).putLong(s.capacity).putLong(s.added).putInt(s.bits.length);
      for (long w : s.bits) {
        buf.putLong(w);
      }
    }
    return buf.array();
  }

  /** The filter written by {@link #toBytes}. */
  public static MembershipFilter fromBytes(byte[] bytes) {
    ByteBuffer buf = ByteBuffer.wrap(bytes);
    MembershipFilter f = new MembershipFilter();
    int n = buf.getInt();
    f.keys = buf.getLong();
    for (int i = 0; i < n; i++) {
      int hashes = buf.getInt();
      long capacity = buf.getLong();
      long added = buf.getLong();
      long[] bits = new long[buf.getInt()];
      for (int j = 0; j < bits.length; j++) {
        bits[j] = buf.getLong();
      }
      f.stages.add(new Stage(bits, hashes, capacity, added));
    }
    return f;
  }

  /** A copy, so a shipped filter is not changed by later additions. */
  public MembershipFilter copy() {
    return fromBytes(toBytes());
  }
}
