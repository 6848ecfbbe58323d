package io.koala.state;

/**
 * Converts values to bytes and back, for state and keys. Encoding must be deterministic for keys
 * (equal keys give equal bytes). Implementations must be stateless or thread-confined.
 */
public interface Codec<T> {
  byte[] encode(T value);

  T decode(byte[] bytes);
}
