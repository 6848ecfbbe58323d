package io.koala.runtime.internal;

import com.typesafe.config.Config;
import io.koala.KoalaException;
import io.koala.coordinator.JobInput;
import io.koala.coordinator.JobReply;
import io.koala.coordinator.JobSetup;
import io.koala.coordinator.WorkerPool;
import io.koala.dataflow.Dataflow;
import io.koala.job.JobStatus;
import io.koala.plan.ExecutionPlan;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.SubmitOptions;
import io.koala.runtime.internal.journal.JournalConfig;
import io.koala.runtime.internal.journal.JournalSettings;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.TypeRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.RecipientRef;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The actor side of a runtime: its ActorSystems, the workers, and job submission. Embedded ({@link
 * io.koala.runtime.KoalaRuntime} is its public face), it starts its systems (one, or one per worker
 * plus one for the coordinators) and {@code koala.workers} workers. On a cluster node ({@link
 * #onNode}) it runs in the node's ActorSystem, starts no worker of its own accord, and learns of
 * the workers of the cluster as they join ({@link #addWorker}), leave ({@link #drainWorker}) or are
 * lost ({@link #workerLost}); its coordinators then know workers by the index it gave them.
 */
public final class ActorRuntime implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ActorRuntime.class);
  private static final AtomicInteger RUNTIMES = new AtomicInteger();

  private final KoalaConfig config;
  private final ActorSystem<Void> main;
  private final List<ActorSystem<Void>> systems = new ArrayList<>();
  private final List<ActorRef<Worker.Command>> workers = new ArrayList<>(); // guarded by this
  private final Set<Integer> leavingWorkers = ConcurrentHashMap.newKeySet();
  private final boolean node; // on a cluster node: the ActorSystem is the application's
  // embedded in the application's ActorSystem, which it leaves running: its actors stop on close
  private final boolean inAppSystem;
  private final String names; // prefix of its actors' names, unique in a shared ActorSystem
  private final List<ActorRef<?>> inHost = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final List<ActorSystem<Void>> workerSystems = new ArrayList<>(); // separate systems only
  private final Set<Integer> lostWorkers = ConcurrentHashMap.newKeySet();
  private volatile boolean closing;
  private final DataflowCatalog catalog = new DataflowCatalog();
  private final Path dataDir;
  private final boolean temporaryDataDir;
  private final AtomicInteger jobs = new AtomicInteger();
  private final AtomicLong replies = new AtomicLong();
  private final Path checkpointRoot; // null: checkpoints off
  private final JournalSettings journalSettings; // null: checkpoints off
  private final boolean sharedJournal; // a node whose journal is the cluster's (store = jdbc)
  private final java.util.concurrent.ExecutorService copier; // writes snapshot files
  private final List<JobClient> submitted = new java.util.concurrent.CopyOnWriteArrayList<>();
  // the coordinators running in this runtime, by job id: they hear of workers joining and leaving
  private final Map<String, ActorRef<JobInput>> hosted = new ConcurrentHashMap<>();
  // on a cluster with a shared journal: a job's coordinator is the Cluster Sharding entity this
  // gives (DESIGN §9), wherever it runs; null: coordinated where submitted, ending with the node
  private volatile Function<String, RecipientRef<JobInput>> shardedCoordinators;

  /** Starts the systems and workers of an embedded runtime. */
  public ActorRuntime(KoalaConfig config) {
    this(config, null, null);
  }

  /**
   * An embedded runtime whose coordinators and workers run in {@code host}, the application's
   * ActorSystem ({@code koala.worker-systems = shared} only), checked for what Koala needs ({@link
   * HostSettings#check}). Closing it stops its actors and leaves {@code host} running.
   *
   * @throws io.koala.runtime.ConfigurationException naming each setting of {@code host} Koala
   *     cannot run with
   */
  public static ActorRuntime inHost(ActorSystem<Void> host, KoalaConfig config) {
    return new ActorRuntime(config, null, Objects.requireNonNull(host, "host"));
  }

  /**
   * A runtime in {@code system}, a node of a cluster: no worker is started here ({@link
   * #startWorker} starts this node's); a job's id is its dataflow's name, which every node that
   * hosts its tasks has {@link #define defined}. With checkpoints on, {@code system} must carry the
   * journal's Pekko settings ({@link JournalConfig#pekkoConfig}). Closing it leaves {@code system}
   * running.
   */
  public static ActorRuntime onNode(ActorSystem<Void> system, KoalaConfig config) {
    return new ActorRuntime(config, Objects.requireNonNull(system, "system"), null);
  }

  private ActorRuntime(
      KoalaConfig config, ActorSystem<Void> nodeSystem, ActorSystem<Void> hostSystem) {
    this.config = config;
    this.node = nodeSystem != null;
    this.inAppSystem = hostSystem != null;
    int n = RUNTIMES.incrementAndGet();
    this.names = inAppSystem ? "koala-" + n + "-" : "";
    if (inAppSystem) {
      HostSettings.checkRuntime(config);
    }
    try {
      if (config.dataDir() == null) {
        dataDir = Files.createTempDirectory("koala-");
        temporaryDataDir = true;
      } else {
        dataDir = Files.createDirectories(config.dataDir());
        temporaryDataDir = false;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create data directory " + config.dataDir(), e);
    }
    if (config.checkpointing()) {
      checkpointRoot =
          config.checkpointDirectory() != null
              ? config.checkpointDirectory().toAbsolutePath()
              : dataDir.resolve("checkpoints");
      // bounded, and apart from the task dispatcher's threads; one per core, so that a task's
      // snapshot rarely waits for another's: its read transaction is open from the barrier until
      // its copy has read the store, and while it is open the task's writes cannot reuse pages
      int threads = Runtime.getRuntime().availableProcessors();
      AtomicInteger copiers = new AtomicInteger();
      copier =
          java.util.concurrent.Executors.newFixedThreadPool(
              threads,
              r -> {
                Thread t = new Thread(r, "koala-" + n + "-snapshot-" + copiers.incrementAndGet());
                t.setDaemon(true);
                return t;
              });
    } else {
      checkpointRoot = null;
      copier = null;
    }
    Config pekko = SystemSettings.of(config);
    if (node) {
      if (config.checkpointing()) {
        if (config.checkpointDirectory() == null) {
          throw new io.koala.runtime.ConfigurationException(
              "koala.checkpoint.directory is not set: on a cluster it must name storage that every"
                  + " node reads and writes at the same path (a lost node's tasks are restored"
                  + " elsewhere from their snapshots)");
        }
        JournalConfig journal = JournalConfig.from(config.underlying(), dataDir);
        journal.createSchema();
        journalSettings = journal.settings();
        sharedJournal = journal.store() == JournalConfig.Store.JDBC;
      } else {
        journalSettings = null;
        sharedJournal = false;
      }
      main = nodeSystem;
      for (Class<?> type : config.types()) {
        KoalaSerialization.registry(main).register(type);
      }
      LOG.info("Koala runtime started on node {}, data in {}", main.address(), dataDir);
      return;
    }
    // the checkpoint-metadata journal lives with the coordinators, in the main system
    JournalConfig journal =
        config.checkpointing() ? JournalConfig.from(config.underlying(), dataDir) : null;
    if (journal != null) {
      journal.createSchema(); // before its plugins first connect
    }
    journalSettings = journal == null ? null : journal.settings();
    sharedJournal = false;
    if (inAppSystem) {
      HostSettings.check(hostSystem, journal == null ? null : journal.pekkoConfig());
      main = hostSystem;
    } else {
      main =
          ActorSystem.create(
              Behaviors.empty(),
              "koala-" + n,
              journal == null ? pekko : journal.pekkoConfig().withFallback(pekko).resolve());
      systems.add(main);
    }
    try {
      for (Class<?> type : config.types()) {
        KoalaSerialization.registry(main).register(type);
      }
      // the remote backend's state services, each on a node of its own (no task runs there)
      List<String> services = new ArrayList<>();
      for (int i = 0; i < config.remoteStateServices(); i++) {
        ActorSystem<Void> host = main;
        if (config.separateSystems()) {
          host = ActorSystem.create(Behaviors.empty(), "koala-" + n + "-state-" + i, pekko);
          systems.add(host);
        }
        ActorRef<StateService.Command> ref =
            started(
                host.systemActorOf(
                    StateService.create(
                        i,
                        dataDir.resolve("state-service-" + i),
                        EngineSettings.of(config).store()),
                    names + "state-service-" + i,
                    Props.empty()));
        services.add(ActorRefResolver.get(host).toSerializationFormat(ref));
      }
      for (int w = 0; w < config.workers(); w++) {
        ActorSystem<Void> host = main;
        if (config.separateSystems()) {
          host = ActorSystem.create(Behaviors.empty(), "koala-" + n + "-worker-" + w, pekko);
          systems.add(host);
          workerSystems.add(host);
          int lost = w;
          host.getWhenTerminated().thenRun(() -> workerLost(lost));
          for (Class<?> type : config.types()) {
            KoalaSerialization.registry(host).register(type);
          }
        }
        ActorRef<Worker.Command> ref =
            host.systemActorOf(
                Worker.create(
                    w,
                    dataDir.resolve("worker-" + w),
                    catalog,
                    KoalaSerialization.registry(host),
                    EngineSettings.of(config).store(),
                    config.deleteJobState(),
                    resolve(host, services),
                    checkpointRoot,
                    copier),
                names + "worker-" + w,
                Props.empty());
        started(ref);
        // Seen from the main system: through remoting when the worker lives elsewhere.
        String address = ActorRefResolver.get(host).toSerializationFormat(ref);
        workers.add(ActorRefResolver.get(main).resolveActorRef(address));
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
    LOG.info(
        "Koala runtime started: {} workers in {} ActorSystem(s), data in {}",
        config.workers(),
        systems.size(),
        dataDir);
  }

  /** {@code ref}, kept to be stopped on close when the runtime is in the application's system. */
  private <T> ActorRef<T> started(ActorRef<T> ref) {
    if (inAppSystem) {
      inHost.add(ref);
    }
    return ref;
  }

  /** The actors named by {@code addresses}, as {@code system} reaches them. */
  private static <T> List<ActorRef<T>> resolve(ActorSystem<Void> system, List<String> addresses) {
    List<ActorRef<T>> out = new ArrayList<>();
    for (String a : addresses) {
      out.add(ActorRefResolver.get(system).resolveActorRef(a));
    }
    return out;
  }

  /** Deploys {@code dataflow} and returns the handles of its job. */
  public JobClient submit(Dataflow dataflow) {
    return submit(dataflow, SubmitOptions.defaults());
  }

  /** Deploys {@code dataflow} as {@code options} say (see {@link SubmitOptions}). */
  public synchronized JobClient submit(Dataflow dataflow, SubmitOptions options) {
    String jobId =
        Submissions.jobId(node, jobIdOf(dataflow), sanitize(dataflow.name()), options, jobs.get());
    Path restoreFrom = options.restoreFrom().orElse(null);
    if (shardedCoordinators != null) {
      return submitSharded(dataflow, jobId, restoreFrom, options);
    }
    for (JobClient s : submitted) {
      if (s.jobId().equals(jobId)) {
        throw new KoalaException(
            "job "
                + jobId
                + " is already running on this "
                + (node ? "node" : "runtime")
                + "; cancel it or wait for its end");
      }
    }
    ExecutionPlan plan = node ? define(dataflow) : ExecutionPlan.of(dataflow.plan());
    checkRestore(jobId, restoreFrom, plan, options);
    WorkerPool pool = pool();
    Submissions.checkPlaceable(jobId, pool);
    JobCoordinator.checkScaleOnJoin(jobId, plan, config);
    int n = jobs.incrementAndGet();
    if (!node) {
      registerTypes(dataflow);
      catalog.put(jobId, plan);
    }
    AtomicReference<JobStatus> status = new AtomicReference<>(JobStatus.DEPLOYING);
    CompletableFuture<JobStatus> completion = new CompletableFuture<>();
    if (!node) {
      completion.whenComplete((s, e) -> catalog.remove(jobId));
    }
    // a node runs a job again under its name
    String name = names + (node ? jobId + "-" + n : jobId);
    ActorRef<JobReply.StatusChanged> listener =
        started(
            main.systemActorOf(
                JobListener.create(jobId, status, completion), name + "-listener", Props.empty()));
    ActorRef<JobInput> coordinator =
        started(
            main.systemActorOf(
                coordinator(jobId, plan, pool, restoreFrom, listener, false),
                name + "-coordinator",
                Props.empty()));
    JobClient job = new JobClient(jobId, coordinator, status, completion, main, askTimeout());
    submitted.add(job);
    hosted.put(jobId, coordinator);
    completion.whenComplete(
        (st, e) -> {
          submitted.remove(job);
          hosted.remove(jobId, coordinator);
        });
    return job;
  }

  /** With {@code restoreFrom} (not null), checks that job {@code jobId} can start from it. */
  private void checkRestore(
      String jobId, Path restoreFrom, ExecutionPlan plan, SubmitOptions options) {
    if (restoreFrom != null) {
      CheckpointFiles.checkRestore(
          jobId,
          restoreFrom,
          config.checkpointing(),
          plan,
          options.droppableState(),
          new KryoSerde(KoalaSerialization.registry(main)));
    }
  }

  /**
   * Submits job {@code jobId} to its sharded coordinator, which starts on a node the cluster
   * chooses (or is running already: the handle attaches to it). With {@code restoreFrom} (not null)
   * the coordinator, started by this submission, resumes from that checkpoint or savepoint
   * directory (one of a job that failed, say) rather than from nothing; a job id names one run, so
   * that is a new id's job.
   */
  private JobClient submitSharded(
      Dataflow dataflow, String jobId, Path restoreFrom, SubmitOptions options) {
    ExecutionPlan plan = define(dataflow);
    checkRestore(jobId, restoreFrom, plan, options);
    JobCoordinator.checkScaleOnJoin(jobId, plan, config);
    RecipientRef<JobInput> coordinator = shardedCoordinators.apply(jobId);
    String restore =
        restoreFrom == null ? null : restoreFrom.toAbsolutePath().normalize().toString();
    if (restore != null) {
      // from this thread, before the listener (spawned asynchronously) or the caller sends
      // anything: the message that starts the coordinator's entity
      coordinator.tell(new JobInput.Start(restore));
    }
    AtomicReference<JobStatus> status = new AtomicReference<>(JobStatus.DEPLOYING);
    CompletableFuture<JobStatus> completion = new CompletableFuture<>();
    main.systemActorOf(
        JobListener.subscribing(jobId, coordinator, true, restore, null, status, completion),
        jobId + "-" + jobs.incrementAndGet() + "-listener",
        Props.empty());
    return new JobClient(jobId, coordinator, status, completion, main, askTimeout());
  }

  /**
   * Whether this node's checkpoint journal is one every node shares ({@code koala.journal.store =
   * jdbc}, checkpoints on), so that a job's coordinator can start again elsewhere from it.
   */
  boolean sharedJournal() {
    return sharedJournal;
  }

  /** The settings of jobs' checkpoint journals; null with checkpoints off. */
  JournalSettings journalSettings() {
    return journalSettings;
  }

  /**
   * From now on, jobs are coordinated by the Cluster Sharding entities {@code coordinators} gives,
   * whose behaviors {@link #coordinatorEntities} makes (on a node of a cluster whose journal every
   * node shares).
   */
  void coordinateBySharding(Function<String, RecipientRef<JobInput>> coordinators) {
    if (!node || journalSettings == null) {
      throw new IllegalStateException("sharded coordinators need a cluster node with checkpoints");
    }
    this.shardedCoordinators = Objects.requireNonNull(coordinators, "coordinators");
  }

  /**
   * How jobs' coordinators start on this node as Cluster Sharding entities: on the workers this
   * node knows, and known to it ({@link #hostedCoordinators}) while they run.
   */
  ShardedCoordinatorEntity coordinatorEntities() {
    return new ShardedCoordinatorEntity(
        catalog,
        main.address().toString(),
        this::pool,
        hosted,
        (jobId, plan, pool, restoreFrom) ->
            coordinator(jobId, plan, pool, restoreFrom, null, true));
  }

  /** The coordinator of job {@code jobId} in this runtime, on the workers it knows now. */
  private Behavior<JobInput> coordinator(
      String jobId,
      ExecutionPlan plan,
      WorkerPool pool,
      Path restoreFrom,
      ActorRef<JobReply.StatusChanged> listener,
      boolean sharded) {
    List<ActorRef<Worker.Command>> workersNow = workersNow();
    JobSetup job =
        JobCoordinator.setup(
            config,
            jobId,
            plan,
            workersNow.size(),
            pool,
            checkpointRoot != null,
            sharded,
            restoreFrom,
            listener == null ? null : new ActorReply<>(listener));
    return JobCoordinator.create(
        new JobCoordinator.Setup(
            job, workersNow, checkpointRoot, journalSettings, config.metricsTimeout()));
  }

  /**
   * Makes {@code dataflow} known on this node under its job id ({@link #jobIdOf}), so that its
   * tasks can be deployed here; every node of a cluster defines the dataflows it may run, as it has
   * their code. Defining the same name again replaces the definition for jobs submitted later.
   */
  public ExecutionPlan define(Dataflow dataflow) {
    ExecutionPlan plan = ExecutionPlan.of(dataflow.plan());
    registerTypes(dataflow);
    catalog.put(jobIdOf(dataflow), plan);
    return plan;
  }

  /** The id of a job of {@code dataflow} on a cluster: its name, made safe for actor names. */
  public static String jobIdOf(Dataflow dataflow) {
    return sanitize(dataflow.name());
  }

  private void registerTypes(Dataflow dataflow) {
    List<ActorSystem<Void>> all = node || inAppSystem ? List.of(main) : systems;
    for (ActorSystem<Void> s : all) {
      TypeRegistry registry = KoalaSerialization.registry(s);
      for (Class<?> type : dataflow.plan().types()) {
        registry.register(type);
      }
    }
  }

  /** The workers now, by index. */
  private synchronized List<ActorRef<Worker.Command>> workersNow() {
    return List.copyOf(workers);
  }

  /**
   * The address of each worker's ActorSystem, by the index jobs know the worker by ({@link
   * io.koala.job.JobMetrics#placement()}).
   */
  public synchronized List<String> workerAddresses() {
    List<String> out = new ArrayList<>();
    for (ActorRef<Worker.Command> w : workers) {
      out.add(w.path().address().toString());
    }
    return out;
  }

  /** The jobs submitted through this runtime that have not ended, in submission order. */
  public List<JobClient> submittedJobs() {
    return List.copyOf(submitted);
  }

  /** The coordinators running in this runtime now, by job id (ended jobs' included). */
  public Map<String, ActorRef<JobInput>> hostedCoordinators() {
    return Map.copyOf(hosted);
  }

  /**
   * A view of job {@code jobId} whose coordinator is {@code coordinator}, anywhere in the cluster,
   * for operating on it from this runtime (metrics, reconfigurations, checkpoints, cancellation):
   * its status and completion are not kept up to date; {@link JobClient#metrics} has the status.
   */
  public JobClient view(String jobId, ActorRef<JobInput> coordinator) {
    return new JobClient(
        jobId,
        coordinator,
        new AtomicReference<>(JobStatus.RUNNING),
        new CompletableFuture<>(),
        main,
        askTimeout());
  }

  /** How many workers a job submitted now could place tasks on (not lost, not leaving). */
  public int placeableWorkers() {
    WorkerPool pool = pool();
    return pool == null ? 0 : pool.placeable().size();
  }

  /** The workers now as a pool, or null when there is none yet. */
  private synchronized WorkerPool pool() {
    return workers.isEmpty() ? null : new WorkerPool(workers.size(), lostWorkers, leavingWorkers);
  }

  /**
   * Starts this node's worker (on a cluster node), its state under {@code <data-dir>/worker}. The
   * caller makes it known to the cluster.
   */
  ActorRef<Worker.Command> startWorker() {
    if (!node) {
      throw new IllegalStateException("an embedded runtime starts its own workers");
    }
    return main.systemActorOf(
        Worker.create(
            0,
            dataDir.resolve("worker"),
            catalog,
            KoalaSerialization.registry(main),
            EngineSettings.of(config).store(),
            config.deleteJobState(),
            List.of(),
            checkpointRoot,
            copier),
        "koala-worker",
        Props.empty());
  }

  /**
   * Worker {@code ref} joined (its node came Up): it gets the next index, and the running jobs may
   * place tasks on it from now on. Returns its index.
   */
  public synchronized int addWorker(ActorRef<Worker.Command> ref) {
    int index = workers.size();
    workers.add(ref);
    for (ActorRef<JobInput> coordinator : hosted.values()) {
      coordinator.tell(new JobInput.WorkerJoined(index, new Worker.Address(ref)));
    }
    LOG.info("worker {} joined: {}", index, ref.path());
    return index;
  }

  /**
   * Worker {@code worker}'s node is leaving: no job places a task there any more, and every running
   * job moves its tasks off (DESIGN §9). Completes once every job has answered, with the problems
   * they reported (empty: nothing of any job is left there). No timeout: the caller bounds it.
   */
  public CompletionStage<List<String>> drainWorker(int worker) {
    Map<String, ActorRef<JobInput>> jobsNow;
    synchronized (this) {
      if (worker < 0 || worker >= workers.size()) {
        throw new IllegalArgumentException(
            "no worker " + worker + "; this runtime has workers 0.." + (workers.size() - 1));
      }
      leavingWorkers.add(worker);
      jobsNow = Map.copyOf(hosted);
    }
    List<CompletableFuture<String>> answers = new ArrayList<>();
    jobsNow.forEach(
        (jobId, coordinator) -> {
          CompletableFuture<String> answer = new CompletableFuture<>();
          // a coordinator that stops (its job ended, or it moved to another node) leaves no task
          // of its attempt running anywhere
          main.systemActorOf(
              Behaviors.<JobReply.WorkerDrained>setup(
                  ctx -> {
                    ctx.watch(coordinator);
                    coordinator.tell(
                        new JobInput.DrainWorker(worker, new ActorReply<>(ctx.getSelf())));
                    return Behaviors.receive(JobReply.WorkerDrained.class)
                        .onMessage(
                            JobReply.WorkerDrained.class,
                            d -> {
                              answer.complete(
                                  d.error() == null ? null : "job " + jobId + ": " + d.error());
                              return Behaviors.stopped();
                            })
                        .onSignal(
                            org.apache.pekko.actor.typed.Terminated.class,
                            t -> {
                              answer.complete(null);
                              return Behaviors.stopped();
                            })
                        .build();
                  }),
              jobId + "-drain-" + replies.incrementAndGet(),
              Props.empty());
          answers.add(answer);
        });
    return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
        .thenApply(
            v ->
                answers.stream()
                    .map(CompletableFuture::join)
                    .filter(java.util.Objects::nonNull)
                    .toList());
  }

  /**
   * Loses worker {@code worker} with every task it hosts, as when its node goes away: terminates
   * its ActorSystem and waits for that (separate systems), or stops its Worker actor (one system).
   * The coordinators of running jobs learn it through DeathWatch. For tests of recovery.
   */
  public void loseWorker(int worker) {
    if (worker < 0 || worker >= workers.size()) {
      throw new IllegalArgumentException(
          "no worker " + worker + "; this runtime has workers 0.." + (workers.size() - 1));
    }
    LOG.warn("losing worker {} (requested)", worker);
    if (workerSystems.isEmpty()) {
      workers.get(worker).tell(Worker.Stop.INSTANCE); // the coordinators' DeathWatch sees it
      lostWorkers.add(worker);
      return;
    }
    ActorSystem<Void> system = workerSystems.get(worker);
    system.terminate();
    try {
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      TerminationReport why = TerminationReport.of(system);
      LOG.error("ActorSystem {} did not terminate within 30 s; {}", system.name(), why.details());
      throw new KoalaException(
          "ActorSystem "
              + system.name()
              + " did not terminate within 30 s; "
              + why.summary()
              + " (its actors and the threads are logged)",
          e);
    } catch (Exception e) {
      throw new KoalaException("ActorSystem " + system.name() + " did not terminate", e);
    }
  }

  /**
   * Worker {@code worker}'s ActorSystem terminated: it is lost for every job, now and later. The
   * runtime tells the coordinators at once rather than leave it to their remote DeathWatch, whose
   * failure detector takes about ten seconds to give up on a system that has gone.
   */
  public void workerLost(int worker) {
    if (closing || !lostWorkers.add(worker)) {
      return;
    }
    for (ActorRef<JobInput> coordinator : hosted.values()) {
      coordinator.tell(new JobInput.WorkerLost(worker));
    }
  }

  /** The system that hosts coordinators and clients. */
  public ActorSystem<Void> mainSystem() {
    return main;
  }

  public Path dataDir() {
    return dataDir;
  }

  private static String sanitize(String name) {
    String s = name.replaceAll("[^A-Za-z0-9._-]", "_");
    return s.length() > 40 ? s.substring(0, 40) : s;
  }

  /**
   * Closes the runtime: an embedded one first stops its jobs with a final checkpoint, waiting up to
   * {@code koala.close-timeout}; a node leaves its jobs to the cluster (they move, or fail over).
   */
  @Override
  public void close() {
    close(node ? Duration.ZERO : config.closeTimeout());
  }

  /**
   * Closes the runtime: with checkpoints on, its running jobs are first stopped with a final
   * checkpoint, waiting up to {@code timeout} (zero: none is tried); whatever has not ended then is
   * cancelled ({@link JobsAtClose}).
   */
  public void close(Duration timeout) {
    if (config.checkpointing()) {
      JobsAtClose.stop(submitted, timeout);
    }
    closing = true;
    JobsAtClose.cancel(submitted, askTimeout());
    if (inAppSystem) {
      HostedActors.stop(main, inHost, Duration.ofSeconds(30));
    }
    List<ActorSystem<Void>> reversed = new ArrayList<>(systems);
    java.util.Collections.reverse(reversed);
    for (ActorSystem<Void> s : reversed) {
      s.terminate();
    }
    for (ActorSystem<Void> s : reversed) {
      try {
        s.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        TerminationReport why = TerminationReport.of(s);
        LOG.warn(
            "ActorSystem {} did not terminate within 30 s; {}; {}",
            s.name(),
            why.summary(),
            why.details());
      } catch (Exception e) {
        throw new KoalaException("failed to stop ActorSystem " + s.name(), e);
      }
    }
    systems.clear();
    if (copier != null) {
      copier.shutdown();
    }
    if (temporaryDataDir) {
      Worker.deleteRecursively(dataDir);
    }
  }

  /** How long a client waits for its job's coordinator to answer an ask. */
  Duration askTimeout() {
    return config.metricsTimeout().plusSeconds(5);
  }
}
