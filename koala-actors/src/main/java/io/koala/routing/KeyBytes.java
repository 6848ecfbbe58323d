package io.koala.routing;

/**
 * How a key becomes the bytes its bucket is hashed from ({@link Buckets#bucketOf}): the task's key
 * encoder, so that routing and keyed state agree on every key's bucket.
 */
@FunctionalInterface
public interface KeyBytes {
  byte[] encode(Object key);
}
