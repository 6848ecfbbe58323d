package io.koala.store;

import java.util.List;
import java.util.Objects;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A consistent read view of a store. Every byte array it returns is a copy owned by the caller, so
 * nothing refers to store memory after {@link #close()}; only {@link #forEach} hands out views of
 * store memory, valid during each call to its visitor. A read transaction may be used from any
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

  /**
   * Visits, for each of {@code prefixes} in turn, every entry whose key starts with it, in key
   * order: the batch form of {@link #scan(Table, byte[], EntryVisitor)}, by which a holder reads
   * the keys of a fetch. Any order of prefixes is correct (a prefix listed twice is visited twice),
   * but a store may walk prefixes given in ascending unsigned order with one cursor moving forward
   * instead of one scan each; the LMDB store does. Stops when the visitor returns {@code false}.
   * The visitor may read through this transaction but not write through it. The default scans each
   * prefix in turn.
   *
   * @return the number of entries visited, including the one on which the visitor returned {@code
   *     false}
   */
  default long scanPrefixes(Table table, List<byte[]> prefixes, PrefixEntryVisitor visitor) {
    Objects.requireNonNull(visitor, "visitor");
    boolean[] stopped = {false};
    long visited = 0;
    for (int i = 0; i < prefixes.size() && !stopped[0]; i++) {
      int index = i;
      visited +=
          scan(
              table,
              prefixes.get(i),
              (k, v) -> {
                stopped[0] = !visitor.visit(index, k, v);
                return !stopped[0];
              });
    }
    return visited;
  }

  /**
   * Visits every entry of {@code table}, in key order, as views valid only during each call: the
   * bulk path of a snapshot, which copies a whole table and so should not allocate two arrays per
   * entry the way {@link #scan} does. The visitor must not use this transaction. The default reads
   * through {@link #scan} a page at a time; a store that can hand out its own memory overrides it.
   *
   * @return the number of entries visited
   */
  default long forEach(Table table, EntryViewVisitor visitor) {
    UnsafeBuffer key = new UnsafeBuffer(new byte[0]);
    UnsafeBuffer value = new UnsafeBuffer(new byte[0]);
    byte[][] last = {null};
    long visited = 0;
    while (true) {
      int n =
          scan(
              table,
              new byte[0],
              last[0],
              StoreChecks.FOR_EACH_PAGE,
              (k, v) -> {
                key.wrap(k);
                value.wrap(v);
                visitor.visit(key, value);
                last[0] = k;
                return true;
              });
      visited += n;
      if (n < StoreChecks.FOR_EACH_PAGE) {
        return visited;
      }
    }
  }

  /** Ends the transaction; idempotent. For a write transaction not yet committed this aborts it. */
  @Override
  void close();
}
