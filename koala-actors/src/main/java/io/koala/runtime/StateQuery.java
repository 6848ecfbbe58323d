package io.koala.runtime;

import io.koala.protocol.QueryMessage;
import io.koala.runtime.internal.StateQueryClient;
import io.koala.serialization.Codecs;
import io.koala.serialization.KryoSerde;
import io.koala.state.Codec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A typed read of one state of a keyed operator, by key, for {@link JobHandle#query}: which
 * operator (the name given to its stage, as in {@link JobHandle#rescale}), which of its states (the
 * name it declared the state with), and the types it declared. Immutable; make one per state and
 * reuse it.
 *
 * <pre>{@code
 * StateQuery<String, Optional<Long>> counts =
 *     StateQuery.value("counts", "count", String.class, Long.class);
 * Optional<Long> n = job.query(counts, "koala").toCompletableFuture().join();
 * }</pre>
 *
 * @param <K> the operator's key type
 * @param <R> what a read returns: an {@link Optional} for value state, a {@link List} for list
 *     state, a {@link Map} for map state (empty when the key has no such state)
 */
public final class StateQuery<K, R> {
  private final String operator;
  private final String state;
  private final QueryMessage.Kind kind;
  private final QueryMessage.Types types;
  private final StateQueryClient.Decoder<R> decoder;

  private StateQuery(
      String operator,
      String state,
      QueryMessage.Kind kind,
      QueryMessage.Types types,
      StateQueryClient.Decoder<R> decoder) {
    this.operator = Objects.requireNonNull(operator, "operator");
    this.state = Objects.requireNonNull(state, "state");
    this.kind = kind;
    this.types = types;
    this.decoder = decoder;
  }

  /**
   * A {@code ValueState} declared with {@code valueType}. A read with another value class than the
   * state was declared with, or with another key class than the operator declared ({@code
   * keyBy(selector, keyType)}), fails saying so.
   */
  public static <K, V> StateQuery<K, Optional<V>> value(
      String operator, String state, Class<K> keyType, Class<V> valueType) {
    Objects.requireNonNull(valueType, "valueType");
    return valueOf(
        operator, state, keyType, valueType.getName(), serde -> Codecs.forClass(valueType, serde));
  }

  /**
   * A {@code ValueState} declared with {@code codec}: the codec must read what the state's codec
   * wrote (nothing can check that); the key class is checked as by {@link #value(String, String,
   * Class, Class)}.
   */
  public static <K, V> StateQuery<K, Optional<V>> value(
      String operator, String state, Class<K> keyType, Codec<V> codec) {
    Objects.requireNonNull(codec, "codec");
    return valueOf(operator, state, keyType, null, serde -> codec);
  }

  private static <K, V> StateQuery<K, Optional<V>> valueOf(
      String operator,
      String state,
      Class<K> keyType,
      String valueType,
      java.util.function.Function<KryoSerde, Codec<V>> codec) {
    Objects.requireNonNull(keyType, "keyType");
    return new StateQuery<>(
        operator,
        state,
        QueryMessage.Kind.VALUE,
        new QueryMessage.Types(keyType.getName(), valueType, null),
        (serde, found) -> StateQueryClient.value(found, codec.apply(serde)));
  }

  /**
   * A {@code ListState} declared with {@code elementType}; other classes than the declared ones
   * fail as for {@link #value(String, String, Class, Class)}.
   */
  public static <K, E> StateQuery<K, List<E>> list(
      String operator, String state, Class<K> keyType, Class<E> elementType) {
    Objects.requireNonNull(keyType, "keyType");
    Objects.requireNonNull(elementType, "elementType");
    return new StateQuery<>(
        operator,
        state,
        QueryMessage.Kind.LIST,
        new QueryMessage.Types(keyType.getName(), elementType.getName(), null),
        (serde, found) -> StateQueryClient.list(found, Codecs.forClass(elementType, serde)));
  }

  /**
   * A {@code MapState} declared with {@code mapKeyType} and {@code valueType}; other classes than
   * the declared ones fail as for {@link #value(String, String, Class, Class)}.
   */
  public static <K, MK, MV> StateQuery<K, Map<MK, MV>> map(
      String operator, String state, Class<K> keyType, Class<MK> mapKeyType, Class<MV> valueType) {
    Objects.requireNonNull(keyType, "keyType");
    Objects.requireNonNull(mapKeyType, "mapKeyType");
    Objects.requireNonNull(valueType, "valueType");
    return new StateQuery<>(
        operator,
        state,
        QueryMessage.Kind.MAP,
        new QueryMessage.Types(keyType.getName(), valueType.getName(), mapKeyType.getName()),
        (serde, found) -> {
          Map<Object, MV> read =
              StateQueryClient.map(found, serde, Codecs.forClass(valueType, serde));
          Map<MK, MV> out = new LinkedHashMap<>();
          read.forEach((k, v) -> out.put(mapKeyType.cast(k), v));
          return java.util.Collections.unmodifiableMap(out);
        });
  }

  /** The keyed operator whose state this reads. */
  public String operator() {
    return operator;
  }

  /** The name of the state it reads. */
  public String state() {
    return state;
  }

  QueryMessage.Kind kind() {
    return kind;
  }

  QueryMessage.Types types() {
    return types;
  }

  StateQueryClient.Decoder<R> decoder() {
    return decoder;
  }

  @Override
  public String toString() {
    return "StateQuery(" + operator + "." + state + ", " + kind.name().toLowerCase() + ")";
  }
}
