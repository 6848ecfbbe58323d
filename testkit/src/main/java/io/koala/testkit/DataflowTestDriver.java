package io.koala.testkit;

import io.koala.coordinator.Change;
import io.koala.coordinator.JobReply;
import io.koala.coordinator.WorkerPool;
import io.koala.dataflow.Dataflow;
import io.koala.job.ErrorInfo;
import io.koala.job.ReconfigurationException;
import io.koala.job.ReconfigurationReport;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.LogicalPlan;
import io.koala.plan.OperatorId;
import io.koala.plan.OperatorNode;
import io.koala.protocol.ChannelSettings;
import io.koala.routing.PartitionPolicy;
import io.koala.runtime.JobFailedException;
import io.koala.testkit.sim.Simulation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Runs a dataflow synchronously in the calling thread, with no actors and no runtime: the real task
 * engines of its operators on in-memory state stores, with a virtual processing-time clock. Feed
 * its sources through {@link #input}, move time with {@link #advanceProcessingTime}, reconfigure it
 * between inputs ({@link #rescale}, {@link #rebalance}, {@link #migrate}), and read what its
 * collecting sinks got ({@link #readOutput}) and what a key's state is ({@link #state}). Like Kafka
 * Streams' {@code TopologyTestDriver}, for unit tests of dataflows.
 *
 * <pre>{@code
 * try (DataflowTestDriver driver = new DataflowTestDriver(dataflow)) {
 *   TestInput<String> words = driver.input("words");
 *   words.pipeAll(List.of("a", "b", "a"));
 *   driver.rescale("count", 4);
 *   words.pipe("a");
 *   assertThat(driver.<KeyValue<String, Long>>readOutput("counts")).endsWith(new KeyValue<>("a", 3L));
 *   assertThat(driver.state("count", "a", "accumulator", Long.class)).isEqualTo(3L);
 * }
 * }</pre>
 *
 * <p><b>Contract.</b> Every source of the dataflow becomes a {@link TestInput}: what its own spec
 * would read is ignored, its {@code WatermarkStrategy} and parallelism are kept, and every record
 * piped goes to its first task, so the records of a key reach the key's owner in the order piped.
 * Every call runs the dataflow until it is quiescent — no message in flight, nothing due at the
 * current processing time — before it returns, so assertions after a call see its whole effect.
 * Which of several messages due at the same time goes first is chosen by a seeded random: a run
 * replays exactly for its seed, and differing seeds explore different interleavings. Processing
 * time starts at 0 and moves only with {@link #advanceProcessingTime}. A user function that throws
 * fails the run: the call throws {@link JobFailedException}, and so does every later call.
 *
 * <p>Sinks other than collecting ones ({@code SinkSpec.collecting}) run as they are. There is one
 * worker: {@link #migrate} replaces a task by a new one, moving its state as a migration does.
 *
 * <p>Not thread-safe: use a driver from one thread. Close it to release its tasks.
 */
public final class DataflowTestDriver implements AutoCloseable {
  /**
   * The channel settings of every driver (see the constructor): batches of up to 64 records sent at
   * once (no linger), 4 credits per channel, periodic watermarks every 200 ms.
   */
  private static final ChannelSettings SETTINGS = new ChannelSettings(64, 1 << 20, 0, 4, 200);

  /** The most steps one call may take before the driver gives up (a livelock). */
  private static final long MAX_STEPS = 50_000_000;

  private final String name;
  private final Simulation sim;
  private final Map<String, FedSource> inputs = new LinkedHashMap<>();
  private final List<String> sinks = new ArrayList<>();
  private boolean closed;

  /** A driver for {@code dataflow} with seed 0. */
  public DataflowTestDriver(Dataflow dataflow) {
    this(dataflow, 0);
  }

  /**
   * A driver for {@code dataflow} whose interleavings follow {@code seed}: batches of up to 64
   * records, sent at once; 4 credits per channel; sources' periodic watermarks every 200 ms of
   * processing time.
   */
  public DataflowTestDriver(Dataflow dataflow, long seed) {
    Objects.requireNonNull(dataflow, "dataflow");
    LogicalPlan plan = dataflow.plan();
    this.name = plan.name();
    List<OperatorNode> nodes = new ArrayList<>();
    for (OperatorNode n : plan.topologicalOrder()) {
      if (n.kind() == OperatorNode.Kind.SOURCE) {
        FedSource log = new FedSource(n.id().name(), n.parallelism(), n.watermarks());
        inputs.put(n.id().name(), log);
        n =
            new OperatorNode(
                n.id(),
                n.kind(),
                n.parallelism(),
                n.inputs(),
                log,
                null,
                n.keyedState(),
                n.watermarks(),
                n.capacity());
      } else if (n.kind() == OperatorNode.Kind.SINK) {
        sinks.add(n.id().name());
      }
      nodes.add(n);
    }
    this.sim =
        Simulation.of(
            LogicalPlan.of(plan.name(), nodes, plan.buckets(), plan.types()), SETTINGS, seed);
    settle();
  }

  /**
   * The input of source {@code source}.
   *
   * @param <T> the type of the source's records (unchecked)
   * @throws IllegalArgumentException if the dataflow has no such source
   */
  public <T> TestInput<T> input(String source) {
    return new TestInput<>(this, log(source));
  }

  /** The processing-time clock, in milliseconds since the driver started (at 0). */
  public long currentProcessingTime() {
    return sim.now();
  }

  /**
   * Moves processing time forward by {@code duration}, running everything that falls due on the way
   * in time order: processing-time timers, periodic source watermarks (and idleness), and what they
   * cause.
   */
  public void advanceProcessingTime(Duration duration) {
    if (duration.isNegative()) {
      throw new IllegalArgumentException("processing time cannot go back: " + duration);
    }
    checkOpen();
    run(sim.now() + duration.toMillis());
  }

  /**
   * Rescales operator {@code operator} to {@code parallelism} tasks, moving only the buckets the
   * new tasks need or the removed ones had (a stage without keyed input has none); returns when the
   * reconfiguration has completed. The state of the moved keys moves lazily, when their new owner
   * first touches them: {@link #state} finds it wherever it is.
   *
   * @throws ReconfigurationException {@code INVALID_REQUEST} for an unknown operator, a source, a
   *     stage reading a forward edge or a parallelism outside [1, buckets]; {@code JOB_ENDING} once
   *     an input has ended
   */
  public ReconfigurationReport rescale(String operator, int parallelism) {
    return rescale(operator, parallelism, PartitionPolicy.even());
  }

  /** Rescales {@code operator} to {@code parallelism} tasks, placing buckets by {@code policy}. */
  public ReconfigurationReport rescale(String operator, int parallelism, PartitionPolicy policy) {
    return reconfigure(new Change.Rescale(operator, parallelism, policy));
  }

  /** Gives the tasks of keyed operator {@code operator} their buckets by {@code policy}. */
  public ReconfigurationReport rebalance(String operator, PartitionPolicy policy) {
    return reconfigure(new Change.Rebalance(operator, policy));
  }

  /**
   * Replaces task {@code task} of operator {@code operator} by a new task, which takes over its
   * buckets (and, lazily, their state), as a migration to another worker does.
   */
  public ReconfigurationReport migrate(String operator, int task) {
    return reconfigure(new Change.Migrate(operator, task, 0));
  }

  /** The live task indices of operator {@code operator} (indices are never reused). */
  public List<Integer> tasks(String operator) {
    checkOpen();
    OperatorId vertex = sim.plan().vertexOf(new OperatorId(operator)).id();
    return Arrays.stream(sim.deployment().liveTasks(vertex)).boxed().toList();
  }

  /**
   * Takes what collecting sink {@code sink} has received since the last call, in arrival order.
   *
   * @param <T> the sink's record type (unchecked)
   * @throws IllegalArgumentException if the dataflow has no such sink
   */
  @SuppressWarnings("unchecked")
  public <T> List<T> readOutput(String sink) {
    checkOpen();
    if (!sinks.contains(sink)) {
      throw new IllegalArgumentException(
          "dataflow '" + name + "' has no sink '" + sink + "'; its sinks: " + sinks);
    }
    return (List<T>) List.copyOf(sim.takeCollected(sink));
  }

  /**
   * The {@code ValueState} named {@code stateName} of {@code key} at keyed operator {@code
   * operator}, or {@code null} if the key has none: read where the key's owner would find it, in
   * its own store or, if a reconfiguration moved the key's bucket and the key has not been touched
   * since, in the store of the task that still holds it. The built-in aggregations ({@code count},
   * {@code aggregate}) keep their accumulator in state {@code "accumulator"}, {@code reduce} in
   * {@code "reduced"} (declared as {@code Object}).
   *
   * @param type the class the operator declared the state with
   * @throws IllegalArgumentException if {@code operator} is unknown or not keyed
   */
  public <V> V state(String operator, Object key, String stateName, Class<V> type) {
    checkOpen();
    ExecutionPlan.Vertex v = sim.plan().vertexOf(new OperatorId(operator));
    if (!v.isKeyed()) {
      throw new IllegalArgumentException("operator '" + operator + "' has no keyed state");
    }
    return sim.valueState(v.id(), key, stateName, type);
  }

  /** Closes every task and its store. Idempotent. */
  @Override
  public void close() {
    if (!closed) {
      closed = true;
      sim.finish();
    }
  }

  // ------------------------------------------------ for TestInput and KoalaAssertions

  FedSource log(String source) {
    FedSource log = inputs.get(source);
    if (log == null) {
      throw new IllegalArgumentException(
          "dataflow '"
              + name
              + "' has no source '"
              + source
              + "'; its sources: "
              + inputs.keySet());
    }
    return log;
  }

  void feed(FedSource log, Object value, long timestamp) {
    checkOpen();
    log.append(value, timestamp, sim.now());
    sim.wake(new OperatorId(log.name()));
  }

  void declare(FedSource log, long watermark) {
    checkOpen();
    log.declare(watermark);
    sim.wake(new OperatorId(log.name()));
  }

  void end(FedSource log) {
    checkOpen();
    log.end();
    sim.wake(new OperatorId(log.name()));
  }

  /** Ends every input not ended yet. */
  void endAll() {
    for (FedSource log : inputs.values()) {
      if (!log.ended()) {
        end(log);
      }
    }
  }

  List<String> sinks() {
    return List.copyOf(sinks);
  }

  /** Runs until quiescent at the current processing time. */
  void settle() {
    checkOpen();
    run(sim.now());
  }

  /** Checks {@code change} and asks for it; it runs with what is fed until the next settle. */
  void request(Change change) {
    checkOpen();
    OperatorId vertex;
    try {
      vertex = Change.check(change, sim.plan(), sim.deployment(), WorkerPool.of(1));
      change.plan(sim.deployment(), vertex); // fails now if it cannot apply
    } catch (IllegalArgumentException e) {
      throw new ReconfigurationException(
          ReconfigurationException.Reason.INVALID_REQUEST, e.getMessage());
    }
    if (inputs.values().stream().anyMatch(FedSource::ended)) {
      throw new ReconfigurationException(
          ReconfigurationException.Reason.JOB_ENDING,
          "dataflow '" + name + "' is finishing: an input has ended");
    }
    sim.reconfigure(change);
  }

  /** How many requests have completed (carried out, or found to change nothing). */
  int completedRequests() {
    return sim.completedRequests() + sim.noopRequests();
  }

  private ReconfigurationReport reconfigure(Change change) {
    int n = sim.requests();
    request(change); // checks it: the operator exists and heads a keyed vertex
    settle();
    JobReply.Outcome outcome = sim.outcome(n);
    if (outcome instanceof JobReply.Rejected r) {
      throw new ReconfigurationException(r.kind(), r.reason());
    }
    if (!(outcome instanceof JobReply.Completed c) || sim.reconfiguring()) {
      throw new IllegalStateException(
          change + " did not complete while processing time stood still");
    }
    return c.report();
  }

  private void run(long untilMillis) {
    boolean settled = sim.runUntil(untilMillis, MAX_STEPS);
    List<ErrorInfo> failures = sim.failures();
    if (!failures.isEmpty()) {
      throw new JobFailedException(name, failures.get(0));
    }
    if (!settled) {
      throw new IllegalStateException(
          "dataflow '" + name + "' did not become quiescent within " + MAX_STEPS + " steps");
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("the driver of '" + name + "' is closed");
    }
  }
}
