package io.koala.coordinator;

import io.koala.protocol.KoalaMessage;

/**
 * A task's snapshot to restore from: checkpoint {@code checkpointId}'s {@code file}; {@code
 * holder}: the task resumes finished (a retired holder, or a task whose inputs had all ended).
 */
public record TaskRestore(long checkpointId, String file, boolean holder) implements KoalaMessage {}
