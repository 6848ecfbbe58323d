package io.koala.coordinator;

import static io.koala.job.ReconfigurationException.Reason.JOB_ENDING;

import io.koala.job.ErrorInfo;
import io.koala.job.ReconfigurationException;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.routing.PartitionPolicy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The workers (DESIGN §9): which are lost, which joined, which are leaving ({@link WorkerPool}). A
 * lost worker that hosted tasks of the job rolls it back, its tasks restored on the others; a
 * worker that joins takes tasks from then on, and the {@code scale-on-join} operators grow onto it;
 * the job's tasks move off a leaving worker as {@link Departure} decides — keyed owners by
 * migration, holders once drained, the other tasks by a checkpoint taken for it and a rollback that
 * restores them elsewhere — and the leave is answered once none is left there.
 */
final class Departures {
  /** What the departures ask of and tell the job's other parts. */
  interface Parts {
    /** The job fails with {@code error} ({@link JobLifecycle}). */
    void fail(ErrorInfo error);

    /** A failure: the job rolls back, or fails without restarts left ({@link Recovery}). */
    void failed(ErrorInfo error);

    /** The job rolls back now, counting no restart ({@code cause}: why). */
    void rollback(String cause);

    /** Queued requests that place tasks on a worker no longer placeable are refused. */
    void refuseUnplaceable();

    /** Queues {@code request} like a user's ({@link RequestQueue}). */
    void reconfigure(JobInput.Reconfigure request);

    /** Queues the migration of {@code migration}'s task off leaving worker {@code from}. */
    void migrate(Change.Migrate migration, int from);

    /** The next queued epoch starts, if it may ({@link EpochRunner}). */
    void startNextEpoch();

    /** Whether the running epoch is deploying tasks on worker {@code w}. */
    boolean epochDeployingOn(int w);

    /** Whether a source has read all its input: the job is finishing ({@link Turns}). */
    boolean finishing();

    /** The first source that read all its input. */
    TaskId firstEnded();

    /** A checkpoint to relocate the tasks only a restore moves ({@link JobCheckpoints}). */
    void askRelocationCheckpoint();
  }

  private final JobSetup setup;
  private final Outbox out;
  private final JobState state;
  private final Attempts attempts;
  private final TaskRoster roster;
  private final CurrentStatus job;
  private final Parts parts;
  private final boolean checkpointsOn;
  private WorkerPool pool; // the workers not lost, and those leaving
  private final Map<Integer, List<ReplyTo<JobReply.WorkerDrained>>> departures = new TreeMap<>();
  private final Set<TaskId> departing = new HashSet<>(); // their migrations, queued or running
  private boolean relocationAsked; // a checkpoint to relocate the tasks of leaving workers
  private boolean replan; // a migration they asked for was overtaken: plan them again

  Departures(
      JobSetup setup,
      Outbox out,
      JobState state,
      Attempts attempts,
      TaskRoster roster,
      CurrentStatus job,
      Parts parts) {
    this.setup = setup;
    this.out = out;
    this.state = state;
    this.attempts = attempts;
    this.roster = roster;
    this.job = job;
    this.parts = parts;
    this.checkpointsOn = setup.checkpointing() != null;
    this.pool = setup.workers().pool(); // some worker is placeable: the runtime checked
  }

  /** An input about the workers. */
  void on(JobInput.Workers input) {
    if (input instanceof JobInput.WorkerLost m) {
      onWorkerLost(m);
    } else if (input instanceof JobInput.WorkerJoined m) {
      onWorkerJoined(m);
    } else if (input instanceof JobInput.DrainWorker m) {
      onDrainWorker(m);
    } else if (input instanceof JobInput.RelocationCheckpointed m) {
      onRelocationCheckpointed(m);
    } else {
      throw new IllegalStateException("unhandled " + input);
    }
  }

  WorkerPool pool() {
    return pool;
  }

