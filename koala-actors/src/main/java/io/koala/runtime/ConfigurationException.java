package io.koala.runtime;

import io.koala.KoalaException;

/** A configuration value is invalid; the message names its path and the allowed values. */
public class ConfigurationException extends KoalaException {
  private static final long serialVersionUID = 1L;

  public ConfigurationException(String message) {
    super(message);
  }

  public ConfigurationException(String message, Throwable cause) {
    super(message, cause);
  }
}
