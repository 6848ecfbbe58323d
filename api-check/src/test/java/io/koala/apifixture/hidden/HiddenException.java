package io.koala.apifixture.hidden;

/** An exception of an internal package. */
public class HiddenException extends RuntimeException {
  private static final long serialVersionUID = 1L;
}
