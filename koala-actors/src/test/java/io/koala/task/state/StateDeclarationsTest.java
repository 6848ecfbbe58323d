package io.koala.task.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.KoalaException;
import io.koala.operator.NamespacedState;
import io.koala.routing.Buckets;
import io.koala.serialization.ClassVersions;
import io.koala.serialization.Codecs;
import io.koala.serialization.FieldType;
import io.koala.serialization.KeyEncoder;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.SerializationException;
import io.koala.serialization.TypeRegistry;
import io.koala.state.ListState;
import io.koala.state.MapState;
import io.koala.state.ValueState;
import io.koala.store.InMemoryStateStore;
import io.koala.store.ReadTxn;
import io.koala.store.Table;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * State declarations recorded in the store, checked against a restored store's, and state of every
 * kind read back by a new version of its class.
 */
class StateDeclarationsTest {
  private static final String V1 =
      "package shop; public record Totals(String currency, long sum, int count) {}";
  private static final String V2 =
      "package shop; public record Totals(long count, long sum, String note) {"
          + " static Totals stateDefaults() { return new Totals(0, 0, \"new\"); } }";
  private static final String BAD =
      "package shop; public record Totals(long currency, long sum) {}";

  private final InMemoryStateStore store = new InMemoryStateStore();

  @AfterEach
  void closeStore() {
    store.close();
  }

  private static KryoSerde serdeWith(Class<?>... types) {
    TypeRegistry r = TypeRegistry.withDefaults();
    r.register(types);
    return new KryoSerde(r);
  }

  /** Runs {@code body} for key {@code key} in a committed batch of {@code backend}. */
  private static void batch(KeyedStateBackend backend, String key, Runnable body) {
    KeyEncoder keys = new KeyEncoder(new KryoSerde(TypeRegistry.withDefaults()));
    byte[] bytes = keys.encode(key);
    backend.begin();
    backend.setCurrentKey(key, bytes, Buckets.bucketOf(bytes, 128));
    body.run();
    backend.commit();
  }

  private List<StateDeclaration> recorded() {
    try (ReadTxn txn = store.beginRead()) {
      return StateDeclarations.all(txn);
    }
  }

  @Test
  void theKeyIsThePrefixTheOperatorAndTheStateAndTheValueIsVersioned() {
    assertThat(new String(StateDeclarations.key("totals", "sum"), StandardCharsets.UTF_8))
        .isEqualTo("koala.state-declaration/totals/sum");
    StateDeclaration d =
        new StateDeclaration(
            "totals",
            "sum",
            "map",
            "shop.Totals",
            "java.lang.String",
            List.of(new FieldType("a", "long")));
    byte[] bytes = StateDeclarations.encode(d);
    assertThat(bytes[0]).isEqualTo(StateDeclarations.VERSION);
    assertThat(StateDeclarations.decode(bytes)).isEqualTo(d);
    StateDeclaration bare =
        new StateDeclaration("w", "window.contents", "window", null, null, null);
    assertThat(StateDeclarations.decode(StateDeclarations.encode(bare))).isEqualTo(bare);
  }

  @Test
  void declaringAStateRecordsItInTheStoresMetadata() throws Exception {
    Class<?> totals = ClassVersions.compile("shop.Totals", V1);
    KeyedStateBackend backend = new KeyedStateBackend("totals", store, serdeWith(totals));
    backend.valueState("count", Long.class);
    backend.mapState("by-item", String.class, totals);
    backend.list("window.contents", Codecs.forClass(Object.class, serdeWith()));
    assertThat(recorded())
        .containsExactly(
            new StateDeclaration(
                "totals",
                "by-item",
                "map",
                "shop.Totals",
                "java.lang.String",
                List.of(
                    new FieldType("currency", "java.lang.String"),
                    new FieldType("sum", "long"),
                    new FieldType("count", "int"))),
            new StateDeclaration("totals", "count", "value", "java.lang.Long", null, null),
            new StateDeclaration("totals", "window.contents", "window", null, null, null));
    try (ReadTxn txn = store.beginRead()) {
      assertThat(txn.get(Table.METADATA, StateDeclarations.key("totals", "count"))).isNotNull();
    }
  }

