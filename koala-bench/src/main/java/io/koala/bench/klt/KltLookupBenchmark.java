package io.koala.bench.klt;

import io.koala.keys.KeyLocations;
import io.koala.keys.MembershipFilter;
import io.koala.protocol.BucketHandover;
import io.koala.store.KeyLayout;
import io.koala.store.LmdbStateStore;
import io.koala.store.StoreOptions;
import io.koala.store.Table;
import io.koala.store.WriteTxn;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What the key lookup table costs a batch (DESIGN §5.3 targets): resolving the keys of a
 * 1,000-record batch in buckets that never moved, in moved buckets whose keys were touched since
 * (an exact entry in LMDB says LOCAL), and in moved buckets whose keys were not (no entry; the
 * membership filter sends them to the default holder); and, to compare, the least state work such a
 * batch does (read and rewrite 512 bytes per key in LMDB). Task 1 owns 64 buckets from the start
 * and took 64 over from task 0; 100,000 keys per kind, each batch the next 1,000. Run by {@code
 * ./koala bench klt}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class KltLookupBenchmark {
  static final int BATCH = 1_000;
  static final int KEYS = 100_000;
  static final int HALF = 64;

  @Param({"never-moved", "moved-touched", "moved-untouched"})
  public String buckets;

  private Path dir;
  private LmdbStateStore store;
  private KeyLocations klt;
  private byte[][] keys;
  private int[] bucketOf;
  private int next;
  private WriteTxn txn;
  private final byte[] value = new byte[512];

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    dir = Files.createTempDirectory("koala-klt-bench");
    store = LmdbStateStore.open(dir, StoreOptions.defaults());
    int[] owned = new int[HALF];
    for (int b = 0; b < HALF; b++) {
      owned[b] = b;
    }
    klt = new KeyLocations(1, owned);
    boolean moved = !buckets.equals("never-moved");
    keys = new byte[KEYS][];
    bucketOf = new int[KEYS];
    MembershipFilter[] atHolder = new MembershipFilter[HALF];
    for (int b = 0; b < HALF; b++) {
      atHolder[b] = MembershipFilter.forKeys(KEYS / HALF);
    }
    for (int i = 0; i < KEYS; i++) {
      keys[i] = ByteBuffer.allocate(8).putLong(i * 0x9E3779B97F4A7C15L).array();
      bucketOf[i] = (moved ? HALF : 0) + i % HALF;
      atHolder[i % HALF].add(keys[i]);
    }
    try (WriteTxn t = store.beginWrite()) {
      klt.init(t);
      for (int b = 0; b < HALF; b++) {
        klt.takeOver(
            t, new BucketHandover(HALF + b, 0, atHolder[b].toBytes(), null, false, List.of()));
      }
      for (int i = 0; i < KEYS; i++) {
        t.put(Table.STATE, KeyLayout.stateKey(bucketOf[i], keys[i], 1, new byte[0]), value);
        if (buckets.equals("moved-touched")) {
          klt.installed(t, bucketOf[i], keys[i], 0); // fetched: an exact entry says LOCAL
        }
      }
      t.commit();
    }
  }

  @Setup(Level.Invocation)
  public void beginBatch() {
    txn = store.beginWrite();
  }

  @TearDown(Level.Invocation)
  public void endBatch() {
    txn.close();
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    store.close();
    try (var paths = Files.walk(dir)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  /** Resolves the keys of one 1,000-record batch, as an owner does before touching their state. */
  @Benchmark
  public void resolveBatch(Blackhole bh) {
    int start = next;
    next = (next + BATCH) % KEYS;
    for (int i = start; i < start + BATCH; i++) {
      bh.consume(klt.resolve(txn, bucketOf[i], keys[i]));
    }
  }

  /** The least state work of the same batch: read each key's state and write 512 bytes back. */
  @Benchmark
  public void stateUpdateBatch(Blackhole bh) {
    int start = next;
    next = (next + BATCH) % KEYS;
    for (int i = start; i < start + BATCH; i++) {
      byte[] k = KeyLayout.stateKey(bucketOf[i], keys[i], 1, new byte[0]);
      bh.consume(txn.get(Table.STATE, k));
      txn.put(Table.STATE, k, value);
    }
  }
}
