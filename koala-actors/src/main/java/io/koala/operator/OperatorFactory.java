package io.koala.operator;

/** Creates the operator instance of one task. */
@FunctionalInterface
public interface OperatorFactory<I, O> {
  Operator<I, O> create();
}
