package io.koala.task;

import io.koala.function.KeySelector;
import io.koala.function.UserFunctionException;

/**
 * The key a keyed input's selector gives a record, wherever it is asked for (routing at the
 * upstream task, processing at the keyed one): a selector that throws, or returns null, is the
 * user's function failing, reported as the keyed operator's key selector — for null, with the
 * record.
 */
final class KeySelection {
  private static final int MAX_RECORD_CHARS = 200;

  private KeySelection() {}

  /**
   * The key of {@code value} by {@code selector}, the selector of an input of keyed operator {@code
   * operator}.
   *
   * @throws UserFunctionException when the selector throws or returns null
   */
  static Object keyOf(KeySelector<Object, Object> selector, Object value, String operator) {
    Object key;
    try {
      key = selector.key(value);
    } catch (Exception e) {
      throw new UserFunctionException(operator + " (key selector)", e);
    }
    if (key == null) {
      String record = String.valueOf(value);
      throw new UserFunctionException(
          operator + " (key selector)",
          new NullPointerException(
              "the key selector returned null for record "
                  + (record.length() <= MAX_RECORD_CHARS
                      ? record
                      : record.substring(0, MAX_RECORD_CHARS) + "…")
                  + ": a key must not be null"));
    }
    return key;
  }
}
