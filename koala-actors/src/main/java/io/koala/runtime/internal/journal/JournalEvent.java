package io.koala.runtime.internal.journal;

import io.koala.protocol.KoalaMessage;

/**
 * The events of a job's journal, as stored by Pekko Persistence (serialized with Koala's Kryo
 * serializer: their class names fix their serialization ids, so renaming one makes existing
 * journals unreadable).
 */
public sealed interface JournalEvent extends KoalaMessage {

  /** Checkpoint {@code id} completed; only the {@code retain} newest checkpoints are kept. */
  record CheckpointCompleted(long id, Blob metadata, int retain) implements JournalEvent {
    public CheckpointCompleted {
      if (id <= 0 || retain < 1 || metadata == null) {
        throw new IllegalArgumentException(
            "invalid checkpoint event: id " + id + ", retain " + retain + ", " + metadata);
      }
    }
  }

  /** Checkpoint {@code id} was found corrupt (or is otherwise unusable) and is dropped. */
  record CheckpointDiscarded(long id) implements JournalEvent {}

  /** Reconfiguration request {@code seq} was accepted and is open until finished. */
  record RequestAccepted(long seq, Blob request) implements JournalEvent {
    public RequestAccepted {
      if (seq <= 0 || request == null) {
        throw new IllegalArgumentException("invalid request event: seq " + seq);
      }
    }
  }

  /** Reconfiguration request {@code seq} is done (completed or rejected). */
  record RequestFinished(long seq) implements JournalEvent {}

  /**
   * A sharded coordinator started on this journal (DESIGN §9): each one numbers its attempts above
   * every earlier one's, so that its tasks never take the names of tasks a previous coordinator
   * left running.
   */
  record CoordinatorStarted() implements JournalEvent {}

  /**
   * The job ended with {@code status} (a {@code JobStatus} name), {@code error} saying why it
   * failed (or null): a sharded coordinator that starts again on this journal does not run it
   * again.
   */
  record JobEnded(String status, String error) implements JournalEvent {
    public JobEnded {
      if (status == null || status.isEmpty()) {
        throw new IllegalArgumentException("status must not be empty");
      }
    }
  }
}
