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
  private final JobCore job;
  private WorkerPool pool; // the workers not lost, and those leaving
  private final Map<Integer, List<ReplyTo<JobReply.WorkerDrained>>> departures = new TreeMap<>();
  private final Set<TaskId> departing = new HashSet<>(); // their migrations, queued or running
  private boolean relocationAsked; // a checkpoint to relocate the tasks of leaving workers
  private boolean replan; // a migration they asked for was overtaken: plan them again

  Departures(JobCore job, WorkerPool pool) {
    this.job = job;
    this.pool = pool; // some worker is placeable: the runtime checked
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
    if (job.lifecycle.status().isTerminal()) {
      return;
    }
    if (departures.containsKey(w)) {
      departed(
          w,
          "worker "
              + w
              + " was lost before the tasks of job "
              + job.jobId
              + " were moved off; the job recovers as from a crash");
    }
    job.requests.refuseUnplaceable();
    List<TaskId> hosted = new ArrayList<>();
    for (TaskId t : job.roster.ids()) {
      if (!job.roster.isReleased(t) && job.state.deployment().placement(t) == w) {
        hosted.add(t);
      }
    }
    for (TaskId t : job.roster.deployingOn(w)) {
      if (!hosted.contains(t)) {
        hosted.add(t);
      }
    }
    boolean affected = !hosted.isEmpty() || job.epochs.deployingOn(w);
    if (affected) {
      job.log()
          .warn(
              "job {}: worker {} is lost{}; workers left: {}",
              job.jobId,
              w,
              hosted.isEmpty() ? "" : " with tasks " + hosted,
              pool.survivors());
    } else {
      job.log().info("job {}: worker {} is gone, with none of its tasks", job.jobId, w);
    }
    TaskId where = new TaskId(new OperatorId("worker"), w);
    if (pool.exhausted()) {
      job.lifecycle.fail(
          ErrorInfo.of(
              "worker",
              where,
              null,
              new IllegalStateException(
                  "every worker of job " + job.jobId + " is lost (workers " + pool.lost() + ")")));
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
            + job.jobId;
    ErrorInfo error =
        ErrorInfo.of(
            "worker",
            where,
            null,
            new IllegalStateException(
                !job.checkpoints.on()
                    ? lost + "; without checkpoints (koala.checkpoint.interval = off) they are lost"
                    : lost + "; workers left: " + pool.survivors()));
    if (job.attempts.recovering() && !job.lifecycle.status().isTerminal()) {
      // part of the failure being recovered from (a takeover recovers while still DEPLOYING: its
      // node learns of the previous coordinator's node going away only now)
      job.recovery.rollback(error.describe());
      return;
    }
    job.recovery.failed(error);
  }

  /** A worker joined: it may get tasks, and the {@code scale-on-join} operators grow onto it. */
  void onWorkerJoined(JobInput.WorkerJoined m) {
    int w = m.worker();
    if (w < pool.size()) {
      return; // known already
    }
    pool = pool.joined(w);
    job.emit(new JobEffect.WatchWorker(w, m.address()));
    job.log()
        .info(
            "job {}: worker {} joined; workers that take tasks: {}",
            job.jobId,
            w,
            pool.placeable());
    if (job.lifecycle.status().isTerminal()) {
      return;
    }
    for (String operator : job.setup.scaleOnJoin()) {
      OperatorId vertex = job.plan.vertexOf(new OperatorId(operator)).id();
      List<TaskId> tasks = job.state.deployment().liveTaskIds(vertex);
      int parallelism = tasks.size();
      Set<Integer> hosts = new HashSet<>();
      for (TaskId t : tasks) {
        hosts.add(job.state.deployment().placement(t));
      }
      int buckets = job.state.deployment().setup(tasks.get(0)).buckets();
      int target = WorkerPool.parallelismOnJoin(parallelism, hosts.size(), buckets);
      if (target > parallelism) {
        job.log()
            .info(
                "job {}: scaling {} from {} to {} tasks onto worker {}"
                    + " (koala.cluster.scale-on-join)",
                job.jobId,
                operator,
                parallelism,
                target,
                w);
        job.requests.onReconfigure(
            new JobInput.Reconfigure(
                new Change.Rescale(operator, target, PartitionPolicy.even(), w), outcome -> {}));
      }
    }
  }

  /** A worker's node is leaving: no task goes there any more, and the job's tasks move off. */
  void onDrainWorker(JobInput.DrainWorker m) {
    int w = m.worker();
    if (!pool.available(w)) {
      job.reply(
          m.replyTo(),
          new JobReply.WorkerDrained(
              job.jobId,
              w,
              pool.size() > w && w >= 0
                  ? null // lost already: nothing of the job runs there
                  : "job " + job.jobId + " has no worker " + w));
      return;
    }
    if (job.lifecycle.status().isTerminal()) {
      job.reply(m.replyTo(), new JobReply.WorkerDrained(job.jobId, w, null));
      return;
    }
    pool = pool.leavingOne(w);
    job.requests.refuseUnplaceable(); // queued migrations to it
    departures.computeIfAbsent(w, k -> new ArrayList<>()).add(m.replyTo());
    job.log()
        .info(
            "job {}: worker {} is leaving; moving its tasks to workers {}",
            job.jobId,
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
    if (departures.isEmpty() || !job.lifecycle.running()) {
      return;
    }
    String busy = job.attempts.recovering() ? "a recovery under way" : null;
    for (int w : List.copyOf(departures.keySet())) {
      Departure.Step step =
          Departure.next(
              w,
              hostedOn(w),
              departing,
              busy != null ? busy : deployingOn(w),
              job.checkpoints.on(),
              pool,
              loadByOperator());
      if (step instanceof Departure.Done) {
        departed(w, null);
      } else if (step instanceof Departure.Fail f) {
        departed(w, f.reason());
      } else if (step instanceof Departure.Relocate r) {
        if (!relocationAsked) {
          relocationAsked = true;
          job.log()
              .info(
                  "job {}: tasks {} of leaving worker {} move by a checkpoint and a restore",
                  job.jobId,
                  r.tasks(),
                  w);
          job.checkpoints.ask(JobCheckpoints.RELOCATION);
        }
      } else if (step instanceof Departure.Migrate mg) {
        for (Change.Migrate c : mg.requests()) {
          departing.add(c.taskId());
          RequestQueue.Queued q = new RequestQueue.Queued(c, job.requests.check(c));
          q.departingFrom = w;
          job.requests.add(q);
        }
        job.epochs.startNext();
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
      job.log()
          .info(
              "job {}: {} is void ({}); planning the departure again",
              job.jobId,
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
    for (TaskId t : job.roster.ids()) {
      if (job.state.deployment().placement(t) != w) {
        continue;
      }
      if (job.roster.isReleased(t)
          || job.state.deployment().retired().contains(t)
          || job.roster.hasFinished(t)) {
        // stops once drained, or with the job; released, it is there until HolderReleased
        holders.add(t);
      } else if (EpochDriver.isReconfigurable(job.plan.vertex(t.operator()))) {
        owners.add(t); // moves live, by a migration
      } else {
        unmovable.add(t);
      }
    }
    return new Departure.Hosted(owners, unmovable, holders);
  }

  /** Why nothing may start on worker {@code w} now: tasks are being deployed there. */
  private String deployingOn(int w) {
    if (!job.roster.deployingOn(w).isEmpty() || job.epochs.deployingOn(w)) {
      return "tasks being deployed on worker " + w;
    }
    if (job.turns.finishing()) {
      return "the job finishing (source task " + job.turns.firstEnded() + " read all its input)";
    }
    return null;
  }

  /** The live tasks of each keyed operator per worker. */
  private Map<String, int[]> loadByOperator() {
    Map<String, int[]> load = new HashMap<>();
    for (TaskId t : job.roster.ids()) {
      if (!job.roster.isReleased(t) && !job.state.deployment().retired().contains(t)) {
        load.computeIfAbsent(t.operator().name(), k -> new int[pool.size()])[
            job.state.deployment().placement(t)]++;
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
      job.log().info("job {}: no task left on leaving worker {}", job.jobId, w);
    } else {
      job.log().warn("job {}: leaving worker {}: {}", job.jobId, w, error);
    }
    for (ReplyTo<JobReply.WorkerDrained> r : waiting) {
      job.reply(r, new JobReply.WorkerDrained(job.jobId, w, error));
    }
  }

  /**
   * The checkpoint asked for to relocate the tasks of leaving workers committed: the job rolls back
   * to it at once, and the restore places every task of a leaving worker elsewhere ({@link
   * WorkerPool#replacements}). No restart is counted: nothing failed.
   */
  void onRelocationCheckpointed(JobInput.RelocationCheckpointed m) {
    relocationAsked = false;
    if (!job.lifecycle.running()) {
      return;
    }
    if (m.error() != null) {
      job.log()
          .warn(
              "job {}: the checkpoint to relocate tasks did not complete: {}",
              job.jobId,
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
    if (stranded.isEmpty() || job.attempts.recovering()) {
      advance();
      return;
    }
    job.recovery.rollback(
        "leaving workers "
            + stranded
            + " hold tasks that move only by a restore: relocating them from checkpoint "
            + m.checkpointId());
  }
}
