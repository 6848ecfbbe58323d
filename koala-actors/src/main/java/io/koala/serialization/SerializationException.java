package io.koala.serialization;

import io.koala.KoalaException;

/** A value could not be serialized or deserialized; the message names the class and the fix. */
public class SerializationException extends KoalaException {
  private static final long serialVersionUID = 1L;

  public SerializationException(String message, Throwable cause) {
    super(message, cause);
  }

  public SerializationException(String message) {
    super(message);
  }
}
