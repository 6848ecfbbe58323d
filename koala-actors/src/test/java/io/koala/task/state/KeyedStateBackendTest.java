package io.koala.task.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.routing.Buckets;
import io.koala.serialization.KeyEncoder;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.SerializationException;
import io.koala.serialization.TypeRegistry;
import io.koala.state.Codec;
import io.koala.state.ListState;
import io.koala.state.MapState;
import io.koala.state.ValueState;
import io.koala.store.InMemoryStateStore;
import io.koala.store.KeyLayout;
import io.koala.store.Table;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Keyed state handles on an in-memory store: per-key semantics, isolation and transactions. */
class KeyedStateBackendTest {
  private static final int BUCKETS = 128;

  record Position(String symbol, long quantity) {}

  private final InMemoryStateStore store = new InMemoryStateStore();
  private final KryoSerde serde = serde();
  private final KeyEncoder keys = new KeyEncoder(serde);
  private final KeyedStateBackend backend = new KeyedStateBackend("op", store, serde);

  private static KryoSerde serde() {
    TypeRegistry registry = TypeRegistry.withDefaults();
    registry.register(Position.class);
    return new KryoSerde(registry);
  }

  @AfterEach
  void closeStore() {
    backend.abort();
    store.close();
  }

  /** Sets {@code key} as the current key, the way the task engine does. */
  private void key(Object key) {
    byte[] bytes = keys.encode(key);
    backend.setCurrentKey(key, bytes, Buckets.bucketOf(bytes, BUCKETS));
  }

  /** Runs {@code body} for {@code key} in its own committed batch. */
  private void batch(Object key, Runnable body) {
    backend.begin();
    key(key);
    body.run();
    backend.commit();
  }

  private long stateEntries() {
    return store.stats().entries(Table.STATE);
  }

  @Test
  void valueStateIsPerKey() {
    ValueState<Long> count = backend.valueState("count", Long.class);
    batch("a", () -> count.update(1L));
    batch("b", () -> count.update(20L));
    batch(
        "a",
        () -> {
          assertThat(count.value()).isEqualTo(1L);
          count.update(count.value() + 1);
          assertThat(count.value()).as("reads see the batch's own writes").isEqualTo(2L);
        });
    batch("b", () -> assertThat(count.value()).isEqualTo(20L));
    batch("c", () -> assertThat(count.value()).isNull());
    assertThat(stateEntries()).isEqualTo(2);
  }

  @Test
  void valueStateClearAndNullUpdateRemoveTheValue() {
    ValueState<String> v = backend.valueState("v", String.class);
    batch("a", () -> v.update("x"));
    batch("b", () -> v.update("y"));
    batch("a", () -> v.update(null));
    batch("a", () -> assertThat(v.value()).isNull());
    batch("b", v::clear);
    batch("b", () -> assertThat(v.value()).isNull());
    assertThat(stateEntries()).isZero();
  }

  @Test
  void valueStateOfARegisteredRecordAndWithACustomCodec() {
    ValueState<Position> pos = backend.valueState("pos", Position.class);
    Codec<Integer> plusOne =
        new Codec<>() {
          @Override
          public byte[] encode(Integer value) {
            return new byte[] {(byte) (value + 1)};
          }

          @Override
          public Integer decode(byte[] bytes) {
            return bytes[0] - 1;
          }
        };
    ValueState<Integer> custom = backend.valueState("custom", plusOne);
    batch(
        7L,
        () -> {
          pos.update(new Position("KOA", 3));
          custom.update(41);
        });
    batch(
        7L,
        () -> {
          assertThat(pos.value()).isEqualTo(new Position("KOA", 3));
          assertThat(custom.value()).isEqualTo(41);
        });
  }

  @Test
  void listStateAddsUpdatesAndClearsPerKey() {
    ListState<String> list = backend.listState("list", String.class);
    batch(
        "a",
        () -> {
          assertThat(list.get()).isEmpty();
          list.add("1");
          list.add("2");
        });
    batch("b", () -> list.add("x"));
    batch(
        "a",
        () -> {
          List<String> copy = list.get();
          assertThat(copy).containsExactly("1", "2");
          copy.add("not stored");
          assertThat(list.get()).as("get() returns a copy").containsExactly("1", "2");
          list.update(List.of("3"));
        });
    batch("a", () -> assertThat(list.get()).containsExactly("3"));
    batch("b", () -> assertThat(list.get()).containsExactly("x"));
    batch("a", () -> list.update(List.of()));
    batch("a", () -> assertThat(list.get()).isEmpty());
    batch("b", list::clear);
    batch("b", () -> assertThat(list.get()).isEmpty());
    assertThat(stateEntries()).isZero();
  }

