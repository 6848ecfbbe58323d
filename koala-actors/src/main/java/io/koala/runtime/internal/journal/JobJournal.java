package io.koala.runtime.internal.journal;

import io.koala.protocol.KoalaMessage;
import io.koala.runtime.internal.journal.JournalEvent.CheckpointCompleted;
import io.koala.runtime.internal.journal.JournalEvent.CheckpointDiscarded;
import io.koala.runtime.internal.journal.JournalEvent.RequestAccepted;
import io.koala.runtime.internal.journal.JournalEvent.RequestFinished;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.BackoffSupervisorStrategy;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.pattern.StatusReply;
import org.apache.pekko.persistence.typed.DeleteEventsFailed;
import org.apache.pekko.persistence.typed.DeleteSnapshotsFailed;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.RecoveryFailed;
import org.apache.pekko.persistence.typed.SnapshotFailed;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.Effect;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.RetentionCriteria;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * The durable checkpoint-metadata journal of one job (DESIGN §8): an event-sourced actor, with
 * persistence id {@code koala-job|<jobId>}, that keeps the job's retained completed checkpoints and
 * its open reconfiguration requests, each as the coordinator's opaque encoded bytes. The
 * JobCoordinator spawns it as a child and is its only client.
 *
 * <p>Every write command replies, with a {@link StatusReply}, only after its event is durably
 * stored (the coordinator notifies tasks of a completed checkpoint only after that reply); a write
 * that changes nothing (a repeated command whose first reply was lost, a discard of a checkpoint no
 * longer retained) replies at once. A command the state forbids (a checkpoint id or request
 * sequence number not above the last one) gets an error reply and persists nothing. {@link Recover}
 * replies with the whole {@link JournalState}; commands that arrive while the journal replays are
 * stashed, so the first {@code Recover} answers with the recovered state.
 *
 * <p>A snapshot is taken every {@link JournalSettings#snapshotEvery()} events, deleting the events
 * and snapshots before the oldest kept one, so replay stays short for a job that runs for months.
 *
 * <p><b>When a write fails</b> (the database is unreachable, the disk is full): Pekko logs the
 * failure at ERROR with the persistence id, this actor logs that the command got no reply, and the
 * journal restarts with exponential backoff and replays from the store. What the coordinator sees:
 *
 * <ul>
 *   <li>the command whose write failed gets <em>no reply</em>: its ask times out, and the
 *       coordinator must treat the write as not durable (no task is notified). Resending the same
 *       command is safe: if the write did reach the store after all, the journal replies without
 *       writing again;
 *   <li>commands sent during the backoff are stashed and handled after the replay;
 *   <li>after {@link JournalSettings#maxRestarts()} failed attempts in a row the journal stops
 *       (logged at ERROR): a coordinator that watches it gets {@code Terminated} and must fail the
 *       job, since its checkpoints can no longer be made durable.
 * </ul>
 *
 * <pre>
 *   spawn ──► replaying ──► running ──persist──► reply (durable)
 *                 ▲             │ write failed
 *                 └─ backoff ◄──┘ (no reply) ── maxRestarts exceeded ──► stopped
 * </pre>
 */
public final class JobJournal
    extends EventSourcedBehavior<JobJournal.Command, JournalEvent, JournalState> {

  /** The persistence id prefix; a job's id follows it. */
  public static final String PERSISTENCE_ID_PREFIX = "koala-job|";

  /** Every class of the journal's protocol, events and state, for serializer registration. */
  public static final List<Class<?>> MESSAGES =
      List.of(
          RecordCheckpoint.class,
          DiscardCheckpoint.class,
          RecordRequest.class,
          RequestDone.class,
          Recover.class,
          StartIncarnation.class,
          RestoredCheckpoint.class,
          RecordEnd.class,
          EndAck.class,
          CheckpointAck.class,
          DiscardAck.class,
          RequestAck.class,
          RequestDoneAck.class,
          CheckpointCompleted.class,
          CheckpointDiscarded.class,
          RequestAccepted.class,
          RequestFinished.class,
          JournalEvent.CoordinatorStarted.class,
          JournalEvent.JobEnded.class,
          JournalState.class,
          JournalState.Checkpoint.class,
          JournalState.Request.class,
          Blob.class);

  /** The journal's protocol; the JobCoordinator sends every command. */
  public sealed interface Command extends KoalaMessage {}

  /**
   * Records that checkpoint {@code id} completed with the given encoded metadata and keeps only the
   * {@code retain} newest checkpoints. Replies with {@link CheckpointAck} once durable; an error if
   * {@code id} is not above every id recorded before (unless it repeats the newest one exactly).
   */
  public record RecordCheckpoint(
      long id, Blob metadata, int retain, ActorRef<StatusReply<CheckpointAck>> replyTo)
      implements Command {
    public RecordCheckpoint {
      if (id <= 0 || retain < 1 || metadata == null || replyTo == null) {
        throw new IllegalArgumentException(
            "RecordCheckpoint needs id > 0, retain >= 1, metadata and replyTo: id "
                + id
                + ", retain "
                + retain);
      }
    }

    public RecordCheckpoint(
        long id, byte[] metadata, int retain, ActorRef<StatusReply<CheckpointAck>> replyTo) {
      this(id, Blob.of(metadata), retain, replyTo);
    }
  }

  /**
   * Drops checkpoint {@code id} (found corrupt), so recovery falls back to the previous one.
   * Replies with {@link DiscardAck} once durable, at once if the checkpoint is not retained.
   */
  public record DiscardCheckpoint(long id, ActorRef<StatusReply<DiscardAck>> replyTo)
      implements Command {}

  /**
   * Records reconfiguration request {@code seq} as open. Replies with {@link RequestAck} once
   * durable; an error if {@code seq} is not above every one recorded before (unless it repeats an
   * open request exactly).
   */
  public record RecordRequest(long seq, Blob request, ActorRef<StatusReply<RequestAck>> replyTo)
      implements Command {
    public RecordRequest {
      if (seq <= 0 || request == null || replyTo == null) {
        throw new IllegalArgumentException(
            "RecordRequest needs seq > 0, request and replyTo: seq " + seq);
      }
    }

    public RecordRequest(long seq, byte[] request, ActorRef<StatusReply<RequestAck>> replyTo) {
      this(seq, Blob.of(request), replyTo);
    }
  }

  /**
   * Marks request {@code seq} done. Replies with {@link RequestDoneAck} once durable, at once if
   * the request is not open.
   */
  public record RequestDone(long seq, ActorRef<StatusReply<RequestDoneAck>> replyTo)
      implements Command {}

  /** Asks for the journal's state; replies with the {@link JournalState} (after replay). */
  public record Recover(ActorRef<JournalState> replyTo) implements Command {}

  /**
   * A sharded coordinator starts on the journal: records {@link JournalEvent.CoordinatorStarted}
   * and replies with the state after it (after replay), once durable. With {@code restored} (not
   * null: the checkpoint a submission asked the job to start from) on a journal with no checkpoint
   * recorded, that checkpoint is recorded too, in the same write: a coordinator that starts again
   * before the job took a checkpoint of its own resumes from it, not from nothing.
   */
  public record StartIncarnation(ActorRef<JournalState> replyTo, RestoredCheckpoint restored)
      implements Command {

    /** A start that records no restored checkpoint. */
    public StartIncarnation(ActorRef<JournalState> replyTo) {
      this(replyTo, null);
    }
  }

  /** A checkpoint of another job (or a savepoint) a job starts from: its id and metadata. */
  public record RestoredCheckpoint(long id, Blob metadata, int retain) implements KoalaMessage {
    public RestoredCheckpoint {
      if (id <= 0 || retain < 1 || metadata == null) {
        throw new IllegalArgumentException(
            "RestoredCheckpoint needs id > 0, retain >= 1 and metadata: id " + id);
      }
    }
  }

  /**
   * Records that the job ended with {@code status} ({@code error}: why it failed, or null). Replies
   * with {@link EndAck} once durable, at once if an end is recorded already.
   */
  public record RecordEnd(String status, String error, ActorRef<StatusReply<EndAck>> replyTo)
      implements Command {}

  /** The job's end is durable. */
  public record EndAck(String status) implements KoalaMessage {}

  /**
   * Checkpoint {@code id} is durable. {@code released}: the checkpoints the retention rule dropped
   * with it (ascending), whose files the coordinator may delete.
   */
  public record CheckpointAck(long id, List<Long> released) implements KoalaMessage {
    public CheckpointAck {
      released = List.copyOf(released);
    }
  }

  /** Checkpoint {@code id} is no longer retained; {@code wasRetained}: whether it was until now. */
  public record DiscardAck(long id, boolean wasRetained) implements KoalaMessage {}

  /** Request {@code seq} is durably open. */
  public record RequestAck(long seq) implements KoalaMessage {}

  /** Request {@code seq} is durably done. */
  public record RequestDoneAck(long seq) implements KoalaMessage {}

  private final ActorContext<Command> context;
  private final String jobId;
  private final JournalSettings settings;

  private JobJournal(
      ActorContext<Command> context,
      String jobId,
      JournalSettings settings,
      Optional<BackoffSupervisorStrategy> onPersistFailure) {
    super(PersistenceId.ofUniqueId(PERSISTENCE_ID_PREFIX + jobId), onPersistFailure);
    this.context = context;
    this.jobId = jobId;
    this.settings = settings;
  }

  /** The journal of job {@code jobId}. */
  public static Behavior<Command> create(String jobId, JournalSettings settings) {
    if (jobId == null || jobId.isEmpty()) {
      throw new IllegalArgumentException("jobId must not be empty");
    }
    Optional<BackoffSupervisorStrategy> onPersistFailure =
        settings.maxRestarts() == 0
            ? Optional.empty()
            : Optional.of(
                SupervisorStrategy.restartWithBackoff(
                        settings.minBackoff(), settings.maxBackoff(), 0.2)
                    .withMaxRestarts(settings.maxRestarts()));
    return Behaviors.setup(ctx -> new JobJournal(ctx, jobId, settings, onPersistFailure));
  }

  /** The persistence id of job {@code jobId}'s journal. */
  public static PersistenceId persistenceIdOf(String jobId) {
    return PersistenceId.ofUniqueId(PERSISTENCE_ID_PREFIX + jobId);
  }

  @Override
  public JournalState emptyState() {
    return JournalState.EMPTY;
  }

  @Override
  public String journalPluginId() {
    return settings.journalPluginId();
  }

  @Override
  public String snapshotPluginId() {
    return settings.snapshotPluginId();
  }

  @Override
  public RetentionCriteria retentionCriteria() {
    return RetentionCriteria.snapshotEvery(settings.snapshotEvery(), settings.keepSnapshots())
        .withDeleteEventsOnSnapshot();
  }

  @Override
  public CommandHandler<Command, JournalEvent, JournalState> commandHandler() {
    return newCommandHandlerBuilder()
        .forAnyState()
        .onCommand(RecordCheckpoint.class, this::onRecordCheckpoint)
        .onCommand(DiscardCheckpoint.class, this::onDiscardCheckpoint)
        .onCommand(RecordRequest.class, this::onRecordRequest)
        .onCommand(RequestDone.class, this::onRequestDone)
        .onCommand(Recover.class, (state, c) -> Effect().reply(c.replyTo(), state))
        .onCommand(
            StartIncarnation.class,
            (state, c) ->
                Effect()
                    .persist(incarnationEvents(state, c.restored()))
                    .thenReply(c.replyTo(), s -> s))
        .onCommand(
            RecordEnd.class,
            (state, c) ->
                state.endedStatus() != null
                    ? Effect()
                        .reply(c.replyTo(), StatusReply.success(new EndAck(state.endedStatus())))
                    : Effect()
                        .persist(new JournalEvent.JobEnded(c.status(), c.error()))
                        .thenReply(c.replyTo(), s -> StatusReply.success(new EndAck(c.status()))))
        .build();
  }

  /**
   * A coordinator's start, and the checkpoint it restores when the journal has none (on a journal
   * that has, the job ran here before: its own checkpoints are newer).
   */
  private static List<JournalEvent> incarnationEvents(
      JournalState state, RestoredCheckpoint restored) {
    if (restored == null
        || !state.checkpoints().isEmpty()
        || restored.id() <= state.lastCheckpointId()) {
      return List.of(new JournalEvent.CoordinatorStarted());
    }
    return List.of(
        new JournalEvent.CoordinatorStarted(),
        new CheckpointCompleted(restored.id(), restored.metadata(), restored.retain()));
  }

  private Effect<JournalEvent, JournalState> onRecordCheckpoint(
      JournalState state, RecordCheckpoint c) {
    if (c.id() <= state.lastCheckpointId()) {
      if (state.checkpoint(c.id()).filter(k -> k.metadata().equals(c.metadata())).isPresent()) {
        return Effect()
            .reply(c.replyTo(), StatusReply.success(new CheckpointAck(c.id(), List.of())));
      }
      return Effect()
          .reply(
              c.replyTo(),
              StatusReply.error(
                  "job "
                      + jobId
                      + ": checkpoint "
                      + c.id()
                      + " is not above the last recorded checkpoint "
                      + state.lastCheckpointId()));
    }
    List<Long> released = state.evictedBy(c.retain());
    return Effect()
        .persist(new CheckpointCompleted(c.id(), c.metadata(), c.retain()))
        .thenReply(c.replyTo(), s -> StatusReply.success(new CheckpointAck(c.id(), released)));
  }

  private Effect<JournalEvent, JournalState> onDiscardCheckpoint(
      JournalState state, DiscardCheckpoint c) {
    if (state.checkpoint(c.id()).isEmpty()) {
      return Effect().reply(c.replyTo(), StatusReply.success(new DiscardAck(c.id(), false)));
    }
    return Effect()
        .persist(new CheckpointDiscarded(c.id()))
        .thenReply(c.replyTo(), s -> StatusReply.success(new DiscardAck(c.id(), true)));
  }

  private Effect<JournalEvent, JournalState> onRecordRequest(JournalState state, RecordRequest c) {
    if (c.seq() <= state.lastRequestSeq()) {
      if (state.request(c.seq()).filter(r -> r.request().equals(c.request())).isPresent()) {
        return Effect().reply(c.replyTo(), StatusReply.success(new RequestAck(c.seq())));
      }
      return Effect()
          .reply(
              c.replyTo(),
              StatusReply.error(
                  "job "
                      + jobId
                      + ": request "
                      + c.seq()
                      + " is not above the last recorded request "
                      + state.lastRequestSeq()));
    }
    return Effect()
        .persist(new RequestAccepted(c.seq(), c.request()))
        .thenReply(c.replyTo(), s -> StatusReply.success(new RequestAck(c.seq())));
  }

  private Effect<JournalEvent, JournalState> onRequestDone(JournalState state, RequestDone c) {
    if (state.request(c.seq()).isEmpty()) {
      return Effect().reply(c.replyTo(), StatusReply.success(new RequestDoneAck(c.seq())));
    }
    return Effect()
        .persist(new RequestFinished(c.seq()))
        .thenReply(c.replyTo(), s -> StatusReply.success(new RequestDoneAck(c.seq())));
  }

  @Override
  public EventHandler<JournalState, JournalEvent> eventHandler() {
    return (state, event) -> state.updated(event);
  }

  @Override
  public SignalHandler<JournalState> signalHandler() {
    return newSignalHandlerBuilder()
        .onSignal(
            RecoveryCompleted.instance(),
            state ->
                context
                    .getLog()
                    .debug(
                        "job {}: journal recovered, checkpoints {}, open requests {}",
                        jobId,
                        state.checkpointIds(),
                        state.requestSeqs()))
        .onSignal(
            RecoveryFailed.class,
            (state, s) ->
                context.getLog().error("job {}: journal recovery failed", jobId, s.getFailure()))
        .onSignal(
            PreRestart.instance(),
            state ->
                context
                    .getLog()
                    .error(
                        "job {}: journal store failed (a write or the replay); a command being"
                            + " written got no reply; restarting with backoff (at most {} times in"
                            + " a row) and replaying",
                        jobId,
                        settings.maxRestarts()))
        .onSignal(
            SnapshotFailed.class,
            (state, s) ->
                context
                    .getLog()
                    .warn(
                        "job {}: journal snapshot failed (replay gets longer)",
                        jobId,
                        s.getFailure()))
        .onSignal(
            DeleteEventsFailed.class,
            (state, s) ->
                context
                    .getLog()
                    .warn("job {}: deleting old journal events failed", jobId, s.getFailure()))
        .onSignal(
            DeleteSnapshotsFailed.class,
            (state, s) ->
                context
                    .getLog()
                    .warn("job {}: deleting old journal snapshots failed", jobId, s.getFailure()))
        .build();
  }
}
