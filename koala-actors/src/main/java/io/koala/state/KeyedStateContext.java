package io.koala.state;

/**
 * Gives a keyed function its state handles, at open time. A handle always reads and writes the
 * state of the key currently being processed. State names must be unique within an operator.
 *
 * <p>Values of built-in types ({@code Long}, {@code Integer}, {@code Double}, {@code String},
 * {@code byte[]}, ...) need nothing more; other classes must be registered with Koala's serializer
 * ({@code DataflowBuilder.registerTypes}), or be given a {@link Codec}.
 *
 * <p>Values of records and plain classes are stored field by field, by name, so a later version of
 * the job can read them after fields were added to or removed from the class: a field added gets
 * its default (a record's from its static {@code stateDefaults()} method, if it has one), a field
 * removed is skipped, and a change that the stored state cannot be read as (a field's type, the
 * state's class or kind) fails the restored task at open, naming the operator and the state. The
 * values nested in such a field are stored whole. docs/upgrades.md lists what is allowed.
 */
public interface KeyedStateContext {
  <T> ValueState<T> valueState(String name, Class<T> type);

  <T> ValueState<T> valueState(String name, Codec<T> codec);

  <T> ListState<T> listState(String name, Class<T> elementType);

  <K, V> MapState<K, V> mapState(String name, Class<K> keyType, Class<V> valueType);

  /** Name of the operator whose state this is. */
  String operatorName();
}
