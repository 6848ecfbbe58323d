package io.koala.function;

/** Combines two values of a key into one; used for a rolling reduce per key. */
@FunctionalInterface
public interface ReduceFunction<T> {
  T reduce(T accumulated, T value) throws Exception;
}
