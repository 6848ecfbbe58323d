package io.koala.state;

import java.util.List;

/** A list per key. Stored as one value: suited to bounded lists (the last N values of a key). */
public interface ListState<T> {
  /**
   * @return a copy of the current key's list; empty if it has none
   */
  List<T> get();

  /** Appends to the current key's list. */
  void add(T value);

  /** Replaces the current key's list; an empty list clears it. */
  void update(List<T> values);

  /** Removes the current key's list. */
  void clear();
}
