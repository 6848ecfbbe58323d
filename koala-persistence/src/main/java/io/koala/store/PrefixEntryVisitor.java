package io.koala.store;

/**
 * Receives the entries of {@link ReadTxn#scanPrefixes} in key order within each prefix, with the
 * index of the prefix they fall under; the arrays are copies the visitor may keep.
 */
@FunctionalInterface
public interface PrefixEntryVisitor {
  /**
   * @param prefix the index, in the list scanned, of the prefix {@code key} starts with
   * @return {@code true} to continue the scan, {@code false} to stop it after this entry
   */
  boolean visit(int prefix, byte[] key, byte[] value);
}