  @Test
  void aRestoredStoreRefusesAnIncompatibleDeclarationAndKeepsItsRecord() throws Exception {
    Class<?> v1 = ClassVersions.compile("shop.Totals", V1);
    new KeyedStateBackend("totals", store, serdeWith(v1)).valueState("sum", v1);
    List<StateDeclaration> before = recorded();

    Class<?> bad = ClassVersions.compile("shop.Totals", BAD);
    KeyedStateBackend restored = new KeyedStateBackend("totals", store, serdeWith(bad));
    assertThatThrownBy(() -> restored.valueState("sum", bad))
        .isInstanceOf(KoalaException.class)
        .hasMessageStartingWith(
            "operator 'totals' state 'sum': field 'currency' changed type from java.lang.String"
                + " to long, which the stored state cannot be read as");
    assertThatThrownBy(
            () -> new KeyedStateBackend("totals", store, serdeWith(v1)).listState("sum", v1))
        .hasMessageStartingWith(
            "operator 'totals' state 'sum': its kind changed from a value state to a list state");
    assertThat(recorded()).isEqualTo(before);
  }

  @Test
  @SuppressWarnings({"unchecked", "rawtypes"})
  void valueListMapAndWindowStateReadOldValuesWithANewVersionOfTheirClass() throws Exception {
    Class v1 = ClassVersions.compile("shop.Totals", V1);
    KeyedStateBackend old = new KeyedStateBackend("totals", store, serdeWith(v1));
    ValueState<Object> value = old.valueState("value", v1);
    ListState<Object> list = old.listState("list", v1);
    MapState<String, Object> map = old.mapState("map", String.class, v1);
    NamespacedState.Value<Object> window =
        old.value("window", Codecs.forClass(Object.class, serdeWith(v1)));
    byte[] ns = {1, 2};
    Object a = ClassVersions.make(v1, "EUR", 10L, 1);
    Object b = ClassVersions.make(v1, "USD", 20L, 2);
    batch(
        old,
        "k",
        () -> {
          value.update(a);
          list.update(List.of(a, b));
          map.put("x", b);
          window.put(ns, a);
        });

    Class v2 = ClassVersions.compile("shop.Totals", V2);
    KeyedStateBackend restored = new KeyedStateBackend("totals", store, serdeWith(v2));
    ValueState<Object> value2 = restored.valueState("value", v2);
    ListState<Object> list2 = restored.listState("list", v2);
    MapState<String, Object> map2 = restored.mapState("map", String.class, v2);
    NamespacedState.Value<Object> window2 =
        restored.value("window", Codecs.forClass(Object.class, serdeWith(v2)));
    Object a2 = ClassVersions.make(v2, 1L, 10L, "new");
    Object b2 = ClassVersions.make(v2, 2L, 20L, "new");
    batch(
        restored,
        "k",
        () -> {
          assertThat(value2.value()).isEqualTo(a2);
          assertThat(list2.get()).containsExactly(a2, b2);
          assertThat(map2.get("x")).isEqualTo(b2);
          assertThat(window2.get(ns)).isEqualTo(a2);
        });
    assertThat(recorded())
        .as("the new schema replaced the recorded one")
        .filteredOn(d -> d.state().equals("value"))
        .singleElement()
        .extracting(StateDeclaration::fields)
        .isEqualTo(
            List.of(
                new FieldType("count", "long"),
                new FieldType("sum", "long"),
                new FieldType("note", "java.lang.String")));
  }

  @Test
  void windowStateOfAClassWhoseFieldTypeChangedFailsWhenReadNamingTheStateAndTheField()
      throws Exception {
    Class<?> v1 = ClassVersions.compile("shop.Totals", V1);
    KeyedStateBackend old = new KeyedStateBackend("totals", store, serdeWith(v1));
    NamespacedState.Value<Object> window =
        old.value("window", Codecs.forClass(Object.class, serdeWith(v1)));
    byte[] ns = {7};
    Object a = ClassVersions.make(v1, "EUR", 10L, 1);
    batch(old, "k", () -> window.put(ns, a));

    // window state records no class (its values carry theirs): the check at open cannot see it
    Class<?> bad = ClassVersions.compile("shop.Totals", BAD);
    KeyedStateBackend restored = new KeyedStateBackend("totals", store, serdeWith(bad));
    NamespacedState.Value<Object> window2 =
        restored.value("window", Codecs.forClass(Object.class, serdeWith(bad)));
    restored.begin();
    byte[] key = new KeyEncoder(new KryoSerde(TypeRegistry.withDefaults())).encode("k");
    restored.setCurrentKey("k", key, Buckets.bucketOf(key, 128));
    assertThatThrownBy(() -> window2.get(ns))
        .isInstanceOf(SerializationException.class)
        .hasMessage(
            "operator 'totals' state 'window': field 'currency' of shop.Totals was stored as"
                + " java.lang.String, which cannot be read as long");
    restored.abort();
  }
}
