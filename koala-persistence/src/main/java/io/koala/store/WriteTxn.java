package io.koala.store;

/**
 * The single write transaction of a batch. Reads through it see its own writes. A store allows one
 * open write transaction at a time; it begins and ends inside one message handler.
 *
 * <p>The store takes ownership of the arrays passed to {@link #put}: the caller must not modify
 * them afterwards (they may be replayed if the map has to grow, see {@link #commit()}).
 *
 * <p>Threading: unlike a read transaction, a write transaction is used and finished (committed or
 * closed) on the thread that began it, because LMDB's writer lock belongs to that thread; other
 * threads get an {@link IllegalStateException}. Writes are refused while a {@link #scan} of this
 * transaction is running (from its visitor).
 *
 * <p>Growth and open readers: a store can only grow its map while no read transaction is open. If
 * it is full and a read transaction is open, the write or commit that needed the space throws a
 * {@link StoreException} and has no effect; the transaction keeps its earlier writes and stays
 * open, so the caller may retry that write or {@link #commit()} once the readers have closed, or
 * close the transaction to abort it.
 */
public interface WriteTxn extends ReadTxn {

  /**
   * Stores {@code value} under {@code key}, replacing any previous value.
   *
   * @throws StoreException when the key is empty or longer than the store's maximum key size; the
   *     message names the size and the limit
   */
  void put(Table table, byte[] key, byte[] value);

  /**
   * Stores {@code value} under {@code key}, which must sort after every key of {@code table} this
   * transaction sees: the bulk load of entries in key order, as a restore from a snapshot does. A
   * backend may store such entries faster than {@link #put}; LMDB fills its pages in order ({@code
   * MDB_APPEND}) instead of splitting them, and leaves them full.
   *
   * <p>The default implementation is {@link #put}, which accepts any key; the backends of this
   * module check the order.
   *
   * @throws StoreException when the key is empty or longer than the store's maximum key size, as
   *     for {@link #put}, or when it does not sort after the table's last key; the write then has
   *     no effect and the transaction stays usable with its earlier writes
   */
  default void append(Table table, byte[] key, byte[] value) {
    put(table, key, value);
  }

  /**
   * @return whether there was a value to delete
   */
  boolean delete(Table table, byte[] key);

  /**
   * Deletes every entry whose key starts with {@code prefix}.
   *
   * @return the number of entries deleted
   */
  long deletePrefix(Table table, byte[] prefix);

  /**
   * Makes every write of this transaction durable in the store and ends it. When the store runs out
   * of space, it grows and re-applies the transaction's writes: no write is lost.
   */
  void commit();
}
