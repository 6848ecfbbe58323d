package io.koala.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * Throughput of the batch pattern of a keyed operator on {@link LmdbStateStore}: one write
 * transaction per batch, and per record a get, an increment and a put of an 8-byte counter under a
 * {@link KeyLayout#stateKey} of a uniformly random 8-byte key out of one million. Not a test and
 * not run by the build; run it by hand:
 *
 * <pre>{@code
 * mvn -o -q test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt -pl koala-persistence
 * java -cp koala-persistence/target/test-classes:koala-persistence/target/classes:$(cat koala-persistence/target/cp.txt) \
 *     io.koala.store.LmdbStoreMicrobench [seconds per run, default 10]
 * }</pre>
 */
public final class LmdbStoreMicrobench {
  private static final int KEYS = 1_000_000;
  private static final int BUCKETS = 1024;
  private static final byte[] NO_NAMESPACE = new byte[0];

  private LmdbStoreMicrobench() {}

  public static void main(String[] args) throws IOException {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 10;
    Path dir = Files.createTempDirectory("koala-microbench");
    try (LmdbStateStore store = LmdbStateStore.open(dir, StoreOptions.defaults())) {
      long start = System.nanoTime();
      load(store);
      System.out.printf(
          "loaded %,d keys in %.1f s, %,d bytes in use%n",
          KEYS, (System.nanoTime() - start) / 1e9, store.stats().bytes());
      long increments = 0;
      increments += run(store, "warm-up", 1024, false, Math.min(seconds, 3), 1);
      increments += run(store, "1024 per txn, random order", 1024, false, seconds, 2);
      increments += run(store, "4096 per txn, random order", 4096, false, seconds, 3);
      increments += run(store, "1024 per txn, sorted keys", 1024, true, seconds, 4);
      increments += run(store, "4096 per txn, sorted keys", 4096, true, seconds, 5);
      long sum = sumOfCounters(store);
      if (sum != increments) {
        throw new AssertionError("counters sum to " + sum + ", expected " + increments);
      }
      System.out.printf("check: counters sum to the %,d increments made%n", sum);
    } finally {
      deleteRecursively(dir);
    }
  }

  private static void load(StateStore store) {
    int perTxn = 65_536;
    for (int first = 0; first < KEYS; first += perTxn) {
      try (WriteTxn txn = store.beginWrite()) {
        for (int k = first; k < Math.min(KEYS, first + perTxn); k++) {
          txn.put(Table.STATE, stateKey(k), new byte[8]);
        }
        txn.commit();
      }
    }
  }

  /**
   * Runs batches of {@code batch} read-increment-writes for about {@code seconds}.
   *
   * @return the increments made
   */
  private static long run(
      StateStore store, String name, int batch, boolean sorted, double seconds, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    byte[][] keys = new byte[batch][];
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    long start = System.nanoTime();
    long pairs = 0;
    long txns = 0;
    long sortNanos = 0;
    while (System.nanoTime() < deadline) {
      for (int i = 0; i < batch; i++) {
        keys[i] = stateKey(random.nextInt(KEYS));
      }
      if (sorted) {
        long sortStart = System.nanoTime();
        Arrays.sort(keys, Arrays::compareUnsigned);
        sortNanos += System.nanoTime() - sortStart;
      }
      try (WriteTxn txn = store.beginWrite()) {
        for (byte[] key : keys) {
          long count = ByteBuffer.wrap(txn.get(Table.STATE, key)).getLong();
          txn.put(Table.STATE, key, ByteBuffer.allocate(8).putLong(count + 1).array());
        }
        txn.commit();
      }
      pairs += batch;
      txns++;
    }
    double elapsed = (System.nanoTime() - start) / 1e9;
    double storeSeconds = elapsed - sortNanos / 1e9;
    System.out.printf(
        "%-28s %,10.0f get+put pairs/s (%,.0f store ops/s), %,d txns, %.1f s;"
            + " %,.0f pairs/s without the %.1f s spent sorting%n",
        name,
        pairs / elapsed,
        2 * pairs / elapsed,
        txns,
        elapsed,
        pairs / storeSeconds,
        sortNanos / 1e9);
    return pairs;
  }

  private static byte[] stateKey(int k) {
    byte[] key = ByteBuffer.allocate(8).putLong(k).array();
    int bucket = (int) Math.floorMod(mix(k), (long) BUCKETS);
    return KeyLayout.stateKey(bucket, key, 1, NO_NAMESPACE);
  }

  /** A fixed hash spreading keys over buckets, as a partitioner would. */
  private static long mix(long x) {
    x = (x ^ (x >>> 30)) * 0xbf58476d1ce4e5b9L;
    x = (x ^ (x >>> 27)) * 0x94d049bb133111ebL;
    return x ^ (x >>> 31);
  }

  private static long sumOfCounters(StateStore store) {
    long[] sum = {0};
    try (ReadTxn txn = store.beginRead()) {
      txn.scan(
          Table.STATE,
          new byte[0],
          (k, v) -> {
            sum[0] += ByteBuffer.wrap(v).getLong();
            return true;
          });
    }
    return sum[0];
  }

  private static void deleteRecursively(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths
          .sorted(Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.delete(p);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    }
  }
}
