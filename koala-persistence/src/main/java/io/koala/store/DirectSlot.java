package io.koala.store;

import java.nio.ByteBuffer;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A reusable off-heap copy of a byte array, handed to LMDB as a key or value. LMDB reads the bytes
 * at a native address, so they must live in direct memory (a heap array may move during the call).
 * lmdbjava's {@code DirectBufferProxy} passes a buffer's whole capacity as the length, hence the
 * view that is re-wrapped to the exact length on every {@link #set}. Not thread-safe: one slot per
 * thread of use.
 */
final class DirectSlot {
  private static final int MAX_CAPACITY = Integer.MAX_VALUE - 8;

  private final boolean growable;
  private final UnsafeBuffer view;
  private UnsafeBuffer memory;

  private DirectSlot(int capacity, boolean growable) {
    this.memory = new UnsafeBuffer(ByteBuffer.allocateDirect(capacity));
    this.view = new UnsafeBuffer(memory, 0, 0);
    this.growable = growable;
  }

  /** A slot of exactly {@code capacity} bytes, for keys. */
  static DirectSlot fixed(int capacity) {
    return new DirectSlot(capacity, false);
  }

  /** A slot that starts at {@code capacity} bytes and grows to fit, for values. */
  static DirectSlot growable(int capacity) {
    return new DirectSlot(capacity, true);
  }

  /**
   * Copies {@code bytes} off-heap; the returned view stays valid until the next call.
   *
   * @throws IllegalArgumentException when a fixed slot is too small (callers check key sizes first)
   */
  DirectBuffer set(byte[] bytes) {
    if (bytes.length > memory.capacity()) {
      if (!growable) {
        throw new IllegalArgumentException(
            bytes.length + " bytes do not fit a slot of " + memory.capacity() + " bytes");
      }
      long doubled = 2L * memory.capacity();
      int capacity = (int) Math.min(MAX_CAPACITY, Math.max(bytes.length, doubled));
      memory = new UnsafeBuffer(ByteBuffer.allocateDirect(capacity));
    }
    memory.putBytes(0, bytes);
    view.wrap(memory, 0, bytes.length);
    return view;
  }

  /** Copies the first {@code length} bytes of {@code bytes}, or all of them when shorter. */
  DirectBuffer setTruncated(byte[] bytes, int length) {
    int n = Math.min(Math.min(length, bytes.length), memory.capacity());
    memory.putBytes(0, bytes, 0, n);
    view.wrap(memory, 0, n);
    return view;
  }

  /** A fresh heap copy of a buffer LMDB handed out (valid only until the transaction moves on). */
  static byte[] copy(DirectBuffer buffer) {
    byte[] out = new byte[buffer.capacity()];
    buffer.getBytes(0, out);
    return out;
  }
}
