package io.koala.core;

/**
 * A cheap estimate of a value's serialized size, to bound batches by bytes: exact-ish for strings,
 * arrays and boxed primitives, a flat 64 bytes for other objects (not measured, to keep the hot
 * path free of reflection).
 */
final class SizeEstimate {
  static final int OBJECT = 64;

  private SizeEstimate() {}

  static int of(Object v) {
    if (v == null) {
      return 1;
    }
    if (v instanceof String s) {
      return 4 + s.length();
    }
    if (v instanceof Number || v instanceof Boolean || v instanceof Character) {
      return 9;
    }
    if (v instanceof byte[] b) {
      return 4 + b.length;
    }
    return OBJECT;
  }
}
