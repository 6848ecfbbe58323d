package io.koala.function;

/** Keeps the records for which it returns {@code true}. Stateless, like {@link MapFunction}. */
@FunctionalInterface
public interface FilterFunction<T> {
  boolean test(T value) throws Exception;
}
