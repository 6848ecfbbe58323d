package io.koala.cluster;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.koala.connector.Json;
import io.koala.job.AutoscalerDecision;
import io.koala.job.AutoscalerEvaluation;
import io.koala.job.AutoscalerStatus;
import io.koala.job.JobMetrics;
import io.koala.job.OperatorLoad;
import io.koala.job.ReconfigurationException;
import io.koala.job.ReconfigurationReport;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.micrometer.KoalaMetrics;
import io.koala.routing.PartitionPolicy;
import io.koala.runtime.JobHandle;
import io.koala.runtime.Savepoint;
import io.koala.runtime.internal.ActorRuntime;
import io.koala.runtime.internal.JobClient;
import io.koala.runtime.internal.NodeRuntime;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's HTTP endpoint ({@code koala.node.http}; {@code docs/operations.md} documents it):
 *
 * <ul>
 *   <li>{@code GET /metrics}: the jobs coordinated on this node (each job's meters on one node
 *       only), in Prometheus' text format;
 *   <li>{@code GET /health}: 200 while the node runs; {@code GET /ready}: 200 once the node is an
 *       Up member that is not leaving, 503 with the reason otherwise;
 *   <li>the admin API on every job of the cluster, wherever it is coordinated ({@link
 *       ClusterJobs}): {@code GET /jobs} (with the node coordinating each; the header {@value
 *       #SILENT_NODES} names the nodes that did not answer), {@code GET /jobs/<id>} (tasks with
 *       their placement, the running reconfiguration with its progress, the history of completed
 *       ones, checkpoints), {@code GET /jobs/<id>/load} (each operator's load from the runtime's
 *       decayed counters: per live task and per bucket, {@link #loads}), {@code GET
 *       /jobs/<id>/autoscaler} (what the autoscaler last found for each operator and its latest
 *       decisions, {@link #autoscaler}) and {@code POST
 *       /jobs/<id>/rescale|rebalance|migrate|checkpoint|savepoint|cancel} with query parameters;
 *   <li>{@code GET /jobs/<id>/state/<operator>/<state>?key=K[&keyType=string|long|int]}: one key's
 *       state of a keyed operator, read from wherever it is while the job runs ({@link
 *       StateReads}). With {@code koala.node.http.admin-token} set, a POST needs {@code
 *       Authorization: Bearer <token>}.
 * </ul>
 *
 * <p>Every answer but {@code /metrics} is JSON; an error is {@code {"error": "..."}} with 400 (a
 * bad parameter, named), 401, 404 (no such job or path), 405, 409 (a reconfiguration refused) or
 * 503.
 */
final class NodeEndpoint implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NodeEndpoint.class);
  private static final Duration DEFAULT_WAIT = Duration.ofSeconds(5);
  private static final Duration MAX_WAIT = Duration.ofMinutes(10);
  private static final int THREADS = 8; // requests served at once; a waiting POST holds one

  /** The header of {@code GET /jobs} that names the nodes whose jobs are missing from it. */
  static final String SILENT_NODES = "Koala-Silent-Nodes";

  private final ActorRuntime core;
  private final ClusterJobs cluster;
  private final Supplier<List<String>> workerNodes;
  private final Supplier<String> notReady; // null: ready
  private final BooleanSupplier alive;
  private final String adminToken; // empty: no token needed
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final KoalaMetrics jobs; // the coordinated jobs' meters, polled at each scrape
  private final StateReads states = new StateReads();
  private final io.micrometer.core.instrument.binder.jvm.JvmGcMetrics jvmGc =
      new io.micrometer.core.instrument.binder.jvm.JvmGcMetrics();
  private final HttpServer server;
  private final ExecutorService executor;
  private final java.util.concurrent.atomic.AtomicBoolean closed =
      new java.util.concurrent.atomic.AtomicBoolean();

  private NodeEndpoint(
      ActorRuntime core,
      ClusterJobs cluster,
      Supplier<List<String>> workerNodes,
      Supplier<String> notReady,
      BooleanSupplier alive,
      String adminToken,
      InetSocketAddress address)
      throws IOException {
    this.core = core;
    this.cluster = cluster;
    this.workerNodes = workerNodes;
    this.notReady = notReady;
    this.alive = alive;
    this.adminToken = adminToken;
    this.jobs =
        KoalaMetrics.builder(this::coordinatedJobs)
            .workerNames(workerNodes)
            .pollInterval(Duration.ZERO)
            .build();
    jobs.bindTo(registry);
    this.server = HttpServer.create(address, 0);
    this.executor =
        Executors.newFixedThreadPool(
            THREADS,
            r -> {
              Thread t = new Thread(r, "koala-http");
              t.setDaemon(true);
              return t;
            });
    // the JVM's own: heap, GC pauses, threads, CPU
    new io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics().bindTo(registry);
    jvmGc.bindTo(registry);
    new io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics().bindTo(registry);
    new io.micrometer.core.instrument.binder.system.ProcessorMetrics().bindTo(registry);
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  /**
   * Serves the node's endpoint at {@code host}:{@code port} (0: any free port).
   *
   * @throws io.koala.runtime.ConfigurationException when the address cannot be bound
   */
  static NodeEndpoint start(
      ActorRuntime core,
      ClusterJobs cluster,
      Supplier<List<String>> workerNodes,
      Supplier<String> notReady,
      BooleanSupplier alive,
      String adminToken,
      String host,
      int port) {
    try {
      return new NodeEndpoint(
          core,
          cluster,
          workerNodes,
          notReady,
          alive,
          adminToken,
          new InetSocketAddress(host, port));
    } catch (IOException e) {
      throw new io.koala.runtime.ConfigurationException(
          "koala.node.http: cannot serve on " + host + ":" + port + " (" + e.getMessage() + ")", e);
    }
  }

  /** The port it listens on. */
  int port() {
    return server.getAddress().getPort();
  }

  /** The registry {@code /metrics} exports, for the node's own meters. */
  io.micrometer.core.instrument.MeterRegistry registry() {
    return registry;
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    server.stop(0);
    executor.shutdownNow();
    states.close();
    jvmGc.close();
    jobs.close();
    registry.close();
  }

  /** A request that cannot be served: its status and message. */
  private static final class Refusal extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final int status;

    Refusal(int status, String message) {
      super(message, null, false, false);
      this.status = status;
    }
  }

  private void handle(HttpExchange x) throws IOException {
    try (x) {
      try {
        route(x);
      } catch (Refusal r) {
        reply(x, r.status, Map.of("error", r.getMessage()));
      } catch (RuntimeException e) {
        LOG.warn("{} {} failed", x.getRequestMethod(), x.getRequestURI(), e);
        reply(x, 500, Map.of("error", String.valueOf(e)));
      }
    }
  }

  private void route(HttpExchange x) throws IOException {
    String path = x.getRequestURI().getPath();
    List<String> parts = new ArrayList<>();
    for (String p : path.split("/")) {
      if (!p.isEmpty()) {
        parts.add(URLDecoder.decode(p, StandardCharsets.UTF_8));
      }
    }
    String method = x.getRequestMethod();
    if (parts.size() == 1 && parts.get(0).equals("metrics")) {
      requireMethod(method, "GET");
      byte[] body = scrape().getBytes(StandardCharsets.UTF_8);
      x.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
      x.sendResponseHeaders(200, body.length);
      try (OutputStream out = x.getResponseBody()) {
        out.write(body);
      }
    } else if (parts.size() == 1 && parts.get(0).equals("health")) {
      requireMethod(method, "GET");
      boolean up = alive.getAsBoolean();
      reply(x, up ? 200 : 503, Map.of("status", up ? "UP" : "DOWN"));
    } else if (parts.size() == 1 && parts.get(0).equals("ready")) {
      requireMethod(method, "GET");
      String why = notReady.get();
      reply(
          x,
          why == null ? 200 : 503,
          why == null ? Map.of("ready", true) : Map.of("ready", false, "reason", why));
    } else if (parts.size() == 1 && parts.get(0).equals("jobs")) {
      requireMethod(method, "GET");
      NodeRuntime.JobListing listing = listing();
      List<CompletionStage<JobMetrics>> asked = new ArrayList<>();
      for (NodeRuntime.ClusterJob job : listing.jobs()) { // asked together, answers awaited next
        asked.add(core.view(job.jobId(), job.coordinator()).metrics());
      }
      List<Object> jobs = new ArrayList<>();
      for (int i = 0; i < asked.size(); i++) {
        NodeRuntime.ClusterJob job = listing.jobs().get(i);
        Map<String, Object> j = new LinkedHashMap<>();
        j.put("id", job.jobId());
        j.put("node", job.node());
        try {
          JobMetrics m = asked.get(i).toCompletableFuture().join();
          j.put("status", m.status().name());
          j.put("tasks", m.placement().size());
          j.put("rollbacks", m.rollbacks());
          j.put("reconfiguring", m.reconfiguring());
        } catch (CompletionException e) {
          j.put("error", "did not answer: " + e.getCause());
        }
        jobs.add(j);
      }
      if (!listing.silent().isEmpty()) {
        x.getResponseHeaders().set(SILENT_NODES, String.join(", ", listing.silent()));
      }
      reply(x, 200, jobs);
    } else if (parts.size() == 2 && parts.get(0).equals("jobs")) {
      requireMethod(method, "GET");
      NodeRuntime.ClusterJob found = find(parts.get(1));
      reply(x, 200, describe(metrics(core.view(found.jobId(), found.coordinator())), found));
    } else if (parts.size() == 5 && parts.get(0).equals("jobs") && parts.get(2).equals("state")) {
      requireMethod(method, "GET");
      readState(x, parts.get(1), parts.get(3), parts.get(4), query(x));
    } else if (parts.size() == 3 && parts.get(0).equals("jobs") && parts.get(2).equals("load")) {
      requireMethod(method, "GET");
      reply(x, 200, loads(metrics(job(parts.get(1)))));
    } else if (parts.size() == 3
        && parts.get(0).equals("jobs")
        && parts.get(2).equals("autoscaler")) {
      requireMethod(method, "GET");
      reply(x, 200, autoscaler(metrics(job(parts.get(1)))));
    } else if (parts.size() == 3 && parts.get(0).equals("jobs")) {
      requireMethod(method, "POST");
      authorize(x);
      act(x, parts.get(1), parts.get(2), query(x));
    } else {
      throw new Refusal(404, "no such path: " + path + " (see /jobs, /metrics, /health, /ready)");
    }
  }

  private void act(HttpExchange x, String jobId, String action, Map<String, String> q)
      throws IOException {
    JobClient job = job(jobId);
    boolean checkpoints = action.equals("checkpoint") || action.equals("savepoint");
    Duration wait = waitOf(q, checkpoints ? Duration.ofSeconds(60) : DEFAULT_WAIT);
    switch (action) {
      case "rescale" -> {
        String op = required(q, "operator");
        int n = intParam(q, "parallelism", 1, 1 << 20);
        reconfigured(x, job.rescale(op, n, PartitionPolicy.even()), wait);
      }
      case "rebalance" -> {
        String op = required(q, "operator");
        PartitionPolicy policy =
            q.containsKey("buckets")
                ? PartitionPolicy.explicit(buckets(q.get("buckets")))
                : PartitionPolicy.even();
        reconfigured(x, job.rebalance(op, policy), wait);
      }
      case "migrate" -> {
        String op = required(q, "operator");
        int task = intParam(q, "task", 0, Integer.MAX_VALUE);
        int worker = intParam(q, "worker", 0, Integer.MAX_VALUE);
        reconfigured(x, job.migrate(op, task, worker), wait);
      }
      case "checkpoint" -> {
        Object id = await(job.checkpoint(), wait);
        if (id == null) {
          reply(x, 202, Map.of("accepted", true, "completed", false));
        } else {
          reply(x, 200, Map.of("checkpoint", id));
        }
      }
      case "savepoint" -> {
        boolean stop = boolParam(q, "stop");
        Path dir;
        try {
          dir = Path.of(required(q, "dir"));
        } catch (InvalidPathException e) {
          throw new Refusal(400, "parameter dir: " + e.getMessage());
        }
        if (!dir.isAbsolute()) {
          throw new Refusal(400, "parameter dir = \"" + dir + "\" is not an absolute path");
        }
        Savepoint sp = await(job.savepoint(dir, stop), wait);
        if (sp == null) {
          reply(x, 202, Map.of("accepted", true, "completed", false));
        } else {
          reply(
              x,
              200,
              Map.of(
                  "savepoint",
                  sp.directory().toString(),
                  "checkpoint",
                  sp.checkpointId(),
                  "stopped",
                  stop));
        }
      }
      case "cancel" -> reply(x, 200, Map.of("status", String.valueOf(await(job.cancel(), wait))));
      default ->
          throw new Refusal(
              404,
              "no action "
                  + action
                  + " on a job; use rescale, rebalance, migrate, checkpoint, savepoint or cancel");
    }
  }

  /** {@code GET /jobs/<id>/state/<operator>/<state>?key=..}: see {@link StateReads}. */
  private void readState(
      HttpExchange x, String jobId, String operator, String state, Map<String, String> q)
      throws IOException {
    JobClient job = job(jobId);
    Duration wait = waitOf(q, DEFAULT_WAIT);
    CompletionStage<Map<String, Object>> read;
    try {
      read = states.read(job, operator, state, q);
    } catch (IllegalArgumentException e) {
      throw new Refusal(400, e.getMessage());
    }
    try {
      reply(x, 200, read.toCompletableFuture().get(wait.toMillis(), TimeUnit.MILLISECONDS));
    } catch (TimeoutException e) {
      throw new Refusal(503, "no answer within " + wait.toMillis() + " ms");
    } catch (ExecutionException e) {
      String why = String.valueOf(e.getCause().getMessage());
      boolean unknown = why.contains("no keyed operator named") || why.contains("no state named");
      throw new Refusal(unknown ? 404 : 400, why);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Refusal(503, "interrupted");
    }
  }

  private void reconfigured(
      HttpExchange x, CompletionStage<ReconfigurationReport> outcome, Duration wait)
      throws IOException {
    ReconfigurationReport report = await(outcome, wait);
    if (report == null) {
      reply(x, 202, Map.of("accepted", true, "completed", false));
    } else {
      reply(x, 200, report);
    }
  }

  /** The outcome within {@code wait}, or null when it has not come yet. */
  private static <T> T await(CompletionStage<T> stage, Duration wait) {
    try {
      return stage.toCompletableFuture().get(wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      return null;
    } catch (ExecutionException | CompletionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof ReconfigurationException r) {
        throw new Refusal(409, r.getMessage());
      }
      throw new Refusal(409, String.valueOf(cause == null ? e : cause.getMessage()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Refusal(503, "interrupted");
    }
  }

  private String scrape() {
    jobs.refresh();
    return registry.scrape();
  }

  /** The jobs coordinated on this node now. */
  private List<JobHandle> coordinatedJobs() {
    List<JobHandle> out = new ArrayList<>();
    core.hostedCoordinators().forEach((id, ref) -> out.add(core.view(id, ref).handle()));
    return out;
  }

  private static JobMetrics metrics(JobClient job) {
    try {
      return job.metrics().toCompletableFuture().join();
    } catch (CompletionException e) {
      throw new Refusal(503, "job " + job.jobId() + " did not answer: " + e.getCause());
    }
  }

  /** The cluster's jobs now. */
  private NodeRuntime.JobListing listing() {
    try {
      return cluster.list();
    } catch (io.koala.KoalaException e) {
      throw new Refusal(503, e.getMessage());
    }
  }

  /** Job {@code jobId}, coordinated on this node or another. */
  private JobClient job(String jobId) {
    NodeRuntime.ClusterJob job = find(jobId);
    return core.view(jobId, job.coordinator());
  }

  /** Where job {@code jobId} is coordinated, on this node or another. */
  private NodeRuntime.ClusterJob find(String jobId) {
    try {
      return cluster.find(jobId);
    } catch (ClusterJobs.NoSuchJob e) {
      states.forget(jobId);
      throw new Refusal(404, e.getMessage());
    } catch (io.koala.KoalaException e) {
      throw new Refusal(409, e.getMessage());
    }
  }

  /**
   * The job {@code job} names, as its metrics {@code m} say. A task's worker is named by the index
   * its coordinator knows it by, and its node only where the job is coordinated on this node: each
   * node numbers workers in the order it found them, so this node's list would name another node
   * for a job coordinated elsewhere (ask the node {@code "coordinator"} names).
   */
  private Map<String, Object> describe(JobMetrics m, NodeRuntime.ClusterJob job) {
    boolean here = core.hostedCoordinators().containsKey(job.jobId());
    List<String> nodes = here ? workerNodes.get() : List.of();
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("id", m.jobId());
    j.put("coordinator", job.node());
    j.put("status", m.status().name());
    j.put("rollbacks", m.rollbacks());
    j.put("checkpoints", m.checkpoints());
    j.put("reconfiguring", m.reconfiguring());
    List<Object> tasks = new ArrayList<>();
    for (TaskMetricsSnapshot t : m.tasks()) {
      Integer worker = m.placement().get(t.task());
      Map<String, Object> task = new LinkedHashMap<>();
      task.put("task", t.task().toString());
      task.put("operator", t.task().operator().name());
      task.put("status", t.status());
      task.put("worker", worker);
      task.put("node", worker == null || worker >= nodes.size() ? null : nodes.get(worker));
      task.put("recordsIn", t.recordsIn());
      task.put("recordsOut", t.recordsOut());
      task.put("recordsInPerSecond", t.recordsInPerSecond());
      task.put("busyFraction", t.busyFraction());
      task.put("stateBytes", t.stateBytes());
      task.put("backpressured", t.backpressured());
      tasks.add(task);
    }
    j.put("tasks", tasks);
    j.put("reconfigurations", m.reconfigurations());
    j.put("reconfigurationsCompleted", m.reconfigurationsCompleted());
    return j;
  }

  /**
   * {@code GET /jobs/<id>/autoscaler}: whether the job is autoscaled, the decisions of each kind
   * taken, the last evaluation of every operator and the latest decisions, oldest first, with their
   * reasons and outcomes ({@link JobMetrics#autoscaler}).
   */
  static Map<String, Object> autoscaler(JobMetrics m) {
    AutoscalerStatus a = m.autoscaler();
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("id", m.jobId());
    j.put("status", m.status().name());
    j.put("enabled", a.enabled());
    j.put("scaleOuts", a.scaleOuts());
    j.put("scaleIns", a.scaleIns());
    j.put("rebalances", a.rebalances());
    List<Object> evaluations = new ArrayList<>();
    for (AutoscalerEvaluation e : a.evaluations()) {
      Map<String, Object> o = new LinkedHashMap<>();
      o.put("operator", e.operator());
      o.put("atMillis", e.atMillis());
      o.put("parallelism", e.parallelism());
      o.put("inputRate", e.inputRate());
      o.put("targetRate", e.targetRate());
      o.put("trueRatePerTask", e.trueRatePerTask());
      o.put("busiestUtilization", e.busiestUtilization());
      o.put("wanted", e.wanted());
      o.put("verdict", e.verdict());
      evaluations.add(o);
    }
    j.put("evaluations", evaluations);
    List<Object> decisions = new ArrayList<>();
    for (AutoscalerDecision d : a.decisions()) {
      Map<String, Object> o = new LinkedHashMap<>();
      o.put("atMillis", d.atMillis());
      o.put("operator", d.operator());
      o.put("kind", d.kind().name());
      o.put("from", d.fromParallelism());
      o.put("to", d.toParallelism());
      o.put("reason", d.reason());
      o.put("outcome", d.outcome());
      decisions.add(o);
    }
    j.put("decisions", decisions);
    return j;
  }

  /**
   * {@code GET /jobs/<id>/load}: per operator that heads tasks, its {@link JobMetrics#load}: the
   * live tasks' records per second and busy fraction (decayed; summed, and per task with its busy
   * seconds), records per busy second, and for a keyed operator three arrays indexed by bucket:
   * records per second, busy fraction and the owning task's index.
   */
  static Map<String, Object> loads(JobMetrics m) {
    Map<String, Object> operators = new LinkedHashMap<>();
    for (TaskMetricsSnapshot t : m.tasks()) {
      String name = t.task().operator().name();
      if (operators.containsKey(name)) {
        continue;
      }
      OperatorLoad load = m.load(name);
      Map<String, Object> op = new LinkedHashMap<>();
      op.put("recordsPerSecond", load.recordsPerSecond());
      op.put("busyFraction", load.busyFraction());
      op.put("processingRate", load.processingRate());
      List<Object> tasks = new ArrayList<>();
      for (OperatorLoad.TaskLoad l : load.tasks()) {
        Map<String, Object> task = new LinkedHashMap<>();
        task.put("task", l.task().toString());
        task.put("recordsPerSecond", l.recordsPerSecond());
        task.put("busyFraction", l.busyFraction());
        task.put("busySeconds", l.busyNanos() / 1e9);
        tasks.add(task);
      }
      op.put("tasks", tasks);
      op.put("bucketRecordsPerSecond", load.bucketRecordsPerSecond());
      op.put("bucketBusyFraction", load.bucketBusyFraction());
      op.put("bucketOwners", load.bucketOwners());
      operators.put(name, op);
    }
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("id", m.jobId());
    j.put("status", m.status().name());
    j.put("atMillis", m.atMillis());
    j.put("operators", operators);
    return j;
  }

  private void authorize(HttpExchange x) {
    if (adminToken.isEmpty()) {
      return;
    }
    String given = x.getRequestHeaders().getFirst("Authorization");
    if (given == null
        || !java.security.MessageDigest.isEqual(
            given.getBytes(StandardCharsets.UTF_8),
            ("Bearer " + adminToken).getBytes(StandardCharsets.UTF_8))) {
      throw new Refusal(
          401, "this node's admin API needs Authorization: Bearer <koala.node.http.admin-token>");
    }
  }

  private static void requireMethod(String method, String allowed) {
    if (!method.equals(allowed)) {
      throw new Refusal(405, method + " is not allowed here; use " + allowed);
    }
  }

  private static Map<String, String> query(HttpExchange x) {
    Map<String, String> q = new LinkedHashMap<>();
    String raw = x.getRequestURI().getRawQuery();
    if (raw != null) {
      for (String pair : raw.split("&")) {
        if (pair.isEmpty()) {
          continue;
        }
        int eq = pair.indexOf('=');
        String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
        String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
        q.put(k, v);
      }
    }
    return q;
  }

  private static String required(Map<String, String> q, String name) {
    String v = q.get(name);
    if (v == null || v.isBlank()) {
      throw new Refusal(400, "parameter " + name + " is missing");
    }
    return v;
  }

  /** An optional boolean parameter: absent is false. */
  private static boolean boolParam(Map<String, String> q, String name) {
    String v = q.getOrDefault(name, "false");
    return switch (v) {
      case "true", "" -> true;
      case "false" -> false;
      default ->
          throw new Refusal(400, "parameter " + name + " = \"" + v + "\" is not true or false");
    };
  }

  private static int intParam(Map<String, String> q, String name, int min, int max) {
    String v = required(q, name);
    try {
      int n = Integer.parseInt(v);
      if (n < min || n > max) {
        throw new Refusal(400, "parameter " + name + " = " + n + " is outside " + min + ".." + max);
      }
      return n;
    } catch (NumberFormatException e) {
      throw new Refusal(400, "parameter " + name + " = \"" + v + "\" is not a whole number");
    }
  }

  private static Duration waitOf(Map<String, String> q, Duration dflt) {
    if (!q.containsKey("wait")) {
      return dflt;
    }
    return Duration.ofSeconds(intParam(q, "wait", 0, (int) MAX_WAIT.toSeconds()));
  }

  private static int[] buckets(String list) {
    String[] parts = list.split(",");
    int[] out = new int[parts.length];
    for (int i = 0; i < parts.length; i++) {
      try {
        out[i] = Integer.parseInt(parts[i].trim());
      } catch (NumberFormatException e) {
        throw new Refusal(
            400,
            "parameter buckets: \""
                + parts[i]
                + "\" at position "
                + i
                + " is not a task index (a comma-separated task index per bucket)");
      }
    }
    return out;
  }

  private static void reply(HttpExchange x, int status, Object body) throws IOException {
    byte[] bytes = (Json.encode(body) + "\n").getBytes(StandardCharsets.UTF_8);
    x.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
    x.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = x.getResponseBody()) {
      out.write(bytes);
    }
  }
}
