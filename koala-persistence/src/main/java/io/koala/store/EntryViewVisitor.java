package io.koala.store;

import org.agrona.DirectBuffer;

/**
 * Receives the entries of {@link ReadTxn#forEach} in key order as views of the store's memory: a
 * view is valid only during the call that receives it (the buffers are reused for the next entry
 * and may point into the store's memory map), so copy out what you keep. Neither view may be
 * written to.
 */
@FunctionalInterface
public interface EntryViewVisitor {
  /** Visits one entry; {@code key} holds at least one byte, {@code value} may be empty. */
  void visit(DirectBuffer key, DirectBuffer value);
}
