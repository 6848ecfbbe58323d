package io.koala.function;

import io.koala.KoalaException;
import io.koala.dataflow.DataflowBuilder;

/**
 * A dataflow definition is invalid. Thrown by {@link DataflowBuilder#build()} (never later), with a
 * message naming the operator and the problem.
 */
public class DataflowDefinitionException extends KoalaException {
  private static final long serialVersionUID = 1L;

  public DataflowDefinitionException(String message) {
    super(message);
  }
}
