package io.koala.store;

/**
 * A consistent read view of a store. Every byte array it returns is a copy owned by the caller, so
 * nothing refers to store memory after {@link #close()}. A read transaction may be used from any
 * thread, but by one thread at a time.
 */
public interface ReadTxn extends AutoCloseable {

  /**
   * @return a copy of the value stored under {@code key}, or {@code null} when there is none
   */
  byte[] get(Table table, byte[] key);

  /**
   * Visits, in unsigned lexicographic key order, the entries whose key starts with {@code prefix}
   * and is strictly greater than {@code after} (or all of them when {@code after} is {@code null}),
   * stopping after {@code limit} entries or when the visitor returns {@code false}. A {@code limit}
   * of 0 visits nothing; a prefix longer than the maximum key size matches nothing. The visitor may
   * read through this transaction but not write through it.
   *
   * @return the number of entries visited, including the one on which the visitor returned {@code
   *     false}
   * @throws IllegalArgumentException when {@code limit} is negative
   */
  int scan(Table table, byte[] prefix, byte[] after, int limit, EntryVisitor visitor);

  /** Visits every entry whose key starts with {@code prefix}, in key order. */
  default int scan(Table table, byte[] prefix, EntryVisitor visitor) {
    return scan(table, prefix, null, Integer.MAX_VALUE, visitor);
  }

  /** Ends the transaction; idempotent. For a write transaction not yet committed this aborts it. */
  @Override
  void close();
}
