package io.koala.function;

/**
 * Extracts the key of a record. Must be deterministic: the same record always yields an equal key,
 * whose serialized bytes decide its bucket and therefore its owning task. Keys of type {@link
 * String}, {@link Long}, {@link Integer} and {@code byte[]} are encoded directly; other key classes
 * must be registered types with a deterministic encoding (records of such types, not hash maps).
 */
@FunctionalInterface
public interface KeySelector<T, K> {
  K key(T value) throws Exception;
}
