package io.koala.function;

/**
 * Combines a record of the first stage of a join with a matching record of the second (same key,
 * and same window or within the interval). Called once per matching pair; must not return {@code
 * null}.
 */
@FunctionalInterface
public interface JoinFunction<A, B, O> {
  O join(A first, B second) throws Exception;
}