  /**
   * Worker {@code w} stopped or its node went away. It is lost for good: no task is placed on it
   * again. If it hosted tasks of the job (or was deploying some), the job rolls back and its tasks
   * are restored on the remaining workers ({@link WorkerPool#replacements}); without checkpoints,
   * or when no worker remains, the job fails naming it.
   */
  void onWorkerLost(JobInput.WorkerLost m) {
    int w = m.worker();
    if (!pool.available(w)) {
      return;
    }
    pool = pool.without(w);
    if (job.ended()) {
      return;
    }
    if (departures.containsKey(w)) {
      departed(
          w,
          "worker "
              + w
              + " was lost before the tasks of job "
              + out.jobId()
              + " were moved off; the job recovers as from a crash");
    }
    parts.refuseUnplaceable();
    List<TaskId> hosted = new ArrayList<>();
    for (TaskId t : roster.ids()) {
      if (!roster.isReleased(t) && state.deployment().placement(t) == w) {
        hosted.add(t);
      }
    }
    for (TaskId t : roster.deployingOn(w)) {
      if (!hosted.contains(t)) {
        hosted.add(t);
      }
    }
    boolean affected = !hosted.isEmpty() || parts.epochDeployingOn(w);
    if (affected) {
      out.log()
          .warn(
              "job {}: worker {} is lost{}; workers left: {}",
              out.jobId(),
              w,
              hosted.isEmpty() ? "" : " with tasks " + hosted,
              pool.survivors());
    } else {
      out.log().info("job {}: worker {} is gone, with none of its tasks", out.jobId(), w);
    }
    TaskId where = new TaskId(new OperatorId("worker"), w);
    if (pool.exhausted()) {
      parts.fail(
          ErrorInfo.of(
              "worker",
              where,
              null,
              new IllegalStateException(
                  "every worker of job "
                      + out.jobId()
                      + " is lost (workers "
                      + pool.lost()
                      + ")")));
      return;
    }
    if (!affected) {
      return; // none of the job's tasks was there: placement avoids it from now on
    }
    String lost =
        "worker "
            + w
            + " is lost (it stopped, or its node went away) with tasks "
            + hosted
            + " of job "
            + out.jobId();
    ErrorInfo error =
        ErrorInfo.of(
            "worker",
            where,
            null,
            new IllegalStateException(
                !checkpointsOn
                    ? lost + "; without checkpoints (koala.checkpoint.interval = off) they are lost"
                    : lost + "; workers left: " + pool.survivors()));
    if (attempts.recovering() && !job.ended()) {
      // part of the failure being recovered from (a takeover recovers while still DEPLOYING: its
      // node learns of the previous coordinator's node going away only now)
      parts.rollback(error.describe());
      return;
    }
    parts.failed(error);
  }

  /** A worker joined: it may get tasks, and the {@code scale-on-join} operators grow onto it. */
  void onWorkerJoined(JobInput.WorkerJoined m) {
    int w = m.worker();
    if (w < pool.size()) {
      return; // known already
    }
    pool = pool.joined(w);
    out.emit(new JobEffect.WatchWorker(w, m.address()));
    out.log()
        .info(
            "job {}: worker {} joined; workers that take tasks: {}",
            out.jobId(),
            w,
            pool.placeable());
    if (job.ended()) {
      return;
    }
    for (String operator : setup.reconfiguration().scaleOnJoin()) {
      OperatorId vertex = setup.plan().vertexOf(new OperatorId(operator)).id();
      List<TaskId> tasks = state.deployment().liveTaskIds(vertex);
      int parallelism = tasks.size();
      Set<Integer> hosts = new HashSet<>();
      for (TaskId t : tasks) {
        hosts.add(state.deployment().placement(t));
      }
      int buckets = state.deployment().setup(tasks.get(0)).buckets();
      int target = WorkerPool.parallelismOnJoin(parallelism, hosts.size(), buckets);
      if (target > parallelism) {
        out.log()
            .info(
                "job {}: scaling {} from {} to {} tasks onto worker {}"
                    + " (koala.cluster.scale-on-join)",
                out.jobId(),
                operator,
                parallelism,
                target,
                w);
        parts.reconfigure(
            new JobInput.Reconfigure(
                new Change.Rescale(operator, target, PartitionPolicy.even(), w), outcome -> {}));
      }
    }
  }

  /** A worker's node is leaving: no task goes there any more, and the job's tasks move off. */
  void onDrainWorker(JobInput.DrainWorker m) {
    int w = m.worker();
    if (!pool.available(w)) {
      out.reply(
          m.replyTo(),
          new JobReply.WorkerDrained(
              out.jobId(),
              w,
              pool.size() > w && w >= 0
                  ? null // lost already: nothing of the job runs there
                  : "job " + out.jobId() + " has no worker " + w));
      return;
    }
    if (job.ended()) {
      out.reply(m.replyTo(), new JobReply.WorkerDrained(out.jobId(), w, null));
      return;
    }
    pool = pool.leavingOne(w);
    parts.refuseUnplaceable(); // queued migrations to it
    departures.computeIfAbsent(w, k -> new ArrayList<>()).add(m.replyTo());
    out.log()
        .info(
            "job {}: worker {} is leaving; moving its tasks to workers {}",
            out.jobId(),
            w,
            pool.placeable());
    advance();
  }

  /**
   * Moves the job's tasks off every leaving worker one step further ({@link Departure#next}), and
   * answers the departures that are complete. Called whenever that may have changed: an epoch or a
   * deployment ended, a holder was released, a relocation's checkpoint committed.
   */
  void advance() {
    if (departures.isEmpty() || !job.running()) {
      return;
    }
    String busy = attempts.recovering() ? "a recovery under way" : null;
    for (int w : List.copyOf(departures.keySet())) {
      Departure.Step step =
          Departure.next(
              w,
              hostedOn(w),
              departing,
              busy != null ? busy : deployingOn(w),
              checkpointsOn,
              pool,
              loadByOperator());
      if (step instanceof Departure.Done) {
        departed(w, null);
      } else if (step instanceof Departure.Fail f) {
        departed(w, f.reason());
      } else if (step instanceof Departure.Relocate r) {
        if (!relocationAsked) {
          relocationAsked = true;
          out.log()
              .info(
                  "job {}: tasks {} of leaving worker {} move by a checkpoint and a restore",
                  out.jobId(),
                  r.tasks(),
                  w);
          parts.askRelocationCheckpoint();
        }
      } else if (step instanceof Departure.Migrate mg) {
        for (Change.Migrate c : mg.requests()) {
          departing.add(c.taskId());
          parts.migrate(c, w);
        }
        parts.startNextEpoch();
      }
    }
  }

