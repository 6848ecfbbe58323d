package io.koala.function;

import io.koala.KoalaException;

/** A user function (or key selector) threw; carries the name of the operator it belongs to. */
public final class UserFunctionException extends KoalaException {
  private static final long serialVersionUID = 1L;
  private final String operator;

  public UserFunctionException(String operator, Throwable cause) {
    super("operator '" + operator + "' failed: " + cause, cause);
    this.operator = operator;
  }

  /** The operator whose function threw. */
  public String operator() {
    return operator;
  }
}
