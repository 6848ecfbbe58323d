package io.koala.task;

import io.koala.function.KeySelector;
import io.koala.function.UserFunctionException;
import io.koala.store.KeyLayout;

/**
 * The key a keyed input's selector gives a record, wherever it is asked for (routing at the
 * upstream task, processing at the keyed one): a selector that throws, or returns null, is the
 * user's function failing, reported as the keyed operator's key selector — for null, with the
 * record; so is a key too long for the state store.
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
                  + shortened(record)
                  + ": a key must not be null"));
    }
    return key;
  }

  /**
   * {@code bytes}, the serialized {@code key} of a record for keyed operator {@code operator}, when
   * a store can keep state under it ({@link KeyLayout#MAX_RECORD_KEY_BYTES}).
   *
   * @throws UserFunctionException when it is longer: the record cannot be processed
   */
  static byte[] storable(byte[] bytes, Object key, String operator) {
    if (bytes.length <= KeyLayout.MAX_RECORD_KEY_BYTES) {
      return bytes;
    }
    throw new UserFunctionException(
        operator + " (key selector)",
        new IllegalArgumentException(
            "the key "
                + shortened(String.valueOf(key))
                + " serializes to "
                + bytes.length
                + " bytes; a key holds at most "
                + KeyLayout.MAX_RECORD_KEY_BYTES
                + " bytes (the state store's limit): key records by something shorter, a hash"
                + " of the long value for instance"));
  }

  /** {@code text} cut to 200 characters for a message: a record or a key can be any length. */
  static String shortened(String text) {
    return text.length() <= MAX_RECORD_CHARS ? text : text.substring(0, MAX_RECORD_CHARS) + "…";
  }
}
