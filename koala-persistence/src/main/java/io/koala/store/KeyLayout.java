package io.koala.store;

/**
 * Byte layout of store keys. State keys are {@code bucket(2) | keyLen(4) | key | stateId(4) |
 * namespaceLen(2) | namespace}, all integers big-endian, so that one bucket is one contiguous range
 * and a key's whole state (every state id and namespace) is one contiguous range: fetching,
 * installing, draining or deleting a key is one prefix operation. Pure functions; no allocation
 * beyond the returned array.
 */
public final class KeyLayout {
  /** Bytes in a bucket prefix. */
  public static final int BUCKET_BYTES = 2;

  /** Largest bucket number a key can carry. */
  public static final int MAX_BUCKETS = 1 << 15;

  /** Bytes of a timer key around the record's key and namespace: the largest layout overhead. */
  public static final int MAX_LAYOUT_BYTES = 2 + 1 + 8 + 4 + 2;

  /** Bytes reserved for a state or timer namespace (a window's is 16) within a store key. */
  public static final int NAMESPACE_RESERVE = 64;

  /**
   * Largest serialized record key: a store key holds 511 bytes (LMDB's limit, which {@link
   * InMemoryStateStore} keeps too), less the layout and a namespace's reserve. A record whose key
   * is longer cannot be given state; it is refused where its key is first taken.
   */
  public static final int MAX_RECORD_KEY_BYTES =
      InMemoryStateStore.MAX_KEY_SIZE - MAX_LAYOUT_BYTES - NAMESPACE_RESERVE;

  private KeyLayout() {}

  /** The prefix of every key in {@code bucket}. */
  public static byte[] bucketPrefix(int bucket) {
    checkBucket(bucket);
    return new byte[] {(byte) (bucket >>> 8), (byte) bucket};
  }

  /** The prefix of every state entry of {@code key} in {@code bucket}. */
  public static byte[] keyPrefix(int bucket, byte[] key) {
    checkBucket(bucket);
    byte[] out = new byte[BUCKET_BYTES + 4 + key.length];
    writeBucketAndKey(out, bucket, key);
    return out;
  }

  /** The key of one state entry. */
  public static byte[] stateKey(int bucket, byte[] key, int stateId, byte[] namespace) {
    checkBucket(bucket);
    if (namespace.length > 0xFFFF) {
      throw new StoreException("namespace of " + namespace.length + " bytes exceeds 65535 bytes");
    }
    byte[] out = new byte[BUCKET_BYTES + 4 + key.length + 4 + 2 + namespace.length];
    int p = writeBucketAndKey(out, bucket, key);
    p = writeInt(out, p, stateId);
    out[p++] = (byte) (namespace.length >>> 8);
    out[p++] = (byte) namespace.length;
    System.arraycopy(namespace, 0, out, p, namespace.length);
    return out;
  }

  /** The prefix of every entry of one state id of a key, across all namespaces. */
  public static byte[] statePrefix(int bucket, byte[] key, int stateId) {
    checkBucket(bucket);
    byte[] out = new byte[BUCKET_BYTES + 4 + key.length + 4];
    int p = writeBucketAndKey(out, bucket, key);
    writeInt(out, p, stateId);
    return out;
  }

  /**
   * The key of a timer: {@code bucket(2) | domain(1) | timestamp(8) | keyLen(4) | key | nsLen(2) |
   * namespace}, the timestamp's sign bit flipped so unsigned byte order is timestamp order. All
   * timers of a bucket are one range, and those of one domain in a bucket are in firing order.
   */
  public static byte[] timerKey(
      int bucket, byte domain, long timestamp, byte[] key, byte[] namespace) {
    checkBucket(bucket);
    if (namespace.length > 0xFFFF) {
      throw new StoreException("namespace of " + namespace.length + " bytes exceeds 65535 bytes");
    }
    byte[] out = new byte[TIMER_HEADER + 4 + key.length + 2 + namespace.length];
    out[0] = (byte) (bucket >>> 8);
    out[1] = (byte) bucket;
    out[2] = domain;
    long t = timestamp ^ Long.MIN_VALUE;
    for (int i = 0; i < 8; i++) {
      out[3 + i] = (byte) (t >>> (56 - 8 * i));
    }
    int p = writeInt(out, TIMER_HEADER, key.length);
    System.arraycopy(key, 0, out, p, key.length);
    p += key.length;
    out[p++] = (byte) (namespace.length >>> 8);
    out[p++] = (byte) namespace.length;
    System.arraycopy(namespace, 0, out, p, namespace.length);
    return out;
  }

