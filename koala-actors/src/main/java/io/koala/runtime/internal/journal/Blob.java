package io.koala.runtime.internal.journal;

import java.util.Arrays;

/**
 * Opaque bytes the journal keeps for the coordinator (encoded checkpoint metadata, an encoded
 * reconfiguration request). An immutable value: the array is copied in and out, and two blobs are
 * equal when their bytes are.
 */
public record Blob(byte[] bytes) {
  public Blob {
    if (bytes == null) {
      throw new IllegalArgumentException("bytes must not be null");
    }
    bytes = bytes.clone();
  }

  /** A blob holding a copy of {@code bytes}. */
  public static Blob of(byte[] bytes) {
    return new Blob(bytes);
  }

  /** A copy of the bytes. */
  @Override
  public byte[] bytes() {
    return bytes.clone();
  }

  public int size() {
    return bytes.length;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Blob b && Arrays.equals(bytes, b.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  @Override
  public String toString() {
    return "Blob[" + bytes.length + " bytes]";
  }
}
