package io.koala.state;

/**
 * Gives a keyed function its state handles, at open time. A handle always reads and writes the
 * state of the key currently being processed. State names must be unique within an operator.
 *
 * <p>Values of built-in types ({@code Long}, {@code Integer}, {@code Double}, {@code String},
 * {@code byte[]}, ...) need nothing more; other classes must be registered with Koala's serializer
 * ({@code DataflowBuilder.registerTypes}), or be given a {@link Codec}.
 */
public interface KeyedStateContext {
  <T> ValueState<T> valueState(String name, Class<T> type);

  <T> ValueState<T> valueState(String name, Codec<T> codec);

  <T> ListState<T> listState(String name, Class<T> elementType);

  <K, V> MapState<K, V> mapState(String name, Class<K> keyType, Class<V> valueType);

  /** Name of the operator whose state this is. */
  String operatorName();
}
