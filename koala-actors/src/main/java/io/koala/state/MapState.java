package io.koala.state;

import java.util.Map;

/**
 * A map per key; each entry is stored separately, so reading or writing one entry does not touch
 * the others.
 */
public interface MapState<K, V> {
  /**
   * @return the value of {@code mapKey} for the current key, or {@code null}
   */
  V get(K mapKey);

  void put(K mapKey, V value);

  void remove(K mapKey);

  boolean contains(K mapKey);

  /**
   * @return a copy of every entry of the current key's map, in the order of the map keys' bytes
   */
  Map<K, V> entries();

  boolean isEmpty();

  /** Removes every entry of the current key's map. */
  void clear();
}
