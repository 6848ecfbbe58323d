package io.koala.state;

/** One value per key. */
public interface ValueState<T> {
  /**
   * @return the current key's value, or {@code null} if it has none
   */
  T value();

  /** Sets the current key's value; {@code null} clears it. */
  void update(T value);

  /** Removes the current key's value. */
  void clear();
}
