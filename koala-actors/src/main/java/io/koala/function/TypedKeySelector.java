package io.koala.function;

import java.util.Objects;

/**
 * A key selector that declares the class of its keys ({@code Stage.keyBy(selector, keyType)}): the
 * class is recorded with the dataflow's checkpoints, so that restoring them into a dataflow whose
 * keys have another class is refused before the job starts, and a key of another class fails the
 * operator naming both classes.
 *
 * @param <T> the records
 * @param <K> the keys
 */
public final class TypedKeySelector<T, K> implements KeySelector<T, K> {
  private final KeySelector<T, K> selector;
  private final Class<K> keyType;

  /** {@code selector}, whose keys are instances of {@code keyType}. */
  public TypedKeySelector(KeySelector<T, K> selector, Class<K> keyType) {
    this.selector = Objects.requireNonNull(selector, "key selector");
    this.keyType = Objects.requireNonNull(keyType, "key type");
    if (keyType.isPrimitive()) {
      throw new IllegalArgumentException(
          "key type "
              + keyType
              + " is primitive: declare its boxed class (for example Long.class)");
    }
  }

  /** The declared class of the keys. */
  public Class<K> keyType() {
    return keyType;
  }

  /**
   * The key of {@code value}.
   *
   * @throws IllegalStateException when the selector returns a key of another class
   */
  @Override
  public K key(T value) throws Exception {
    K key = selector.key(value);
    if (key != null && !keyType.isInstance(key)) {
      throw new IllegalStateException(
          "the key selector returned a "
              + key.getClass().getName()
              + " where the keys were declared as "
              + keyType.getName()
              + " (keyBy(selector, "
              + keyType.getSimpleName()
              + ".class))");
    }
    return key;
  }
}
