package io.koala.protocol;

/**
 * Everything a task actor receives: data-plane items from this package, control from the runtime.
 */
public interface TaskMessage extends KoalaMessage {}