  /**
   * Plans the departures again once a migration they asked for was rejected as overtaken ({@link
   * #migrationRejected}); not from within the rejection, which runs while the queue is being
   * iterated.
   */
  void replan() {
    if (replan) {
      replan = false;
      advance();
    }
  }

  /** A migration a departure asked for is done. */
  void migrated(Change.Migrate migration) {
    departing.remove(migration.taskId());
  }

  /** A migration off leaving worker {@code from} was rejected with {@code reason}. */
  void migrationRejected(
      Change.Migrate migration, int from, ReconfigurationException.Reason kind, String reason) {
    departing.remove(migration.taskId());
    if (kind == JOB_ENDING) {
      return; // the departure is answered when the job ends
    }
    if (!hostedOn(from).owners().contains(migration.taskId())
        || !pool.placeable(migration.worker())) {
      // overtaken while queued: the task was retired (a scale-in) or moved, or its target is
      // leaving or lost now; the departure is planned again from what is there now
      out.log()
          .info(
              "job {}: {} is void ({}); planning the departure again",
              out.jobId(),
              migration,
              reason);
      replan = true;
    } else {
      departed(from, "cannot migrate " + migration + ": " + reason);
    }
  }

  /** The job ended: its tasks stop with it, so every leaving worker is answered. */
  void jobEnded() {
    for (int w : List.copyOf(departures.keySet())) {
      departed(w, null);
    }
  }

  /** The job's tasks on worker {@code w}, by what can move them. */
  private Departure.Hosted hostedOn(int w) {
    List<TaskId> owners = new ArrayList<>();
    List<TaskId> unmovable = new ArrayList<>();
    List<TaskId> holders = new ArrayList<>();
    for (TaskId t : roster.ids()) {
      if (state.deployment().placement(t) != w) {
        continue;
      }
      if (roster.isReleased(t)
          || state.deployment().retired().contains(t)
          || roster.hasFinished(t)) {
        // stops once drained, or with the job; released, it is there until HolderReleased
        holders.add(t);
      } else if (setup.plan().vertex(t.operator()).reconfigurable()) {
        owners.add(t); // moves live, by a migration
      } else {
        unmovable.add(t);
      }
    }
    return new Departure.Hosted(owners, unmovable, holders);
  }

  /** Why nothing may start on worker {@code w} now: tasks are being deployed there. */
  private String deployingOn(int w) {
    if (!roster.deployingOn(w).isEmpty() || parts.epochDeployingOn(w)) {
      return "tasks being deployed on worker " + w;
    }
    if (parts.finishing()) {
      return "the job finishing (source task " + parts.firstEnded() + " read all its input)";
    }
    return null;
  }

  /** The live tasks of each keyed operator per worker. */
  private Map<String, int[]> loadByOperator() {
    Map<String, int[]> load = new HashMap<>();
    for (TaskId t : roster.ids()) {
      if (!roster.isReleased(t) && !state.deployment().retired().contains(t)) {
        load.computeIfAbsent(t.operator().name(), k -> new int[pool.size()])[
            state.deployment().placement(t)]++;
      }
    }
    return load;
  }

  /** The departure of worker {@code w} is over: answers whoever waits for it. */
  private void departed(int w, String error) {
    List<ReplyTo<JobReply.WorkerDrained>> waiting = departures.remove(w);
    if (waiting == null) {
      return;
    }
    if (error == null) {
      out.log().info("job {}: no task left on leaving worker {}", out.jobId(), w);
    } else {
      out.log().warn("job {}: leaving worker {}: {}", out.jobId(), w, error);
    }
    for (ReplyTo<JobReply.WorkerDrained> r : waiting) {
      out.reply(r, new JobReply.WorkerDrained(out.jobId(), w, error));
    }
  }

  /**
   * The checkpoint asked for to relocate the tasks of leaving workers committed: the job rolls back
   * to it at once, and the restore places every task of a leaving worker elsewhere ({@link
   * WorkerPool#replacements}). No restart is counted: nothing failed.
   */
  void onRelocationCheckpointed(JobInput.RelocationCheckpointed m) {
    relocationAsked = false;
    if (!job.running()) {
      return;
    }
    if (m.error() != null) {
      out.log()
          .warn(
              "job {}: the checkpoint to relocate tasks did not complete: {}",
              out.jobId(),
              m.error());
      advance(); // asks again if still needed (a rollback may have moved them already)
      return;
    }
    List<Integer> stranded = new ArrayList<>();
    for (int w : departures.keySet()) {
      if (!hostedOn(w).unmovable().isEmpty()) {
        stranded.add(w);
      }
    }
    if (stranded.isEmpty() || attempts.recovering()) {
      advance();
      return;
    }
    parts.rollback(
        "leaving workers "
            + stranded
            + " hold tasks that move only by a restore: relocating them from checkpoint "
            + m.checkpointId());
  }
}
