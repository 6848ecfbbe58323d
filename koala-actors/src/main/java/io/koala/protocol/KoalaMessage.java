package io.koala.protocol;

/**
 * Marker of every message Koala's actors exchange. All of them are bound to Koala's Kryo
 * serializer, so each one must be serializable with registration required; tests run with {@code
 * pekko.actor.serialize-messages = on} to prove it.
 */
public interface KoalaMessage {}
