package io.koala.store;

import io.koala.KoalaException;

/**
 * A state store operation failed: the message names the store directory, table and size involved.
 */
public class StoreException extends KoalaException {
  private static final long serialVersionUID = 1L;

  public StoreException(String message) {
    super(message);
  }

  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
