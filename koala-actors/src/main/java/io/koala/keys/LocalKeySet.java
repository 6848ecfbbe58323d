package io.koala.keys;

import io.koala.routing.Murmur3;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * An exact set of keys, compact: the key bytes in one arena ({@code length | bytes}) and an
 * open-addressing table of arena offsets, so a key costs its bytes plus about 6 bytes. The key
 * lookup table keeps one per moved bucket for the keys whose entry says LOCAL, which stays true
 * until the bucket leaves: a hit answers a lookup without reading the store (DESIGN §5.3 cost
 * target). Keys are compared in full, never by hash. Not thread-safe.
 */
final class LocalKeySet {
  private static final int EMPTY = -1;

  private byte[] arena = new byte[256];
  private int used;
  private int[] slots = filled(16);
  private int size;

  private static int[] filled(int n) {
    int[] s = new int[n];
    Arrays.fill(s, EMPTY);
    return s;
  }

  /** Adds {@code key}; does nothing if it is there. */
  void add(byte[] key) {
    int slot = find(key);
    if (slots[slot] != EMPTY) {
      return;
    }
    int need = used + 5 + key.length;
    if (need > arena.length) {
      arena = Arrays.copyOf(arena, Math.max(need, arena.length * 3 / 2));
    }
    int at = used;
    used = writeLength(at, key.length);
    System.arraycopy(key, 0, arena, used, key.length);
    used += key.length;
    slots[slot] = at;
    if (++size * 4 > slots.length * 3) {
      grow();
    }
  }

  /** Whether {@code key} was added. */
  boolean contains(byte[] key) {
    return slots[find(key)] != EMPTY;
  }

  int size() {
    return size;
  }

  /** Every key added, copied, in no particular order. */
  void forEach(Consumer<byte[]> action) {
    for (int at = 0; at < used; ) {
      int len = readLength(at);
      int start = at + lengthBytes(len);
      action.accept(Arrays.copyOfRange(arena, start, start + len));
      at = start + len;
    }
  }

  /** Bytes of memory the set holds (arena and table). */
  long bytes() {
    return arena.length + 4L * slots.length;
  }

  /** The slot holding {@code key}, or the empty slot where it would go. */
  private int find(byte[] key) {
    int mask = slots.length - 1;
    int i = Murmur3.hash32(key, 0, key.length, 0x5bd1e995) & mask;
    while (true) {
      int at = slots[i];
      if (at == EMPTY || equalsAt(at, key)) {
        return i;
      }
      i = (i + 1) & mask;
    }
  }

  private boolean equalsAt(int at, byte[] key) {
    int len = readLength(at);
    int start = at + lengthBytes(len);
    return len == key.length && Arrays.equals(arena, start, start + len, key, 0, key.length);
  }

  private void grow() {
    int[] old = slots;
    slots = filled(old.length * 2);
    int mask = slots.length - 1;
    for (int at : old) {
      if (at == EMPTY) {
        continue;
      }
      int len = readLength(at);
      int start = at + lengthBytes(len);
      int i = Murmur3.hash32(arena, start, len, 0x5bd1e995) & mask;
      while (slots[i] != EMPTY) {
        i = (i + 1) & mask;
      }
      slots[i] = at;
    }
  }

  /** Writes {@code len} as a varint at {@code at}; returns the position after it. */
  private int writeLength(int at, int len) {
    while ((len & ~0x7F) != 0) {
      arena[at++] = (byte) ((len & 0x7F) | 0x80);
      len >>>= 7;
    }
    arena[at++] = (byte) len;
    return at;
  }

  private int readLength(int at) {
    int len = 0;
    int shift = 0;
    byte b;
    do {
      b = arena[at++];
      len |= (b & 0x7F) << shift;
      shift += 7;
    } while (b < 0);
    return len;
  }

  private static int lengthBytes(int len) {
    int n = 1;
    while ((len & ~0x7F) != 0) {
      len >>>= 7;
      n++;
    }
    return n;
  }
}
