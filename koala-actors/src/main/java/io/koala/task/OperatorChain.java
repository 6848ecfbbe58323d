package io.koala.task;

import io.koala.KoalaException;
import io.koala.function.Collector;
import io.koala.function.DeadLetter;
import io.koala.function.OutputTag;
import io.koala.function.UserFunctionException;
import io.koala.operator.InternalTimers;
import io.koala.operator.NamespacedState;
import io.koala.operator.Operator;
import io.koala.operator.OperatorContext;
import io.koala.operator.Output;
import io.koala.operator.SinkOperator;
import io.koala.plan.ExecutionPlan.Vertex;
import io.koala.plan.ExecutionPlan.VertexInput;
import io.koala.plan.InputEdge;
import io.koala.plan.OperatorNode;
import io.koala.plan.OperatorNode.Kind;
import io.koala.protocol.TaskSetup;
import io.koala.serialization.Codecs;
import io.koala.serialization.KryoSerde;
import io.koala.state.Codec;
import io.koala.state.KeyedStateContext;
import io.koala.state.TimeDomain;
import io.koala.task.state.KeyedStateBackend;
import io.koala.task.state.KeyedTimers;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The operators of one task, chained: each emits straight into the next, the last into the task's
 * output. Every call into user code goes through here, so a failure names the operator it came from
 * ({@link UserFunctionException}), and the key of the record being processed is kept for the error
 * report. A source task's chain has no source operator: its reader emits into {@link #entry}.
 * Records are counted per operator as they enter it ({@link TaskMetrics#operatorIn}, by position in
 * the vertex's chain, where a source task's source comes first).
 */
final class OperatorChain {
  private static final OperatorHook END_BATCH = Operator::endBatch;
  private static final OperatorHook FINISH = Operator::finish;

  private final TaskSetup setup;
  private final TaskMetrics metrics;
  private final List<Operator<Object, Object>> ops = new ArrayList<>();
  private final List<String> names = new ArrayList<>();
  private final SinkOperator<Object> sink; // the last operator, when a sink; else null
  private final int[] logicalInputs; // vertex input edge → the head operator's input number
  private final int first; // position of ops[0] in the vertex's chain: 1 after a source
  private final List<String> chainNames = new ArrayList<>(); // the vertex's, a source included
  private final RecordErrors errors;
  private Output<Object> entry;
  private OutputGate output; // where dead letters go; null until opened
  // dead letters of records the source's reader could not read, from its fetching thread
  private final java.util.Queue<DeadLetter> unreadable =
      new java.util.concurrent.ConcurrentLinkedQueue<>();
  private KeyedStateBackend keyed; // null: the chain keeps no keyed state
  private boolean opened; // not so for a holder resumed from a snapshot
  private boolean sinkOpened; // only the sink: a holder resumed from a snapshot
  private boolean retiring; // a reconfiguration removes the task
  private boolean sinkPending; // the sink keeps output only a checkpoint publishes

  /** Key of the record being processed by a keyed head, for error reports; null when unknown. */
  private Object recordKey;

  /** What the operators' contexts reach outside the chain. */
  record Environment(
      TaskHost host,
      KryoSerde serde,
      KeyedStateBackend state,
      KeyedTimers timers,
      EventTime eventTime,
      OutputGate output,
      long restoredCheckpoint,
      Map<String, byte[]> restoredSinkStates) {}

  @SuppressWarnings("unchecked")
  OperatorChain(TaskSetup setup, Vertex vertex, TaskMetrics metrics, RecordErrors errors) {
    this.setup = setup;
    this.metrics = metrics;
    this.errors = errors;
    logicalInputs = new int[vertex.inputs().size()];
    for (VertexInput vi : vertex.inputs()) {
      logicalInputs[vi.index()] = vi.logicalInput();
    }
    for (OperatorNode n : vertex.chain()) {
      chainNames.add(n.id().name());
      if (n.kind() != Kind.SOURCE) {
        ops.add((Operator<Object, Object>) n.factory().create());
        names.add(n.id().name());
      }
    }
    first = vertex.chain().size() - ops.size();
    Object last = ops.isEmpty() ? null : ops.get(ops.size() - 1);
    sink = last instanceof SinkOperator<?> s ? (SinkOperator<Object>) s : null;
  }

  /**
   * Whether the chain takes records now: false while its sink cannot (its consumer is behind); the
   * sink wakes the task ({@link TaskHost#waker}) once it can.
   */
  boolean ready() {
    if (sink == null) {
      return true;
    }
    try {
      return sink.ready();
    } catch (KoalaException e) {
      throw e;
    } catch (Exception e) {
      throw new UserFunctionException(tailName(), e);
    }
  }

  /** Opens the operators, last first, each emitting into the next and the last into the output. */
  void open(Environment env) throws Exception {
    if (sink != null) {
      sink.restoreState(env.restoredSinkStates().get(tailName()));
    }
    Output<Object> downstream = env.output()::emit;
    for (int i = ops.size() - 1; i >= 0; i--) {
      ops.get(i).open(new Context(i, downstream, env));
      downstream = chained(i);
    }
    opened = true;
    output = env.output();
    entry = errors.skips() ? guarded(downstream) : downstream;
    keyed = env.state();
  }

  boolean opened() {
    return opened;
  }

  /** Where a source's records enter the chain. */
  Output<Object> entry() {
    return entry;
  }

  /** The name of operator {@code i}, or the task's operator when the chain has none. */
  String name(int i) {
    return names.isEmpty() ? setup.task().operator().name() : names.get(i);
  }

  String headName() {
    return name(0);
  }

  String tailName() {
    return name(ops.size() - 1);
  }

  /** The key of the record being processed, for error reports ({@code null}: none). */
  Object recordKey() {
    return recordKey;
  }

  void recordKey(Object key) {
    recordKey = key;
  }

  /**
   * Runs the head operator on a record of an input channel: the only place such a record counts as
   * processed (by the head, and so by the task), and by the bucket of its key, which is current.
   */
  void processHead(Object value, long timestamp, int edge) {
    metrics.operatorIn[first]++;
    if (keyed != null) {
      metrics.loads.record(keyed.currentBucket());
    }
    try {
      ops.get(0).process(value, timestamp, logicalInputs[edge]);
    } catch (UserFunctionException e) {
      skipOrThrow(e, value, timestamp);
    } catch (KoalaException e) {
      throw e;
    } catch (Exception e) {
      skipOrThrow(new UserFunctionException(names.get(0), e), value, timestamp);
    }
  }

  /**
   * Record {@code value}, of event time {@code timestamp}, failed with {@code e} where it entered
   * the task: skipped when the job's policy says so ({@link RecordErrors}), and then sent to the
   * dead letters if they are sent on from here; else rethrown. A sink's failure is always rethrown:
   * a write that did not happen may be an outage, never a record to drop.
   */
  private void skipOrThrow(UserFunctionException e, Object value, long timestamp) {
    if (sink != null && e.operator().equals(tailName())) {
      throw e;
    }
    errors.skipOrThrow(e, positionOf(e.operator()), recordKey);
    if (errors.deadLetters()) {
      output.route(
          InputEdge.DEAD_LETTERS,
          new DeadLetter(
              e.operator(),
              setup.task().toString(),
              recordKey == null ? null : DeadLetter.text(recordKey),
              DeadLetter.text(value),
              value == null ? "null" : value.getClass().getName(),
              String.valueOf(e.getCause()),
              timestamp),
          timestamp);
    }
  }

  /**
   * Whether a record the source's reader could not read ({@code what}: where it was) is skipped,
   * charged to the source, by the job's policy ({@link
   * io.koala.connector.SourceContext#skipRecord}); if it is and dead letters are sent on from here,
   * its dead letter waits for the task's thread ({@link #sendUnreadable}). Thread-safe: a reader's
   * fetching thread may ask.
   */
  boolean skipUnreadable(String what, Exception cause) {
    String source = chainNames.get(0);
    if (!errors.trySkip(source, 0, what, cause, errors.deadLetters())) {
      return false;
    }
    if (errors.deadLetters()) {
      unreadable.add(
          new DeadLetter(
              source,
              setup.task().toString(),
              null,
              what,
              null,
              String.valueOf(cause),
              Long.MIN_VALUE));
    }
    return true;
  }

  /**
   * Sends the dead letters of the records the source could not read since the last call, on the
   * task's thread: before each read, and before a snapshot takes the reader's positions, so that a
   * checkpoint past such a record has its dead letter (one may come again after a rollback to a
   * checkpoint before the reader handed the record's position over).
   */
  void sendUnreadable() {
    for (DeadLetter d = unreadable.poll(); d != null; d = unreadable.poll()) {
      output.route(InputEdge.DEAD_LETTERS, d, Long.MIN_VALUE);
    }
  }

  /**
   * The chain position a failure of {@code operator} is charged to: its own when it is in this
   * chain, else the tail's (a downstream operator's key selector, run as the tail emits).
   */
  private int positionOf(String operator) {
    int p = chainNames.indexOf(operator);
    return p >= 0 ? p : chainNames.size() - 1;
  }

  /** Runs a timer callback of the head operator (the key is current). */
  void onTimer(long timestamp, byte[] namespace, TimeDomain domain) {
    if (keyed != null) {
      metrics.loads.timer(keyed.currentBucket());
    }
    try {
      ops.get(0).onTimer(timestamp, namespace, domain);
    } catch (KoalaException e) {
      throw e;
    } catch (Exception e) {
      throw new UserFunctionException(names.get(0), e);
    }
  }

  void endBatch() {
    each(END_BATCH);
  }

  void processWatermark(long watermark) {
    each(op -> op.processWatermark(watermark));
  }

  /**
   * Every input has ended: the operators finish, upstream first. A retiring task's sink that
   * publishes at checkpoints only flushes instead ({@link SinkOperator#retire}): the task's
   * checkpoints as a holder then prepare what it keeps, and their commits publish it.
   */
  void finish() {
    if (!retiring || sink == null || !sink.publishesAtCheckpoints()) {
      each(FINISH);
      return;
    }
    for (int i = 0; i < ops.size() - 1; i++) {
      call(i, FINISH);
    }
    call(ops.size() - 1, op -> sink.retire());
    sinkPending = true;
  }

  /**
   * A reconfiguration removes this task: when its input ends it retires rather than finishes
   * ({@link #finish}).
   */
  void retiring() {
    retiring = true;
  }

  /** Whether the sink keeps output that this finished task's checkpoints must prepare. */
  boolean sinkPending() {
    return sinkPending;
  }

  /** A finished task's checkpoint {@code checkpointId}: its sink prepares what it keeps. */
  void prepareSink(long checkpointId) {
    recordKey = null;
    call(ops.size() - 1, op -> sink.snapshotState(checkpointId));
  }

  /**
   * Resumes the sink of a task restored as a holder (it processes nothing more): the writer opens
   * from the checkpoint, so it publishes what that checkpoint prepared, and keeps what it keeps for
   * this task's later checkpoints and their commits.
   */
  void openSinkOfHolder(Environment env) {
    if (sink == null) {
      return;
    }
    sink.restoreState(env.restoredSinkStates().get(tailName()));
    call(ops.size() - 1, op -> op.open(new Context(ops.size() - 1, env.output()::emit, env)));
    sinkOpened = true;
    sinkPending = true;
  }

  /** Checkpoint {@code checkpointId} is committed: tells the opened operators. */
  void checkpointCommitted(long checkpointId) {
    if (opened) {
      eachOperator(op -> op.checkpointCommitted(checkpointId));
    } else if (sinkOpened) {
      recordKey = null;
      call(ops.size() - 1, op -> sink.checkpointCommitted(checkpointId));
    }
  }

  /**
   * The state the chain's sink writer keeps in the snapshot just taken ({@link
   * SinkOperator#pendingState}), by sink name; empty when the chain has no sink or it keeps none.
   */
  Map<String, byte[]> sinkStates() {
    if (sink == null) {
      return Map.of();
    }
    byte[] state;
    try {
      state = sink.pendingState();
    } catch (KoalaException e) {
      throw e;
    } catch (Exception e) {
      throw new UserFunctionException(tailName(), e);
    }
    return state == null ? Map.of() : Map.of(tailName(), state);
  }

  /** Calls {@code hook} on the operators, upstream first, outside any record's key. */
  void eachOperator(OperatorHook hook) {
    recordKey = null; // a hook works on no record's key
    each(hook);
  }

  /** Calls {@code hook} on the operators, upstream first; a failure names the operator. */
  private void each(OperatorHook hook) {
    for (int i = 0; i < ops.size(); i++) {
      call(i, hook);
    }
  }

  /** Calls {@code hook} on operator {@code i}; a failure names it. */
  private void call(int i, OperatorHook hook) {
    try {
      hook.call(ops.get(i));
    } catch (KoalaException e) {
      throw e;
    } catch (Exception e) {
      throw new UserFunctionException(names.get(i), e);
    }
  }

  @FunctionalInterface
  interface OperatorHook {
    void call(Operator<Object, Object> op) throws Exception;
  }

  /** Closes the operators, best effort: the task is already done, and its outcome reported. */
  void close() {
    for (Operator<Object, Object> op : ops) {
      try {
        op.close();
      } catch (Exception e) {
        // Closing is best effort: the task is already done, and its outcome reported.
      }
    }
    ops.clear();
  }

  /**
   * {@code out}, where a source task's reader emits, skipping a record that fails after it (the
   * job's policy skips records): the reader goes on with its next.
   */
  private Output<Object> guarded(Output<Object> out) {
    return (value, ts) -> {
      try {
        out.emit(value, ts);
      } catch (UserFunctionException e) {
        skipOrThrow(e, value, ts);
      }
    };
  }

  /** What operator {@code i} is given by the one before it (or, at a source task's head, read). */
  private Output<Object> chained(int i) {
    Operator<Object, Object> op = ops.get(i);
    String name = names.get(i);
    long[] in = metrics.operatorIn;
    int position = first + i;
    return (value, ts) -> {
      in[position]++;
      try {
        op.process(value, ts, 0);
      } catch (KoalaException e) {
        throw e;
      } catch (Exception e) {
        throw new UserFunctionException(name, e);
      }
    };
  }

  /** The context of operator {@code index} of the chain. */
  private final class Context implements OperatorContext<Object> {
    private final int index;
    private final Output<Object> output;
    private final Environment env;

    Context(int index, Output<Object> output, Environment env) {
      this.index = index;
      this.output = output;
      this.env = env;
    }

    @Override
    public String operatorName() {
      return names.get(index);
    }

    @Override
    public int taskIndex() {
      return setup.task().index();
    }

    @Override
    public int parallelism() {
      return setup.parallelism();
    }

    @Override
    public Output<Object> output() {
      return output;
    }

    @Override
    public KeyedStateContext keyedState() {
      checkKeyed();
      return env.state();
    }

    @Override
    public NamespacedState namespacedState() {
      checkKeyed();
      return env.state();
    }

    @Override
    public InternalTimers timers() {
      checkKeyed();
      return env.timers();
    }

    @Override
    public long currentWatermark() {
      return env.eventTime().current();
    }

    @Override
    public <T> Codec<T> codec(Class<T> type) {
      return Codecs.forClass(type, env.serde());
    }

    @Override
    @SuppressWarnings("unchecked")
    public <X> Output<X> sideOutput(OutputTag<X> tag) {
      if (index != ops.size() - 1) {
        return (value, ts) -> {}; // only the chain's last operator has edges of its own
      }
      OutputGate out = env.output();
      return (Output<X>)
          (Output<?>) (Output<Object>) (value, ts) -> out.route(tag.name(), value, ts);
    }

    @Override
    public void lateRecordDropped() {
      metrics.operatorLate[first + index]++;
    }

    @Override
    public Object currentKey() {
      checkKeyed();
      return env.state().currentKey();
    }

    private void checkKeyed() {
      if (index != 0 || env.state() == null) {
        throw new IllegalStateException(
            "operator '"
                + operatorName()
                + "' has no keyed state: it must follow keyBy(...) (declare an SPI operator's"
                + " factory with OperatorFactory.keyed(...) so that build() checks it)");
      }
    }

    @Override
    public Collector<Object> clientResults() {
      return env.output()::collectForClient;
    }

    @Override
    public long restoredCheckpoint() {
      return env.restoredCheckpoint();
    }

    @Override
    public boolean checkpointing() {
      return env.host().checkpointing();
    }

    @Override
    public void requestCheckpoint(String reason) {
      env.host().checkpointWanted(reason);
    }

    @Override
    public Runnable waker() {
      return env.host().waker();
    }
  }
}
