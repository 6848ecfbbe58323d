package io.koala;

/**
 * Root of every exception Koala throws at its users. Unchecked: failures inside a running dataflow
 * travel between actors as replies, and what reaches user code is always one of these subtypes with
 * a message naming the operator, key, configuration path or class involved.
 */
public class KoalaException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public KoalaException(String message) {
    super(message);
  }

  public KoalaException(String message, Throwable cause) {
    super(message, cause);
  }
}