  @Test
  void listStateRejectsNullElements() {
    ListState<Long> list = backend.listState("list", Long.class);
    backend.begin();
    key("a");
    assertThatThrownBy(() -> list.add(null)).isInstanceOf(NullPointerException.class);
    List<Long> withNull = new ArrayList<>();
    withNull.add(null);
    assertThatThrownBy(() -> list.update(withNull)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void mapStateEntriesAreStoredPerKey() {
    MapState<String, Long> map = backend.mapState("map", String.class, Long.class);
    batch(
        "a",
        () -> {
          assertThat(map.isEmpty()).isTrue();
          map.put("x", 1L);
          map.put("y", 2L);
          map.put("x", 3L);
          assertThat(map.get("x")).isEqualTo(3L);
          assertThat(map.contains("y")).isTrue();
          assertThat(map.contains("z")).isFalse();
          assertThat(map.get("z")).isNull();
          assertThat(map.isEmpty()).isFalse();
        });
    batch(
        "b",
        () -> {
          assertThat(map.isEmpty()).isTrue();
          assertThat(map.entries()).isEmpty();
          map.put("x", 100L);
        });
    batch(
        "a",
        () -> {
          assertThat(map.entries()).containsExactly(Map.entry("x", 3L), Map.entry("y", 2L));
          map.remove("x");
          assertThat(map.contains("x")).isFalse();
          assertThat(map.entries()).containsExactly(Map.entry("y", 2L));
        });
    batch("b", () -> assertThat(map.entries()).containsExactly(Map.entry("x", 100L)));
    batch("a", map::clear);
    batch(
        "a",
        () -> {
          assertThat(map.isEmpty()).isTrue();
          assertThat(map.entries()).isEmpty();
        });
    batch("b", () -> assertThat(map.get("x")).isEqualTo(100L));
    assertThat(stateEntries()).isEqualTo(1);
  }

  @Test
  void mapStateEntriesComeInMapKeyByteOrder() {
    MapState<Integer, String> map = backend.mapState("m", Integer.class, String.class);
    batch(
        "k",
        () -> {
          for (int i : new int[] {300, 2, 1, 70_000}) {
            map.put(i, "v" + i);
          }
        });
    Map<Integer, String> expected = new LinkedHashMap<>();
    for (int i : new int[] {1, 2, 300, 70_000}) {
      expected.put(i, "v" + i);
    }
    batch("k", () -> assertThat(map.entries()).containsExactlyEntriesOf(expected));
  }

  @Test
  void mapStateRejectsNullValues() {
    MapState<String, String> map = backend.mapState("m", String.class, String.class);
    backend.begin();
    key("a");
    assertThatThrownBy(() -> map.put("k", null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void statesOfDifferentNamesAreIsolatedForTheSameKey() {
    ValueState<Long> first = backend.valueState("first", Long.class);
    ValueState<Long> second = backend.valueState("second", Long.class);
    ListState<Long> list = backend.listState("list", Long.class);
    MapState<Long, Long> map = backend.mapState("map", Long.class, Long.class);
    batch(
        "k",
        () -> {
          first.update(1L);
          second.update(2L);
          list.add(3L);
          map.put(4L, 4L);
        });
    batch("k", first::clear);
    batch("k", map::clear);
    batch(
        "k",
        () -> {
          assertThat(first.value()).isNull();
          assertThat(second.value()).isEqualTo(2L);
          assertThat(list.get()).containsExactly(3L);
          assertThat(map.isEmpty()).isTrue();
        });
  }

  @Test
  void mapClearOfOneKeyLeavesAKeyWhoseBytesExtendItIntact() {
    // "a" is a byte prefix of "ab": clearing "a"'s map must not touch "ab"'s.
    MapState<String, String> map = backend.mapState("m", String.class, String.class);
    backend.begin();
    backend.setCurrentKey("a", keys.encode("a"), 3);
    map.put("x", "1");
    backend.setCurrentKey("ab", keys.encode("ab"), 3);
    map.put("x", "2");
    backend.setCurrentKey("a", keys.encode("a"), 3);
    map.clear();
    assertThat(map.entries()).isEmpty();
    backend.setCurrentKey("ab", keys.encode("ab"), 3);
    assertThat(map.entries()).containsExactly(Map.entry("x", "2"));
    backend.commit();
  }

  @Test
  void keysOfDifferentTypesWithEqualLookingValuesAreIsolated() {
    ValueState<String> v = backend.valueState("v", String.class);
    batch(5L, () -> v.update("long"));
    batch(5, () -> v.update("int"));
    batch("5", () -> v.update("string"));
    batch(5L, () -> assertThat(v.value()).isEqualTo("long"));
    batch(5, () -> assertThat(v.value()).isEqualTo("int"));
    batch("5", () -> assertThat(v.value()).isEqualTo("string"));
  }

  @Test
  void aStateNameMayBeDeclaredOnlyOnce() {
    backend.valueState("dup", Long.class);
    assertThatThrownBy(() -> backend.listState("dup", String.class))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'dup'")
        .hasMessageContaining("'op'")
        .hasMessageContaining("twice");
  }

  @Test
  void anUnregisteredValueTypeIsRejectedAtDeclaration() {
    record Unregistered(int x) {}
    assertThatThrownBy(() -> backend.valueState("u", Unregistered.class))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("registerTypes");
  }

  @Test
  void accessOutsideABatchIsAnIllegalStateException() {
    ValueState<Long> v = backend.valueState("v", Long.class);
    ListState<Long> list = backend.listState("l", Long.class);
    MapState<String, Long> map = backend.mapState("m", String.class, Long.class);
    batch("a", () -> v.update(1L));
    // After commit: a current key was set once, but no transaction is open.
    assertThatThrownBy(v::value)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("'op'");
    assertThatThrownBy(() -> v.update(2L)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(list::get).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> list.add(1L)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> map.put("x", 1L)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> map.get("x")).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(map::entries).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(map::isEmpty).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(map::clear).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void accessWithoutACurrentKeyIsAnIllegalStateException() {
    ValueState<Long> v = backend.valueState("v", Long.class);
    batch("a", () -> v.update(1L));
    backend.begin();
    // commit() forgot the key: a new batch has none until the engine sets one.
    assertThat(backend.currentKey()).isNull();
    assertThatThrownBy(v::value).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> v.update(3L)).isInstanceOf(IllegalStateException.class);
  }

  /** A fresh backend, before any key was ever set: every handle must refuse the same way. */
  @Test
  void mapStateWithoutAnyKeyEverSetIsAnIllegalStateException() {
    MapState<String, Long> map = backend.mapState("m", String.class, Long.class);
    assertThatThrownBy(map::entries).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(map::isEmpty).isInstanceOf(IllegalStateException.class);
    backend.begin();
    assertThatThrownBy(map::entries).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(map::isEmpty).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void abortDiscardsTheBatchesWrites() {
    ValueState<Long> v = backend.valueState("v", Long.class);
    MapState<String, Long> map = backend.mapState("m", String.class, Long.class);
    batch("a", () -> v.update(1L));
    backend.begin();
    key("a");
    v.update(99L);
    map.put("x", 1L);
    key("b");
    v.update(5L);
    backend.abort();
    assertThat(backend.currentKey()).isNull();
    batch(
        "a",
        () -> {
          assertThat(v.value()).isEqualTo(1L);
          assertThat(map.isEmpty()).isTrue();
        });
    batch("b", () -> assertThat(v.value()).isNull());
    assertThat(stateEntries()).isEqualTo(1);
  }

  @Test
  void abortWithoutATransactionIsHarmless() {
    backend.abort();
    backend.abort();
    ValueState<Long> v = backend.valueState("v", Long.class);
    batch("a", () -> v.update(1L));
    batch("a", () -> assertThat(v.value()).isEqualTo(1L));
  }

  @Test
  void stateLivesInTheKeysBucket() {
    ValueState<Long> v = backend.valueState("v", Long.class);
    batch("some-key", () -> v.update(1L));
    int bucket = Buckets.bucketOf(keys.encode("some-key"), BUCKETS);
    try (var read = store.beginRead()) {
      int[] found = {0};
      read.scan(
          Table.STATE,
          KeyLayout.bucketPrefix(bucket),
          (k, val) -> {
            assertThat(KeyLayout.userKeyOf(k)).isEqualTo(keys.encode("some-key"));
            found[0]++;
            return true;
          });
      assertThat(found[0]).isEqualTo(1);
    }
    assertThat(backend.operatorName()).isEqualTo("op");
  }
}
