package io.koala.routing;

/**
 * MurmurHash3 x86 32-bit over a byte array (Austin Appleby's public-domain algorithm). Used to map
 * a key's bytes to its bucket; the result must never change, since buckets name state on disk.
 */
public final class Murmur3 {
  private static final int C1 = 0xcc9e2d51;
  private static final int C2 = 0x1b873593;

  private Murmur3() {}

  /** The 32-bit hash of {@code data} with seed 0. */
  public static int hash32(byte[] data) {
    return hash32(data, 0, data.length, 0);
  }

  /** The 32-bit hash of {@code data[offset, offset+length)}. */
  public static int hash32(byte[] data, int offset, int length, int seed) {
    int h = seed;
    int end = offset + (length & ~3);
    for (int i = offset; i < end; i += 4) {
      int k =
          (data[i] & 0xff)
              | ((data[i + 1] & 0xff) << 8)
              | ((data[i + 2] & 0xff) << 16)
              | ((data[i + 3] & 0xff) << 24);
      h = mixH(h, mixK(k));
    }
    int tail = length & 3;
    if (tail > 0) {
      int k = 0;
      if (tail == 3) {
        k ^= (data[end + 2] & 0xff) << 16;
      }
      if (tail >= 2) {
        k ^= (data[end + 1] & 0xff) << 8;
      }
      k ^= data[end] & 0xff;
      h ^= mixK(k);
    }
    h ^= length;
    return fmix(h);
  }

  private static int mixK(int k) {
    k *= C1;
    k = Integer.rotateLeft(k, 15);
    return k * C2;
  }

  private static int mixH(int h, int k) {
    h ^= k;
    h = Integer.rotateLeft(h, 13);
    return h * 5 + 0xe6546b64;
  }

  private static int fmix(int h) {
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    h ^= h >>> 16;
    return h;
  }
}
