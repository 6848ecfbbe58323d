package io.koala.store;

/** Receives the entries of a scan in key order; the arrays are copies the visitor may keep. */
@FunctionalInterface
public interface EntryVisitor {
  /**
   * @return {@code true} to continue the scan, {@code false} to stop after this entry
   */
  boolean visit(byte[] key, byte[] value);
}
