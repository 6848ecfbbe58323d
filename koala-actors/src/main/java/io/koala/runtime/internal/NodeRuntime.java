package io.koala.runtime.internal;

import io.koala.coordinator.JobInput;
import io.koala.protocol.KoalaMessage;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.internal.journal.JournalSettings;
import io.koala.time.DurationText;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.RecipientRef;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;
import org.apache.pekko.cluster.sharding.typed.ClusterShardingSettings;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Koala on one node of a cluster (DESIGN §9): a {@link ActorRuntime} in the node's ActorSystem, the
 * node's worker, and its <b>directory</b>. Workers and directories find each other through the
 * Receptionist (with Pekko Cluster's provider, it spans the cluster):
 *
 * <ul>
 *   <li>every worker that appears — its node came Up — is given the next index by each node's
 *       directory and offered to the jobs coordinated there ({@link ActorRuntime#addWorker});
 *   <li>a worker that disappears — its node left or was downed and removed — is lost for those jobs
 *       ({@link ActorRuntime#workerLost}); their coordinators' DeathWatch says the same;
 *   <li>a node that leaves gracefully first asks every directory to drain its worker ({@link
 *       #drainThisNode}): each moves the tasks of its jobs off and answers when none is left.
 * </ul>
 *
 * <p>The ActorSystem must use Pekko Cluster's provider (or be a single node) and Koala's
 * serialization settings. Thread-safe.
 */
public final class NodeRuntime implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NodeRuntime.class);

  static final ServiceKey<Worker.Command> WORKERS =
      ServiceKey.create(Worker.Command.class, "koala-worker");
  static final ServiceKey<Command> DIRECTORIES =
      ServiceKey.create(Command.class, "koala-directory");

  /** Jobs' coordinators as Cluster Sharding entities, keyed by job id (DESIGN §9). */
  static final EntityTypeKey<JobInput> COORDINATORS =
      EntityTypeKey.create(JobInput.class, "koala-job");

  /** What a directory understands. */
  public interface Command extends KoalaMessage {}

  /** Receptionist (adapted): the workers registered in the cluster now, unreachable ones too. */
  record WorkersListed(List<ActorRef<Worker.Command>> workers) implements Command {}

  /**
   * A leaving node → every directory: move your jobs' tasks off {@code worker}; reply when done.
   */
  record Drain(ActorRef<Worker.Command> worker, ActorRef<Drained> replyTo) implements Command {}

  /**
   * Reply to {@link Drain}: what could not be moved ({@code problems} empty: nothing is left; null
   * only in the asker's own timeout).
   */
  record Drained(List<String> problems) implements KoalaMessage {}

  /** Self: the drain for {@code replyTo} ended. */
  record DrainEnded(ActorRef<Drained> replyTo, List<String> problems) implements Command {}

  /** A node → a directory: which jobs are coordinated on your node? */
  record ListJobs(ActorRef<JobsListed> replyTo) implements Command {}

  /** Reply to {@link ListJobs}: the coordinators running on the directory's node. */
  record JobsListed(List<Listed> jobs) implements KoalaMessage {}

  /** A job's coordinator, as a directory lists it. */
  record Listed(String jobId, ActorRef<JobInput> coordinator) implements KoalaMessage {}

  /**
   * A job coordinated somewhere in the cluster.
   *
   * @param node the address of the coordinator's node, {@code pekko://<system>@host:port}
   */
  public record ClusterJob(String jobId, String node, ActorRef<JobInput> coordinator) {}

  /**
   * The cluster's jobs as the directories answered: {@code jobs} by job id then node, and the nodes
   * whose directory did not answer in time ({@code silent}: their jobs are missing).
   */
  public record JobListing(List<ClusterJob> jobs, List<String> silent) {
    /** The jobs with id {@code jobId}: one, or none, or (on a cluster without failover) more. */
    public List<ClusterJob> withId(String jobId) {
      return jobs.stream().filter(j -> j.jobId().equals(jobId)).toList();
    }

    /** The ids of the jobs listed, sorted, once each. */
    public java.util.SortedSet<String> ids() {
      java.util.SortedSet<String> out = new java.util.TreeSet<>();
      jobs.forEach(j -> out.add(j.jobId()));
      return out;
    }
  }

  private final ActorSystem<Void> system;
  private final ActorRuntime core;
  private final ActorRef<Worker.Command> worker; // null: this node runs no tasks
  // a job's sharded coordinator (when coordinators fail over), by job id; null otherwise
  private final java.util.function.Function<String, RecipientRef<JobInput>> sharded;
  private final java.util.concurrent.atomic.AtomicBoolean closed =
      new java.util.concurrent.atomic.AtomicBoolean();

  private NodeRuntime(ActorSystem<Void> system, KoalaConfig config, boolean runsTasks) {
    this.system = system;
    this.core = ActorRuntime.onNode(system, config);
    try {
      this.worker = runsTasks ? core.startWorker() : null;
      system.systemActorOf(directory(core), "koala-directory", Props.empty());
      if (core.sharedJournal()) {
        this.sharded = shardCoordinators(system, config, core);
      } else {
        this.sharded = null;
        LOG.info(
            "node {}: a job's coordinator runs on the node it is submitted on and ends with it"
                + " (coordinators fail over only with checkpoints and koala.journal.store = jdbc,"
                + " a journal every node shares)",
            system.address());
      }
      if (worker != null) {
        system.receptionist().tell(Receptionist.register(WORKERS, worker));
      }
    } catch (RuntimeException e) {
      core.close();
      throw e;
    }
  }

  /**
   * Runs jobs' coordinators as Cluster Sharding entities on the members with {@code
   * koala.cluster.coordinator-role}, remembered in the shared journal: the entity of a node that
   * leaves or is downed starts again on another member, which resumes the job from the journal.
   */
  private static java.util.function.Function<String, RecipientRef<JobInput>> shardCoordinators(
      ActorSystem<Void> system, KoalaConfig config, ActorRuntime core) {
    ClusterSharding sharding = ClusterSharding.get(system);
    JournalSettings journal = core.journalSettings();
    ClusterShardingSettings settings =
        ClusterShardingSettings.create(system)
            .withRememberEntities(true)
            .withRememberEntitiesStoreMode(
                ClusterShardingSettings.rememberEntitiesStoreModeEventSourced())
            // the shard coordinator's own state in the journal too: nothing on a node's disk
            .withStateStoreMode(ClusterShardingSettings.stateStoreModePersistence())
            .withJournalPluginId(journal.journalPluginId())
            .withSnapshotPluginId(journal.snapshotPluginId());
    String role = config.coordinatorRole();
    if (!role.isEmpty()) {
      settings = settings.withRole(role);
    }
    ShardedCoordinatorEntity entity = core.coordinatorEntities();
    sharding.init(
        Entity.of(COORDINATORS, ctx -> entity.behavior(ctx.getEntityId())).withSettings(settings));
    java.util.function.Function<String, RecipientRef<JobInput>> entities =
        jobId -> sharding.entityRefFor(COORDINATORS, jobId);
    core.coordinateBySharding(entities);
    LOG.info(
        "node {}: jobs' coordinators are Cluster Sharding entities on {} and fail over",
        system.address(),
        role.isEmpty() ? "any member" : "the members with role " + role);
    return entities;
  }

  /**
   * Starts Koala on the node of {@code system}: its runtime, its directory, and unless {@code
   * runsTasks} is false its worker (a node without one coordinates jobs and runs no task).
   */
  public static NodeRuntime start(ActorSystem<Void> system, KoalaConfig config, boolean runsTasks) {
    return new NodeRuntime(system, config, runsTasks);
  }

  public ActorRuntime core() {
    return core;
  }

  /**
   * Whether jobs' coordinators fail over (Cluster Sharding entities over a shared journal): a job
   * id then names one job in the whole cluster, wherever it is submitted.
   */
  public boolean coordinatorsFailOver() {
    return sharded != null;
  }

  /**
   * A client of the running job {@code jobId}, whose coordinator is {@code coordinator} (found in
   * the cluster's directories), as a submission's client is: its status and completion follow the
   * job. Where coordinators fail over, it follows the job's coordinator wherever it runs; otherwise
   * the job ends with its coordinator's node, and the client fails when that goes.
   */
  public JobClient attach(String jobId, ActorRef<JobInput> coordinator) {
    RecipientRef<JobInput> ref = sharded != null ? sharded.apply(jobId) : coordinator;
    java.util.concurrent.atomic.AtomicReference<io.koala.job.JobStatus> status =
        new java.util.concurrent.atomic.AtomicReference<>(io.koala.job.JobStatus.RUNNING);
    CompletableFuture<io.koala.job.JobStatus> completion = new CompletableFuture<>();
    system.systemActorOf(
        JobListener.subscribing(
            jobId, ref, false, null, sharded != null ? null : coordinator, status, completion),
        "koala-attached-" + jobId + "-" + ATTACHED.incrementAndGet(),
        Props.empty());
    return new JobClient(jobId, ref, status, completion, system, core.askTimeout());
  }

  private static final java.util.concurrent.atomic.AtomicLong ATTACHED =
      new java.util.concurrent.atomic.AtomicLong();

  /**
   * Moves every job's tasks off this node's worker, wherever the job is coordinated: asks each
   * node's directory, and completes with the problems reported — a job that could not move its
   * tasks, or a directory that did not answer within {@code timeout} — empty when nothing is left
   * here. The worker keeps running the tasks not moved. Only the directories of nodes that are
   * still {@code member}s are asked.
   */
  public CompletionStage<List<String>> drainThisNode(
      Duration timeout, java.util.function.Predicate<org.apache.pekko.actor.Address> member) {
    if (worker == null) {
      return CompletableFuture.completedFuture(List.of()); // no task runs here
    }
    CompletionStage<Receptionist.Listing> found =
        AskPattern.ask(
            system.receptionist(),
            r -> Receptionist.find(DIRECTORIES, r),
            Duration.ofSeconds(10),
            system.scheduler());
    return found.thenCompose(
        listing -> {
          List<CompletableFuture<List<String>>> answers = new ArrayList<>();
          for (ActorRef<Command> d : listing.getServiceInstances(DIRECTORIES)) {
            if (d.path().address().hasGlobalScope() && !member.test(d.path().address())) {
              continue; // of a node gone: the Receptionist forgets it a little later
            }
            answers.add(ask(d, timeout));
          }
          return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
              .thenApply(v -> answers.stream().flatMap(a -> a.join().stream()).toList());
        });
  }

  /**
   * Asks directory {@code d} to drain this node's worker: its problems; empty too if its node goes
   * away meanwhile (the jobs it coordinated went with it), so that a leave never waits out {@code
   * timeout} for a node that has gone.
   */
  private CompletableFuture<List<String>> ask(ActorRef<Command> d, Duration timeout) {
    CompletableFuture<List<String>> answer = new CompletableFuture<>();
    system.systemActorOf(
        Behaviors.<Drained>setup(
            ctx -> {
              ctx.watch(d);
              d.tell(new Drain(worker, ctx.getSelf()));
              return Behaviors.withTimers(
                  timers -> {
                    timers.startSingleTimer(new Drained(null), timeout);
                    return Behaviors.receive(Drained.class)
                        .onMessage(
                            Drained.class,
                            m -> {
                              answer.complete(
                                  m.problems() != null
                                      ? m.problems()
                                      : List.of(
                                          "the directory of node "
                                              + d.path().address()
                                              + " did not answer within "
                                              + DurationText.of(timeout)));
                              return Behaviors.stopped();
                            })
                        .onSignal(
                            org.apache.pekko.actor.typed.Terminated.class,
                            t -> {
                              answer.complete(List.of());
                              return Behaviors.stopped();
                            })
                        .build();
                  });
            }),
        "koala-drain-" + DRAINS.incrementAndGet(),
        Props.empty());
    return answer;
  }

  private static final java.util.concurrent.atomic.AtomicLong DRAINS =
      new java.util.concurrent.atomic.AtomicLong();

  /**
   * The jobs coordinated anywhere in the cluster now (ended ones whose coordinators still run
   * included): asks the directory of every node that is still a {@code member}, waiting at most
   * {@code timeout} for each.
   */
  public CompletionStage<JobListing> clusterJobs(
      Duration timeout, java.util.function.Predicate<org.apache.pekko.actor.Address> member) {
    CompletionStage<Receptionist.Listing> found =
        AskPattern.ask(
            system.receptionist(),
            r -> Receptionist.find(DIRECTORIES, r),
            timeout,
            system.scheduler());
    return found.thenCompose(
        listing -> {
          Map<String, CompletableFuture<JobsListed>> answers = new java.util.TreeMap<>();
          for (ActorRef<Command> d : listing.getServiceInstances(DIRECTORIES)) {
            org.apache.pekko.actor.Address a = d.path().address();
            if (a.hasGlobalScope() && !member.test(a)) {
              continue; // of a node gone: the Receptionist forgets it a little later
            }
            String node = (a.hasGlobalScope() ? a : system.address()).toString();
            answers.put(
                node,
                AskPattern.<Command, JobsListed>ask(d, ListJobs::new, timeout, system.scheduler())
                    .toCompletableFuture());
          }
          return CompletableFuture.allOf(
                  answers.values().stream()
                      .map(f -> f.exceptionally(e -> null))
                      .toArray(CompletableFuture[]::new))
              .thenApply(v -> listing(answers));
        });
  }

  private static JobListing listing(Map<String, CompletableFuture<JobsListed>> answers) {
    List<ClusterJob> jobs = new ArrayList<>();
    List<String> silent = new ArrayList<>();
    answers.forEach(
        (node, answer) -> {
          JobsListed listed = answer.isCompletedExceptionally() ? null : answer.join();
          if (listed == null) {
            silent.add(node);
            return;
          }
          for (Listed l : listed.jobs()) {
            jobs.add(new ClusterJob(l.jobId(), node, l.coordinator()));
          }
        });
    jobs.sort(java.util.Comparator.comparing(ClusterJob::jobId).thenComparing(ClusterJob::node));
    return new JobListing(List.copyOf(jobs), List.copyOf(silent));
  }

  /** Stops this node's jobs (their coordinators live here) and its runtime; the system runs on. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (worker != null) {
      system.receptionist().tell(Receptionist.deregister(WORKERS, worker));
    }
    core.close();
  }

  /** The node's directory: the cluster's workers, by the index this node's jobs know them by. */
  private static Behavior<Command> directory(ActorRuntime core) {
    return Behaviors.setup(
        ctx -> {
          ctx.getSystem().receptionist().tell(Receptionist.register(DIRECTORIES, ctx.getSelf()));
          ActorRef<Receptionist.Listing> listings =
              ctx.messageAdapter(
                  Receptionist.Listing.class,
                  l -> new WorkersListed(new ArrayList<>(l.getAllServiceInstances(WORKERS))));
          ctx.getSystem().receptionist().tell(Receptionist.subscribe(WORKERS, listings));
          Map<ActorRef<Worker.Command>, Integer> known = new HashMap<>();
          return Behaviors.receive(Command.class)
              .onMessage(
                  WorkersListed.class,
                  m -> {
                    for (ActorRef<Worker.Command> w : m.workers()) {
                      if (!known.containsKey(w)) {
                        known.put(w, core.addWorker(w));
                      }
                    }
                    for (ActorRef<Worker.Command> w : List.copyOf(known.keySet())) {
                      if (!m.workers().contains(w)) {
                        int index = known.remove(w);
                        LOG.warn("worker {} ({}) left the cluster", index, w.path());
                        core.workerLost(index);
                      }
                    }
                    return Behaviors.same();
                  })
              .onMessage(
                  Drain.class,
                  m -> {
                    Integer index = known.get(m.worker());
                    if (index == null) {
                      m.replyTo().tell(new Drained(List.of())); // no job here knows it
                      return Behaviors.same();
                    }
                    ctx.pipeToSelf(
                        core.drainWorker(index),
                        (problems, error) ->
                            new DrainEnded(
                                m.replyTo(),
                                error == null ? problems : List.of(String.valueOf(error))));
                    return Behaviors.same();
                  })
              .onMessage(
                  ListJobs.class,
                  m -> {
                    List<Listed> jobs = new ArrayList<>();
                    core.hostedCoordinators().forEach((id, ref) -> jobs.add(new Listed(id, ref)));
                    m.replyTo().tell(new JobsListed(jobs));
                    return Behaviors.same();
                  })
              .onMessage(
                  DrainEnded.class,
                  m -> {
                    m.replyTo().tell(new Drained(m.problems()));
                    return Behaviors.same();
                  })
              .build();
        });
  }
}
