/**
 * Kryo-based serialization with registration required: the {@link
 * io.koala.serialization.TypeRegistry} (deterministic ids from class names), state codecs and the
 * key encoder. Imports neither Pekko nor lmdbjava.
 */
@Internal
package io.koala.serialization;

import io.koala.Internal;
