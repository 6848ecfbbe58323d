package io.koala.store;

/**
 * A task's local key-value environment (DESIGN §4.4). Keys are compared as unsigned bytes, so a
 * prefix (one bucket, or one key's whole state, see {@link KeyLayout}) is one contiguous range.
 *
 * <p>Threading: one write transaction at a time, opened and finished by the owning task; read
 * transactions may be opened from any thread while a write transaction is open.
 */
public interface StateStore extends AutoCloseable {

  /**
   * Opens the write transaction of a batch.
   *
   * @throws IllegalStateException when another write transaction is still open
   */
  WriteTxn beginWrite();

  /** Opens a read-only snapshot view. */
  ReadTxn beginRead();

  /**
   * Opens a read-only view that may stay open long — a checkpoint's snapshot, while a copier
   * streams it. A store that cannot grow while a reader is open first makes room, so that the
   * writes meanwhile need not grow it. By default, {@link #beginRead()}.
   */
  default ReadTxn beginLongRead() {
    return beginRead();
  }

  /** Current entry counts and size. */
  StoreStats stats();

  /** Largest key, in bytes, that {@link WriteTxn#put} accepts. */
  int maxKeySize();

  /**
   * Releases the store's resources; the data on disk (if any) is kept.
   *
   * @throws IllegalStateException when transactions are still open
   */
  @Override
  void close();
}
