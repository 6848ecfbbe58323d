package io.koala.task;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.protocol.QueryMessage;
import io.koala.protocol.QueryMessage.Kind;
import io.koala.protocol.QueryMessage.Types;
import io.koala.serialization.Codecs;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.TypeRegistry;
import io.koala.store.InMemoryStateStore;
import io.koala.task.state.KeyedStateBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Which queries an operator refuses from its declarations (issue 48, N2 and N3): a state it does
 * not have or of another kind, a value, element or map-key class other than declared, a key class
 * other than its {@code keyBy} declared; classes nobody gave are not checked.
 */
class QueryRefusalTest {
  private static final String LONG = Long.class.getName();
  private static final String STRING = String.class.getName();
  private static final String INTEGER = Integer.class.getName();

  private final InMemoryStateStore store = new InMemoryStateStore();
  private final KryoSerde serde = new KryoSerde(TypeRegistry.withDefaults());
  private final KeyedStateBackend declared = new KeyedStateBackend("sums", store, serde);

  QueryRefusalTest() {
    declared.valueState("sum", Long.class);
    declared.valueState("coded", Codecs.forClass(String.class, serde));
    declared.listState("recent", Long.class);
    declared.mapState("seen", String.class, Long.class);
  }

  @AfterEach
  void close() {
    store.close();
  }

  private String refusal(String keyType, String state, Kind kind, Types types) {
    return QueryRefusal.of("sums", declared, keyType, state, kind, types);
  }

  @Test
  void theDeclaredClassesAreAnswered() {
    assertThat(refusal(LONG, "sum", Kind.VALUE, new Types(LONG, LONG, null))).isNull();
    assertThat(refusal(LONG, "recent", Kind.LIST, new Types(LONG, LONG, null))).isNull();
    assertThat(refusal(LONG, "seen", Kind.MAP, new Types(LONG, LONG, STRING))).isNull();
    assertThat(refusal(LONG, "sum", Kind.VALUE, new Types("long", "long", null)))
        .as("a primitive is its box")
        .isNull();
  }

  @Test
  void aValueElementOrMapKeyClassOtherThanDeclaredIsRefusedNamingBoth() {
    assertThat(refusal(LONG, "sum", Kind.VALUE, new Types(LONG, STRING, null)))
        .isEqualTo(
            "state 'sum' of operator 'sums' was declared with java.lang.Long values, not"
                + " java.lang.String: query it with Long.class");
    assertThat(refusal(LONG, "recent", Kind.LIST, new Types(LONG, INTEGER, null)))
        .contains("java.lang.Long elements, not java.lang.Integer");
    assertThat(refusal(LONG, "seen", Kind.MAP, new Types(LONG, LONG, INTEGER)))
        .contains("java.lang.String keys, not java.lang.Integer");
  }

  @Test
  void aKeyClassOtherThanTheOperatorDeclaredIsRefusedNamingBoth() {
    assertThat(refusal(LONG, "sum", Kind.VALUE, new Types(INTEGER, LONG, null)))
        .isEqualTo(
            "operator 'sums' keys its state by java.lang.Long (keyBy(selector, Long.class)), not"
                + " java.lang.Integer: query it with Long keys");
    assertThat(refusal(LONG, "sum", Kind.DECLARED, new Types(STRING, null, null)))
        .as("a read of whatever was declared still gives its key's class")
        .contains("keys its state by java.lang.Long");
  }

  @Test
  void whatNobodyDeclaredIsNotChecked() {
    assertThat(refusal(null, "sum", Kind.VALUE, new Types(INTEGER, LONG, null)))
        .as("an untyped keyBy")
        .isNull();
    assertThat(refusal(LONG, "coded", Kind.VALUE, new Types(LONG, LONG, null)))
        .as("a state declared with a codec")
        .isNull();
    assertThat(refusal(LONG, "sum", Kind.VALUE, new Types(LONG, null, null)))
        .as("a query with a codec")
        .isNull();
    assertThat(refusal(LONG, "sum", Kind.DECLARED, QueryMessage.Types.ANY)).isNull();
  }

  @Test
  void anUnknownStateOrAnotherKindIsRefusedSayingWhich() {
    assertThat(refusal(LONG, "total", Kind.VALUE, Types.ANY))
        .isEqualTo(
            "operator 'sums' has no state named 'total' (its states: coded, recent, seen, sum)");
    assertThat(refusal(LONG, "recent", Kind.VALUE, Types.ANY))
        .contains("'recent' of operator 'sums' is a list state, not a value state");
  }
}