  /** The prefix of every timer of one domain in {@code bucket}. */
  public static byte[] timerPrefix(int bucket, byte domain) {
    checkBucket(bucket);
    return new byte[] {(byte) (bucket >>> 8), (byte) bucket, domain};
  }

  /** The timestamp of a timer key. */
  public static long timerTimestamp(byte[] timerKey) {
    long t = 0;
    for (int i = 0; i < 8; i++) {
      t = (t << 8) | (timerKey[3 + i] & 0xFF);
    }
    return t ^ Long.MIN_VALUE;
  }

  /** The domain byte of a timer key. */
  public static byte timerDomain(byte[] timerKey) {
    return timerKey[BUCKET_BYTES];
  }

  /** The user key bytes of a timer key. */
  public static byte[] timerUserKey(byte[] timerKey) {
    int len = readInt(timerKey, TIMER_HEADER);
    byte[] key = new byte[len];
    System.arraycopy(timerKey, TIMER_HEADER + 4, key, 0, len);
    return key;
  }

  /** The namespace of a timer key. */
  public static byte[] timerNamespace(byte[] timerKey) {
    int p = TIMER_HEADER + 4 + readInt(timerKey, TIMER_HEADER);
    int len = ((timerKey[p] & 0xFF) << 8) | (timerKey[p + 1] & 0xFF);
    byte[] ns = new byte[len];
    System.arraycopy(timerKey, p + 2, ns, 0, len);
    return ns;
  }

  private static final int TIMER_HEADER = BUCKET_BYTES + 1 + 8;

  /** The bucket a key of this layout belongs to. */
  public static int bucketOf(byte[] storeKey) {
    return ((storeKey[0] & 0xFF) << 8) | (storeKey[1] & 0xFF);
  }

  /** The user key bytes inside a state key or key prefix. */
  public static byte[] userKeyOf(byte[] storeKey) {
    int len = readInt(storeKey, BUCKET_BYTES);
    byte[] key = new byte[len];
    System.arraycopy(storeKey, BUCKET_BYTES + 4, key, 0, len);
    return key;
  }

  private static int writeBucketAndKey(byte[] out, int bucket, byte[] key) {
    out[0] = (byte) (bucket >>> 8);
    out[1] = (byte) bucket;
    int p = writeInt(out, BUCKET_BYTES, key.length);
    System.arraycopy(key, 0, out, p, key.length);
    return p + key.length;
  }

  private static int writeInt(byte[] out, int p, int v) {
    out[p] = (byte) (v >>> 24);
    out[p + 1] = (byte) (v >>> 16);
    out[p + 2] = (byte) (v >>> 8);
    out[p + 3] = (byte) v;
    return p + 4;
  }

  private static int readInt(byte[] in, int p) {
    return ((in[p] & 0xFF) << 24)
        | ((in[p + 1] & 0xFF) << 16)
        | ((in[p + 2] & 0xFF) << 8)
        | (in[p + 3] & 0xFF);
  }

  private static void checkBucket(int bucket) {
    if (bucket < 0 || bucket >= MAX_BUCKETS) {
      throw new IllegalArgumentException("bucket " + bucket + " outside [0, " + MAX_BUCKETS + ")");
    }
  }
}
