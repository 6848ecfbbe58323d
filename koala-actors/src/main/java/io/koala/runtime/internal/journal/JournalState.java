package io.koala.runtime.internal.journal;

import io.koala.protocol.KoalaMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a job's journal holds: the retained completed checkpoints (oldest first) and the open
 * reconfiguration requests (in sequence order), each as the coordinator's opaque bytes. An
 * immutable value; {@link #updated(JournalEvent)} returns the state after an event and checks the
 * event's preconditions, so replay can only rebuild states the command handler accepted.
 *
 * <p>It is at once the journal's in-memory state, its Pekko Persistence snapshot and the reply to
 * {@link JobJournal.Recover}.
 *
 * @param lastCheckpointId the highest checkpoint id ever recorded (0: none), retained or not: the
 *     coordinator numbers its next checkpoint above it
 * @param lastRequestSeq the highest request sequence number ever recorded (0: none)
 * @param checkpoints the retained checkpoints, ascending ids
 * @param requests the open requests, ascending sequence numbers
 * @param incarnations how many coordinators have started on this journal ({@link
 *     JournalEvent.CoordinatorStarted}; only a sharded coordinator records them)
 * @param endedStatus the status the job ended with ({@link JournalEvent.JobEnded}), or null while
 *     it has not ended
 * @param endedError why it failed, or null
 */
public record JournalState(
    long lastCheckpointId,
    long lastRequestSeq,
    List<Checkpoint> checkpoints,
    List<Request> requests,
    int incarnations,
    String endedStatus,
    String endedError)
    implements KoalaMessage {

  /** The state of a journal with no events. */
  public static final JournalState EMPTY = new JournalState(0, 0, List.of(), List.of());

  /** A state with no incarnation recorded and not ended. */
  public JournalState(
      long lastCheckpointId,
      long lastRequestSeq,
      List<Checkpoint> checkpoints,
      List<Request> requests) {
    this(lastCheckpointId, lastRequestSeq, checkpoints, requests, 0, null, null);
  }

  /** A completed checkpoint: its id and the coordinator's encoded metadata. */
  public record Checkpoint(long id, Blob metadata) implements KoalaMessage {
    public Checkpoint {
      if (id <= 0) {
        throw new IllegalArgumentException("checkpoint id must be positive: " + id);
      }
      if (metadata == null) {
        throw new IllegalArgumentException("metadata must not be null");
      }
    }
  }

  /** An open reconfiguration request: its sequence number and the encoded request. */
  public record Request(long seq, Blob request) implements KoalaMessage {
    public Request {
      if (seq <= 0) {
        throw new IllegalArgumentException("request sequence number must be positive: " + seq);
      }
      if (request == null) {
        throw new IllegalArgumentException("request must not be null");
      }
    }
  }

  public JournalState {
    if (incarnations < 0) {
      throw new IllegalArgumentException("incarnations must not be negative: " + incarnations);
    }
    checkpoints = List.copyOf(checkpoints);
    requests = List.copyOf(requests);
    for (int i = 0; i < checkpoints.size(); i++) {
      long id = checkpoints.get(i).id();
      if (id > lastCheckpointId || (i > 0 && checkpoints.get(i - 1).id() >= id)) {
        throw new IllegalArgumentException(
            "checkpoints must ascend up to lastCheckpointId " + lastCheckpointId);
      }
    }
    for (int i = 0; i < requests.size(); i++) {
      long seq = requests.get(i).seq();
      if (seq > lastRequestSeq || (i > 0 && requests.get(i - 1).seq() >= seq)) {
        throw new IllegalArgumentException(
            "requests must ascend up to lastRequestSeq " + lastRequestSeq);
      }
    }
  }

  /** The newest retained checkpoint: the one to restore from. */
  public Optional<Checkpoint> latest() {
    return checkpoints.isEmpty()
        ? Optional.empty()
        : Optional.of(checkpoints.get(checkpoints.size() - 1));
  }

  /** The retained checkpoint {@code id}. */
  public Optional<Checkpoint> checkpoint(long id) {
    return checkpoints.stream().filter(c -> c.id() == id).findFirst();
  }

  /** The open request {@code seq}. */
  public Optional<Request> request(long seq) {
    return requests.stream().filter(r -> r.seq() == seq).findFirst();
  }

  /** The ids of the retained checkpoints, ascending. */
  public List<Long> checkpointIds() {
    return checkpoints.stream().map(Checkpoint::id).toList();
  }

  /** The sequence numbers of the open requests, ascending. */
  public List<Long> requestSeqs() {
    return requests.stream().map(Request::seq).toList();
  }

  /**
   * The ids {@link #updated} would drop when recording checkpoint {@code id} with {@code retain}:
   * the oldest retained ones beyond {@code retain - 1}.
   */
  public List<Long> evictedBy(int retain) {
    int drop = Math.max(0, checkpoints.size() + 1 - retain);
    return checkpoints.subList(0, Math.min(drop, checkpoints.size())).stream()
        .map(Checkpoint::id)
        .toList();
  }

  /**
   * The state after {@code event}.
   *
   * @throws IllegalStateException when the event does not apply to this state (an id not above the
   *     last one)
   */
  public JournalState updated(JournalEvent event) {
    if (event instanceof JournalEvent.CheckpointCompleted e) {
      if (e.id() <= lastCheckpointId) {
        throw new IllegalStateException(
            "checkpoint " + e.id() + " is not above the last recorded one, " + lastCheckpointId);
      }
      List<Checkpoint> kept = new ArrayList<>(checkpoints);
      kept.add(new Checkpoint(e.id(), e.metadata()));
      while (kept.size() > e.retain()) {
        kept.remove(0);
      }
      return with(e.id(), lastRequestSeq, kept, requests);
    } else if (event instanceof JournalEvent.CheckpointDiscarded e) {
      List<Checkpoint> kept = new ArrayList<>(checkpoints);
      kept.removeIf(c -> c.id() == e.id());
      return with(lastCheckpointId, lastRequestSeq, kept, requests);
    } else if (event instanceof JournalEvent.RequestAccepted e) {
      if (e.seq() <= lastRequestSeq) {
        throw new IllegalStateException(
            "request " + e.seq() + " is not above the last recorded one, " + lastRequestSeq);
      }
      List<Request> open = new ArrayList<>(requests);
      open.add(new Request(e.seq(), e.request()));
      return with(lastCheckpointId, e.seq(), checkpoints, open);
    } else if (event instanceof JournalEvent.RequestFinished e) {
      List<Request> open = new ArrayList<>(requests);
      open.removeIf(r -> r.seq() == e.seq());
      return with(lastCheckpointId, lastRequestSeq, checkpoints, open);
    } else if (event instanceof JournalEvent.CoordinatorStarted) {
      return new JournalState(
          lastCheckpointId,
          lastRequestSeq,
          checkpoints,
          requests,
          incarnations + 1,
          endedStatus,
          endedError);
    } else if (event instanceof JournalEvent.JobEnded e) {
      return new JournalState(
          lastCheckpointId,
          lastRequestSeq,
          checkpoints,
          requests,
          incarnations,
          e.status(),
          e.error());
    }
    throw new IllegalStateException("unhandled " + event);
  }

  private JournalState with(
      long lastCheckpointId,
      long lastRequestSeq,
      List<Checkpoint> checkpoints,
      List<Request> requests) {
    return new JournalState(
        lastCheckpointId,
        lastRequestSeq,
        checkpoints,
        requests,
        incarnations,
        endedStatus,
        endedError);
  }
}
