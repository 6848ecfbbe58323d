package io.koala.function;

/**
 * Transforms one record into one record. Called concurrently by every task of its operator: it must
 * not keep mutable state (use a keyed function with state instead).
 */
@FunctionalInterface
public interface MapFunction<I, O> {
  O map(I value) throws Exception;
}
