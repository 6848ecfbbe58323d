package io.koala.serialization;

import io.koala.routing.KeyBytes;
import java.nio.charset.StandardCharsets;

/**
 * Encodes keys to the bytes that decide their bucket and name their state. The first byte tags the
 * key's type, so keys are self-describing ({@link #decode}) and keys of different types never share
 * bytes. {@code String}, {@code Long}, {@code Integer} and {@code byte[]} have fixed forms; other
 * keys are written by Kryo with their class and must have a deterministic encoding. Not thread-safe
 * (shares its {@link KryoSerde}).
 */
public final class KeyEncoder implements KeyBytes {
  private static final byte STRING = 1;
  private static final byte LONG = 2;
  private static final byte INT = 3;
  private static final byte BYTES = 4;
  private static final byte OTHER = 5;

  private final KryoSerde serde;

  public KeyEncoder(KryoSerde serde) {
    this.serde = serde;
  }

  /** The bytes of {@code key}. */
  @Override
  public byte[] encode(Object key) {
    if (key instanceof Long l) {
      long x = l;
      return new byte[] {
        LONG,
        (byte) (x >>> 56),
        (byte) (x >>> 48),
        (byte) (x >>> 40),
        (byte) (x >>> 32),
        (byte) (x >>> 24),
        (byte) (x >>> 16),
        (byte) (x >>> 8),
        (byte) x
      };
    }
    if (key instanceof String s) {
      return tagged(STRING, s.getBytes(StandardCharsets.UTF_8));
    }
    if (key instanceof Integer i) {
      int x = i;
      return new byte[] {INT, (byte) (x >>> 24), (byte) (x >>> 16), (byte) (x >>> 8), (byte) x};
    }
    if (key instanceof byte[] b) {
      return tagged(BYTES, b);
    }
    if (key == null) {
      throw new IllegalArgumentException("a key must not be null");
    }
    return tagged(OTHER, serde.toBytes(key));
  }

  /** The key whose bytes are {@code bytes}. */
  public Object decode(byte[] bytes) {
    switch (bytes[0]) {
      case LONG:
        long x = 0;
        for (int i = 1; i <= 8; i++) {
          x = (x << 8) | (bytes[i] & 0xFF);
        }
        return x;
      case INT:
        return ((bytes[1] & 0xFF) << 24)
            | ((bytes[2] & 0xFF) << 16)
            | ((bytes[3] & 0xFF) << 8)
            | (bytes[4] & 0xFF);
      case STRING:
        return new String(bytes, 1, bytes.length - 1, StandardCharsets.UTF_8);
      case BYTES:
        return java.util.Arrays.copyOfRange(bytes, 1, bytes.length);
      case OTHER:
        return serde.fromBytes(java.util.Arrays.copyOfRange(bytes, 1, bytes.length));
      default:
        throw new IllegalArgumentException("unknown key tag " + bytes[0]);
    }
  }

  private static byte[] tagged(byte tag, byte[] body) {
    byte[] out = new byte[body.length + 1];
    out[0] = tag;
    System.arraycopy(body, 0, out, 1, body.length);
    return out;
  }
}
