package io.koala.connector;

/**
 * Computes record {@code index} of a generated stream as a pure function of the index and the seed,
 * so any record can be regenerated after a failure.
 */
@FunctionalInterface
public interface GeneratorFunction<T> {
  T generate(long index, long seed);
}
