package io.koala.bench.serve;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.koala.keys.StateServing;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.StateMessage.Fetch;
import io.koala.protocol.StateMessage.KeyRef;
import io.koala.protocol.StateMessage.StateReply;
import io.koala.store.KeyLayout;
import io.koala.store.LmdbStateStore;
import io.koala.store.ReadTxn;
import io.koala.store.StoreOptions;
import io.koala.store.Table;
import io.koala.store.WriteTxn;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
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

/**
 * What a holder spends answering one fetch of {@value #FETCH} keys (issue 20, step 7): {@link
 * StateServing#serve} from an LMDB read transaction, then the reply serialized to bytes by the
 * serializer Pekko picks for it (Koala's Kryo serializer, as a cluster sends it); and, on the other
 * side, the owner decoding such a reply. The store holds {@value #KEYS} keys of {@code stateBytes}
 * bytes each (one state entry per key) in {@value #BUCKETS} buckets, each bucket with a generation;
 * a fetch asks for {@value #FETCH} distinct existing keys in random order, as owners send them, the
 * next of {@value #FETCHES} such fetches each time. At 512 bytes a reply fills its chunk budget
 * ({@link StateServing#CHUNK_BYTES}) about half way through the keys and lists the rest as
 * unserved; at 64 bytes it serves them all. Run by {@code ./koala bench serve}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ServeBenchmark {
  static final int FETCH = 1_000;
  static final int KEYS = 100_000;
  static final int BUCKETS = 8;
  static final int FETCHES = 64;
  static final TaskId HOLDER = new TaskId(new OperatorId("count"), 0);

  @Param({"64", "512"})
  public int stateBytes;

  private Path dir;
  private LmdbStateStore store;
  private ActorSystem<Void> system;
  private Serializer serializer;
  private Fetch[] fetches;
  private byte[][] encoded;
  private int next;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    dir = Files.createTempDirectory("koala-serve-bench");
    store = LmdbStateStore.open(dir, StoreOptions.defaults());
    byte[][] keys = new byte[KEYS][];
    int[] bucketOf = new int[KEYS];
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      keys[i] = ByteBuffer.allocate(8).putLong(i * 0x9E3779B97F4A7C15L).array();
      bucketOf[i] = 100 + i % BUCKETS;
      order.add(i);
    }
    // loaded in store key order, as a restore or a long-running task leaves its pages
    order.sort(
        Comparator.comparing(
            i -> KeyLayout.keyPrefix(bucketOf[i], keys[i]), java.util.Arrays::compareUnsigned));
    SplittableRandom random = new SplittableRandom(42);
    try (WriteTxn t = store.beginWrite()) {
      for (int i : order) {
        byte[] value = new byte[stateBytes];
        random.nextBytes(value);
        t.put(Table.STATE, KeyLayout.stateKey(bucketOf[i], keys[i], 1, new byte[0]), value);
      }
      for (int b = 0; b < BUCKETS; b++) {
        t.put(
            Table.METADATA,
            StateServing.generationKey(100 + b),
            ByteBuffer.allocate(8).putLong(b + 1).array());
      }
      t.commit();
    }
    fetches = new Fetch[FETCHES];
    for (int f = 0; f < FETCHES; f++) {
      int[] picked = random.ints(0, KEYS).distinct().limit(FETCH).toArray();
      List<KeyRef> refs = new ArrayList<>(FETCH);
      for (int i : picked) {
        refs.add(new KeyRef(bucketOf[i], keys[i]));
      }
      fetches[f] = new Fetch(f, HOLDER, refs, null);
    }
    // the frame size Koala's remote settings give a cluster, which the serializer checks against
    Config config =
        ConfigFactory.parseMap(
                Map.of(
                    "pekko.remote.artery.advanced.maximum-frame-size", ChannelSettings.FRAME_BYTES))
            .withFallback(ConfigFactory.load());
    system = ActorSystem.create(Behaviors.empty(), "serve-bench", config);
    StateReply sample;
    try (ReadTxn t = store.beginRead()) {
      sample = StateServing.serve(t, fetches[0], HOLDER);
    }
    serializer = SerializationExtension.get(Adapter.toClassic(system)).findSerializerFor(sample);
    encoded = new byte[FETCHES][];
    try (ReadTxn t = store.beginRead()) {
      for (int f = 0; f < FETCHES; f++) {
        encoded[f] = serializer.toBinary(StateServing.serve(t, fetches[f], HOLDER));
      }
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    system.terminate();
    system.getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
    store.close();
    try (var paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  /**
   * Serves the next fetch from a read transaction of its own, as the state server does, and
   * serializes the reply to the bytes the transport sends.
   */
  @Benchmark
  public byte[] serve() {
    Fetch fetch = fetches[next];
    next = (next + 1) % FETCHES;
    StateReply reply;
    try (ReadTxn txn = store.beginRead()) {
      reply = StateServing.serve(txn, fetch, HOLDER);
    }
    return serializer.toBinary(reply);
  }

  /** Decodes a serialized reply, as the owner's side does before installing it. */
  @Benchmark
  public Object decode() {
    byte[] bytes = encoded[next];
    next = (next + 1) % FETCHES;
    return serializer.fromBinary(bytes);
  }
}
