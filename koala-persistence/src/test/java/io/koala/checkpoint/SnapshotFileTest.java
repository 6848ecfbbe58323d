package io.koala.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.store.EntryViewVisitor;
import io.koala.store.EntryVisitor;
import io.koala.store.InMemoryStateStore;
import io.koala.store.LmdbStateStore;
import io.koala.store.ReadTxn;
import io.koala.store.StateStore;
import io.koala.store.StoreOptions;
import io.koala.store.Table;
import io.koala.store.WriteTxn;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class SnapshotFileTest {
  private static final HexFormat HEX = HexFormat.of();

  /** Seeds the random round trip always runs; one more, printed, rotates per run. */
  private static final long[] FIXED_SEEDS = {1L, 42L, 20240917L};

  @TempDir Path dir;

  /** The store backends; a snapshot of one must restore into either. */
  enum Backend {
    LMDB(dir -> LmdbStateStore.open(dir, StoreOptions.defaults())),
    IN_MEMORY(dir -> new InMemoryStateStore());

    private final Function<Path, StateStore> opener;

    Backend(Function<Path, StateStore> opener) {
      this.opener = opener;
    }

    StateStore open(Path dir) {
      return opener.apply(dir);
    }
  }

  // --- round trips -----------------------------------------------------------------------------

  @ParameterizedTest
  @EnumSource(Backend.class)
  void randomStateRoundTripsIntoBothBackends(Backend backend) {
    String replay = System.getProperty("koala.snapshot.seed");
    long[] seeds =
        replay != null
            ? new long[] {Long.parseLong(replay)}
            : new long[] {FIXED_SEEDS[0], FIXED_SEEDS[1], FIXED_SEEDS[2], System.nanoTime()};
    System.out.println(
        "SnapshotFileTest "
            + backend
            + ": random round trips with seeds "
            + Arrays.toString(seeds)
            + " (replay one with -Dkoala.snapshot.seed=N)");
    for (long seed : seeds) {
      try {
        roundTrip(backend, seed);
      } catch (RuntimeException | AssertionError e) {
        throw new AssertionError("round trip failed at seed " + seed, e);
      }
    }
  }

  private void roundTrip(Backend backend, long seed) {
    Random random = new Random(seed);
    Map<Table, NavigableMap<byte[], byte[]>> model = randomModel(random);
    byte[] metadata = new byte[random.nextInt(3) == 0 ? 0 : random.nextInt(5000)];
    random.nextBytes(metadata);
    Path file = dir.resolve("seed-" + seed).resolve("task.snap");
    SnapshotHandle handle;
    try (StateStore source = backend.open(dir.resolve("source-" + seed))) {
      load(source, model);
      try (ReadTxn txn = source.beginRead()) {
        handle = SnapshotFile.write(txn, "op#" + seed, seed, metadata, file);
      }
    }
    assertThat(handle.path()).isEqualTo(file);
    assertThat(handle.bytes()).isEqualTo(size(file));
    for (Table table : Table.values()) {
      assertThat(handle.entries(table)).as("%s", table).isEqualTo(model.get(table).size());
    }
    SnapshotInfo verified = SnapshotFile.verify(file);
    assertThat(verified.handle()).isEqualTo(handle);
    assertThat(verified.task()).isEqualTo("op#" + seed);
    assertThat(verified.checkpointId()).isEqualTo(seed);
    assertThat(verified.metadata()).isEqualTo(metadata);
    for (Backend target : Backend.values()) {
      try (StateStore into = target.open(dir.resolve("restored-" + seed + "-" + target))) {
        assertThat(SnapshotFile.restore(file, into)).isEqualTo(verified);
        assertThat(dump(into)).as("restored into %s", target).isEqualTo(dump(model));
      }
    }
  }

  /**
   * Values larger than the writer's buffer, and entries that end just before, at and after its
   * boundary, so that every way an entry can meet the end of the buffer is written once.
   */
  @ParameterizedTest
  @EnumSource(Backend.class)
  void entriesLargerThanOrStraddlingTheBufferRoundTrip(Backend backend) {
    Random random = new Random(11);
    Map<Table, NavigableMap<byte[], byte[]>> model = emptyModel();
    int[] sizes = {
      SnapshotFile.BUFFER_BYTES * 2 + 17, SnapshotFile.BUFFER_BYTES, SnapshotFile.BUFFER_BYTES - 1
    };
    for (int i = 0; i < sizes.length; i++) {
      byte[] value = new byte[sizes[i]];
      random.nextBytes(value);
      model.get(Table.STATE).put(new byte[] {(byte) i}, value);
    }
    // small entries after a large one fill the buffer up to and across its end
    for (int i = 0; i < 40_000; i++) {
      byte[] value = new byte[random.nextInt(60)];
      random.nextBytes(value);
      model.get(Table.STATE).put(new byte[] {9, (byte) (i >>> 8), (byte) i, 1}, value);
    }
    Path file = dir.resolve("large.snap");
    try (StateStore source = backend.open(dir.resolve("source"))) {
      load(source, model);
      try (ReadTxn txn = source.beginRead()) {
        SnapshotFile.write(txn, "t", 1, new byte[0], file);
      }
    }
    try (StateStore into = backend.open(dir.resolve("restored"))) {
      SnapshotFile.restore(file, into);
      assertThat(dump(into)).isEqualTo(dump(model));
    }
  }

  @ParameterizedTest
  @EnumSource(Backend.class)
  void anEmptyStoreRoundTrips(Backend backend) {
    Path file = dir.resolve("empty.snap");
    try (StateStore source = backend.open(dir.resolve("source"))) {
      try (ReadTxn txn = source.beginRead()) {
        SnapshotHandle handle = SnapshotFile.write(txn, "t", 0, new byte[0], file);
        assertThat(handle.totalEntries()).isZero();
      }
    }
    try (StateStore into = backend.open(dir.resolve("restored"))) {
      SnapshotInfo info = SnapshotFile.restore(file, into);
      assertThat(info.metadata()).isEmpty();
      assertThat(dump(into)).isEqualTo(dump(emptyModel()));
    }
  }

  @Test
  void restoreRefusesAStoreThatIsNotEmpty() {
    Path file = snapshotOf(smallModel(), "t");
    try (StateStore into = new InMemoryStateStore()) {
      try (WriteTxn txn = into.beginWrite()) {
        txn.put(Table.METADATA, new byte[] {1}, new byte[] {1});
        txn.commit();
      }
      assertThatThrownBy(() -> SnapshotFile.restore(file, into))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("not empty")
          .hasMessageContaining("METADATA");
    }
  }

  // --- the barrier instant (hazard C2) ---------------------------------------------------------

  /**
   * The task opens the transaction at the barrier, a copier thread writes from it, and the task
   * commits post-barrier writes while the copier is in the middle of the file: the snapshot holds
   * the pre-barrier state exactly.
   */
  @ParameterizedTest
  @EnumSource(Backend.class)
  void theSnapshotIsTheTransactionsInstantWhileTheTaskKeepsWriting(Backend backend)
      throws Exception {
    Map<Table, NavigableMap<byte[], byte[]>> before = randomModel(new Random(7));
    Path file = dir.resolve("c2.snap");
    try (StateStore store = backend.open(dir.resolve("store"))) {
      load(store, before);
      ReadTxn barrier = store.beginRead();
      GatedTxn gated = new GatedTxn(barrier);
      CompletableFuture<SnapshotHandle> copier =
          CompletableFuture.supplyAsync(
              () -> SnapshotFile.write(gated, "t", 1, new byte[] {9}, file));
      assertThat(gated.reachedGate.await(30, TimeUnit.SECONDS)).isTrue();
      // post-barrier writes to every table: overwrite, delete, add
      try (WriteTxn txn = store.beginWrite()) {
        for (Table table : Table.values()) {
          for (byte[] key : before.get(table).keySet()) {
            if (key[0] % 2 == 0) {
              txn.delete(table, key);
            } else {
              txn.put(table, key, new byte[] {42});
            }
          }
          txn.put(table, new byte[] {(byte) 0xFF, (byte) 0xFF, 1}, new byte[] {1});
          txn.put(table, new byte[] {0}, new byte[] {2});
        }
        txn.commit();
      }
      gated.open.countDown();
      copier.get(60, TimeUnit.SECONDS);
      // the writer closed the transaction (closing the store would fail otherwise)
      assertThat(gated.closed).isTrue();
    }
    try (StateStore into = backend.open(dir.resolve("restored"))) {
      SnapshotFile.restore(file, into);
      assertThat(dump(into)).isEqualTo(dump(before));
    }
  }

  // --- the temporary file ----------------------------------------------------------------------

  @Test
  void theTemporaryFileIsNeverASnapshot() throws Exception {
    CheckpointStorage storage = new CheckpointStorage(dir.resolve("checkpoints"));
    Path target = storage.snapshotPath("job", 3, "op#1");
    Path tmp = SnapshotFile.tmpPath(target);
    try (StateStore store = new InMemoryStateStore()) {
      load(store, smallModel());
      try (ReadTxn txn = store.beginRead()) {
        GatedTxn gated = new GatedTxn(txn);
        CompletableFuture<SnapshotHandle> copier =
            CompletableFuture.supplyAsync(
                () -> SnapshotFile.write(gated, "op#1", 3, new byte[0], target));
        assertThat(gated.reachedGate.await(30, TimeUnit.SECONDS)).isTrue();
        // mid-write: only the temporary file exists, and it is not listed
        assertThat(tmp).exists();
        assertThat(target).doesNotExist();
        assertThat(storage.tasks("job", 3)).isEmpty();
        gated.open.countDown();
        copier.get(60, TimeUnit.SECONDS);
      }
    }
    assertThat(target).exists();
    assertThat(tmp).doesNotExist();
    assertThat(storage.tasks("job", 3)).containsExactly("op#1");
    SnapshotFile.verify(target);
  }

  @Test
  void aFailedWriteLeavesNoFileAndClosesTheTransaction() {
    Path target = dir.resolve("chk-1").resolve("t.snap");
    try (StateStore store = new InMemoryStateStore()) {
      load(store, smallModel());
      GatedTxn failing = new GatedTxn(store.beginRead(), new IllegalStateException("disk on fire"));
      assertThatThrownBy(() -> SnapshotFile.write(failing, "t", 1, new byte[0], target))
          .hasMessage("disk on fire");
      assertThat(failing.closed).isTrue();
    }
    assertThat(target).doesNotExist();
    assertThat(SnapshotFile.tmpPath(target)).doesNotExist();
  }

  @Test
  void aWriteRefusedUpFrontClosesTheTransactionToo() throws IOException {
    Path target = dir.resolve("t.snap");
    Files.write(target, new byte[] {1});
    try (StateStore store = new InMemoryStateStore()) {
      GatedTxn txn = new GatedTxn(store.beginRead());
      assertThatThrownBy(() -> SnapshotFile.write(txn, "t", 1, new byte[0], target))
          .isInstanceOf(CheckpointException.class)
          .hasMessageContaining("already exists");
      assertThat(txn.closed).isTrue();
    }
  }

  @Test
  void aStaleTemporaryFileIsReplacedAndAnExistingSnapshotIsNot() throws IOException {
    Path target = dir.resolve("t.snap");
    Files.write(SnapshotFile.tmpPath(target), new byte[] {1, 2, 3});
    try (StateStore store = new InMemoryStateStore()) {
      load(store, smallModel());
      try (ReadTxn txn = store.beginRead()) {
        SnapshotHandle first = SnapshotFile.write(txn, "t", 1, new byte[0], target);
        assertThat(SnapshotFile.tmpPath(target)).doesNotExist();
        assertThatThrownBy(() -> SnapshotFile.write(txn, "t", 2, new byte[0], target))
            .isInstanceOf(CheckpointException.class)
            .hasMessageContaining(target.toString())
            .hasMessageContaining("already exists");
        assertThat(SnapshotFile.verify(target).handle()).isEqualTo(first);
      }
    }
  }

  // --- corruption ------------------------------------------------------------------------------

  @Test
  void everyTruncationIsDetected() throws IOException {
    Path good = snapshotOf(smallModel(), "t");
    byte[] bytes = Files.readAllBytes(good);
    Path cut = dir.resolve("cut.snap");
    for (int length = 0; length < bytes.length; length++) {
      Files.write(cut, Arrays.copyOf(bytes, length));
      int at = length;
      assertThatThrownBy(() -> SnapshotFile.verify(cut))
          .as("cut at %d of %d", at, bytes.length)
          .isInstanceOf(CorruptCheckpointException.class)
          .hasMessageContaining(cut.toString())
          .hasMessageContaining("truncated");
    }
  }

  @Test
  void everyFlippedByteIsDetected() throws IOException {
    long seed = System.nanoTime();
    System.out.println("SnapshotFileTest.everyFlippedByteIsDetected: seed " + seed);
    Random random = new Random(seed);
    Path good = snapshotOf(smallModel(), "t");
    byte[] bytes = Files.readAllBytes(good);
    Path flipped = dir.resolve("flipped.snap");
    for (int i = 0; i < bytes.length; i++) {
      byte[] copy = bytes.clone();
      copy[i] ^= (byte) (1 + random.nextInt(255));
      Files.write(flipped, copy);
      int at = i;
      assertThatThrownBy(() -> SnapshotFile.verify(flipped))
          .as("byte %d of %d flipped (seed %d)", at, bytes.length, seed)
          .isInstanceOf(CorruptCheckpointException.class)
          .hasMessageContaining(flipped.toString());
    }
  }

  @Test
  void aFlippedValueByteIsACrcMismatchAndTheStoreIsNotTouched() throws IOException {
    Path file = snapshotOf(smallModel(), "t");
    byte[] bytes = Files.readAllBytes(file);
    bytes[indexOf(bytes, "timer".getBytes(StandardCharsets.UTF_8)) + 2] ^= 0x10; // in a value
    Files.write(file, bytes);
    try (StateStore into = new InMemoryStateStore()) {
      assertThatThrownBy(() -> SnapshotFile.restore(file, into))
          .isInstanceOf(CorruptCheckpointException.class)
          .hasMessageContaining(file.toString())
          .hasMessageContaining("CRC32C mismatch")
          .satisfies(e -> assertThat(((CorruptCheckpointException) e).file()).isEqualTo(file));
      // verified before loading: not a single entry reached the store
      assertThat(into.stats().entries().values()).containsOnly(0L);
    }
  }

  @Test
  void wrongMagicIsDetected() throws IOException {
    Path file = snapshotOf(smallModel(), "t");
    overwrite(file, 0, "NOTASNAP".getBytes(StandardCharsets.US_ASCII));
    assertThatThrownBy(() -> SnapshotFile.verify(file))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("wrong magic bytes 4e4f5441534e4150")
        .hasMessageContaining("not a Koala snapshot file");
  }

  @Test
  void anUnknownVersionIsRejectedNamingBothVersions() throws IOException {
    Path file = snapshotOf(smallModel(), "t");
    overwrite(file, 8, ByteBuffer.allocate(4).putInt(7).array());
    try (StateStore into = new InMemoryStateStore()) {
      assertThatThrownBy(() -> SnapshotFile.restore(file, into))
          .isInstanceOf(CorruptCheckpointException.class)
          .hasMessageContaining(file.toString())
          .hasMessageContaining("unsupported format version 7")
          .hasMessageContaining("this reader reads version " + SnapshotFile.FORMAT_VERSION);
    }
  }

  @Test
  void trailingGarbageIsDetected() throws IOException {
    Path file = snapshotOf(smallModel(), "t");
    long size = size(file);
    Files.write(file, new byte[] {0, 0, 0}, StandardOpenOption.APPEND);
    assertThatThrownBy(() -> SnapshotFile.verify(file))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining(
            "3 bytes of trailing garbage after the trailer, which ends at byte " + size);
  }

  @Test
  void aMissingFileIsNotCorruptButNamed() {
    Path missing = dir.resolve("missing.snap");
    assertThatThrownBy(() -> SnapshotFile.verify(missing))
        .isInstanceOf(CheckpointException.class)
        .isNotInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining(missing.toString())
        .hasMessageContaining("does not exist");
  }

  // --- helpers ---------------------------------------------------------------------------------

  /**
   * A read transaction that, on the first entry its scans or its {@code forEach} visit, either
   * stops at a gate until the test opens it or throws the given failure.
   */
  private static final class GatedTxn implements ReadTxn {
    final CountDownLatch reachedGate = new CountDownLatch(1);
    final CountDownLatch open = new CountDownLatch(1);
    volatile boolean closed;
    private final ReadTxn inner;
    private final RuntimeException failure;

    GatedTxn(ReadTxn inner) {
      this(inner, null);
    }

    GatedTxn(ReadTxn inner, RuntimeException failure) {
      this.inner = inner;
      this.failure = failure;
    }

    @Override
    public byte[] get(Table table, byte[] key) {
      return inner.get(table, key);
    }

    @Override
    public int scan(Table table, byte[] prefix, byte[] after, int limit, EntryVisitor visitor) {
      return inner.scan(
          table,
          prefix,
          after,
          limit,
          (k, v) -> {
            gate();
            return visitor.visit(k, v);
          });
    }

    @Override
    public long forEach(Table table, EntryViewVisitor visitor) {
      return inner.forEach(
          table,
          (k, v) -> {
            gate();
            visitor.visit(k, v);
          });
    }

    private void gate() {
      if (failure != null) {
        throw failure;
      }
      if (reachedGate.getCount() > 0) {
        reachedGate.countDown();
        try {
          if (!open.await(60, TimeUnit.SECONDS)) {
            throw new AssertionError("the test never opened the gate");
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new AssertionError(e);
        }
      }
    }

    @Override
    public void close() {
      closed = true;
      inner.close();
    }
  }

  /**
   * Random tables: some empty, keys of 1 to 64 bytes sharing prefixes, values mostly small, some
   * empty and a few of about 200 KB.
   */
  private static Map<Table, NavigableMap<byte[], byte[]>> randomModel(Random random) {
    Map<Table, NavigableMap<byte[], byte[]>> model = emptyModel();
    for (Table table : Table.values()) {
      if (random.nextInt(4) == 0) {
        continue;
      }
      int entries = random.nextInt(1500);
      for (int i = 0; i < entries; i++) {
        byte[] key = new byte[1 + random.nextInt(random.nextBoolean() ? 4 : 64)];
        random.nextBytes(key);
        int dice = random.nextInt(200);
        byte[] value =
            new byte
                [dice == 0
                    ? 190_000 + random.nextInt(20_000)
                    : dice < 20 ? 0 : random.nextInt(300)];
        random.nextBytes(value);
        model.get(table).put(key, value);
      }
    }
    return model;
  }

  private static Map<Table, NavigableMap<byte[], byte[]>> smallModel() {
    Map<Table, NavigableMap<byte[], byte[]>> model = emptyModel();
    model.get(Table.STATE).put(new byte[] {1, 2}, new byte[] {3, 4, 5});
    model.get(Table.STATE).put(new byte[] {1, 3}, new byte[0]);
    model.get(Table.TIMERS).put(new byte[] {9}, "timer".getBytes(StandardCharsets.UTF_8));
    model.get(Table.METADATA).put(new byte[] {0}, new byte[40]);
    return model;
  }

  private static Map<Table, NavigableMap<byte[], byte[]>> emptyModel() {
    Map<Table, NavigableMap<byte[], byte[]>> model = new EnumMap<>(Table.class);
    for (Table table : Table.values()) {
      model.put(table, new TreeMap<>(Arrays::compareUnsigned));
    }
    return model;
  }

  /** Loads a model in a few transactions, in random order within each. */
  private static void load(StateStore store, Map<Table, NavigableMap<byte[], byte[]>> model) {
    for (Table table : Table.values()) {
      List<Map.Entry<byte[], byte[]>> entries = new ArrayList<>(model.get(table).entrySet());
      java.util.Collections.shuffle(entries, new Random(table.ordinal()));
      try (WriteTxn txn = store.beginWrite()) {
        for (Map.Entry<byte[], byte[]> e : entries) {
          txn.put(table, e.getKey().clone(), e.getValue().clone());
        }
        txn.commit();
      }
    }
  }

  private Path snapshotOf(Map<Table, NavigableMap<byte[], byte[]>> model, String task) {
    Path file = dir.resolve(task + "-" + System.nanoTime() + ".snap");
    try (StateStore store = new InMemoryStateStore()) {
      load(store, model);
      try (ReadTxn txn = store.beginRead()) {
        SnapshotFile.write(txn, task, 5, "meta".getBytes(StandardCharsets.UTF_8), file);
      }
    }
    return file;
  }

  /** Every entry, table by table, as {@code TABLE key=value} in hex. */
  private static List<String> dump(StateStore store) {
    List<String> out = new ArrayList<>();
    try (ReadTxn txn = store.beginRead()) {
      for (Table table : Table.values()) {
        txn.scan(
            table,
            new byte[0],
            (k, v) -> {
              out.add(table + " " + HEX.formatHex(k) + "=" + HEX.formatHex(v));
              return true;
            });
      }
    }
    return out;
  }

  private static List<String> dump(Map<Table, NavigableMap<byte[], byte[]>> model) {
    List<String> out = new ArrayList<>();
    for (Table table : Table.values()) {
      model
          .get(table)
          .forEach((k, v) -> out.add(table + " " + HEX.formatHex(k) + "=" + HEX.formatHex(v)));
    }
    return out;
  }

  private static int indexOf(byte[] bytes, byte[] part) {
    for (int i = 0; i + part.length <= bytes.length; i++) {
      if (Arrays.equals(bytes, i, i + part.length, part, 0, part.length)) {
        return i;
      }
    }
    throw new AssertionError("not found: " + HEX.formatHex(part));
  }

  private static void overwrite(Path file, long at, byte[] bytes) throws IOException {
    try (var channel = java.nio.channels.FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.write(ByteBuffer.wrap(bytes), at);
    }
  }

  private static long size(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
