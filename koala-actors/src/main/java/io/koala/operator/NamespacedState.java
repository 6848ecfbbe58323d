package io.koala.operator;

import io.koala.state.Codec;
import java.util.List;

/**
 * State of the current key split by namespace (a window, a join side), for operators of the SPI.
 * Every namespace of a key lives in the key's contiguous range of the store, so it moves with the
 * key. State names share the operator's name space with {@link io.koala.state.KeyedStateContext}.
 */
public interface NamespacedState {

  <T> Value<T> value(String name, Codec<T> codec);

  <T> Appendable<T> list(String name, Codec<T> codec);

  /** One value per namespace. */
  interface Value<T> {
    T get(byte[] namespace);

    void put(byte[] namespace, T value);

    void clear(byte[] namespace);
  }

  /** A list per namespace. */
  interface Appendable<T> {
    /** The namespace's list; empty when it has none. */
    List<T> get(byte[] namespace);

    void add(byte[] namespace, T value);

    void put(byte[] namespace, List<T> values);

    void clear(byte[] namespace);
  }
}
