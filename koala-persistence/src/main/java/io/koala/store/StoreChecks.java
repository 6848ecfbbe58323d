package io.koala.store;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Objects;

/**
 * Argument checks and byte-order helpers shared by the store implementations, so that every backend
 * rejects the same keys with the same messages and orders keys the same way.
 */
final class StoreChecks {

  /** Unsigned lexicographic order, LMDB's default key order. */
  static final Comparator<byte[]> UNSIGNED = Arrays::compareUnsigned;

  /** Entries per scan call of {@link ReadTxn#forEach}'s default, so no scan counts past int. */
  static final int FOR_EACH_PAGE = 1 << 16;

  private StoreChecks() {}

  /**
   * @param where names the store in messages, e.g. {@code "store /tmp/task-3"}
   */
  static void checkKey(Table table, byte[] key, int maxKeySize, String where) {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(key, "key");
    if (key.length == 0) {
      throw new StoreException(
          "key of 0 bytes is empty: keys hold 1 to "
              + maxKeySize
              + " bytes (table "
              + table
              + ", "
              + where
              + ")");
    }
    if (key.length > maxKeySize) {
      throw new StoreException(
          "key of "
              + key.length
              + " bytes exceeds LMDB's maximum key size of "
              + maxKeySize
              + " bytes (table "
              + table
              + ", "
              + where
              + ")");
    }
  }

  /** The failure of an {@link WriteTxn#append} whose key does not sort after the table's last. */
  static StoreException notAfterLastKey(Table table, byte[] key, String where) {
    return new StoreException(
        "cannot append a key of "
            + key.length
            + " bytes to table "
            + table
            + ": it does not sort after the table's last key; append takes keys in increasing"
            + " order, put takes any ("
            + where
            + ")");
  }

  static void checkScan(Table table, byte[] prefix, int limit, EntryVisitor visitor) {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(visitor, "visitor");
    if (limit < 0) {
      throw new IllegalArgumentException("scan limit must not be negative, got " + limit);
    }
  }

  static void checkPrefix(Table table, byte[] prefix) {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(prefix, "prefix");
  }

  static boolean startsWith(byte[] key, byte[] prefix) {
    return key.length >= prefix.length
        && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
  }

  /** Where a scan starts: the larger of {@code prefix} and {@code after}. */
  static byte[] scanStart(byte[] prefix, byte[] after) {
    return after != null && Arrays.compareUnsigned(after, prefix) > 0 ? after : prefix;
  }

  /** Whether {@code key} is beyond the {@code after} bound of a scan. */
  static boolean isAfter(byte[] key, byte[] after) {
    return after == null || Arrays.compareUnsigned(key, after) > 0;
  }

  /**
   * Rejects use of a write transaction from a thread other than the one that began it: LMDB's
   * writer lock is a mutex owned by that thread, and releasing it from another thread leaves it
   * locked, so the next write transaction would block forever.
   */
  static void checkOwner(Thread owner, String what) {
    Thread current = Thread.currentThread();
    if (current != owner) {
      throw new IllegalStateException(
          what
              + " was begun on thread "
              + owner.getName()
              + " and cannot be used from thread "
              + current.getName()
              + ": a write transaction must begin and end on one thread");
    }
  }
}
