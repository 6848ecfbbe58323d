package io.koala.task;

import io.koala.dataflow.Dataflow;
import io.koala.deploy.DeploymentPlan;
import io.koala.job.ErrorInfo;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.LogicalPlan;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.Credit;
import io.koala.protocol.Deliver;
import io.koala.protocol.KoalaMessage;
import io.koala.protocol.RecordBatch;
import io.koala.protocol.TaskSetup;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.TypeRegistry;
import io.koala.store.StateStore;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * A task engine's host for tests: records every effect (sends, timers, reports) instead of carrying
 * it out, and serves a manual clock. Timers fire only when a test fires them.
 */
final class FakeServices implements TaskHost {

  /** A message the engine sent. */
  record Sent(Object target, KoalaMessage message) {}

  /** A timer the engine asked for. */
  record Scheduled(TaskTimer timer, long delayMillis) {}

  final List<Sent> sent = new ArrayList<>();
  final List<Scheduled> timers = new ArrayList<>();
  final List<ErrorInfo> failures = new ArrayList<>();

  /** A snapshot the engine handed over: the read transaction stays open until a test closes it. */
  record Snapshot(long checkpointId, io.koala.store.ReadTxn txn, byte[] metadata) {}

  final List<Snapshot> snapshots = new ArrayList<>();
  boolean checkpointing;

  @Override
  public boolean checkpointing() {
    return checkpointing;
  }

  @Override
  public void snapshot(long checkpointId, io.koala.store.ReadTxn txn, byte[] metadata) {
    snapshots.add(new Snapshot(checkpointId, txn, metadata));
  }

  int finished;
  long nowMillis;
  private long nanos;

  @Override
  public void send(Object target, KoalaMessage message) {
    sent.add(new Sent(target, message));
  }

  @Override
  public void schedule(TaskTimer timer, long delayMillis) {
    timers.add(new Scheduled(timer, delayMillis));
  }

  @Override
  public void finished() {
    finished++;
  }

  @Override
  public void failed(ErrorInfo error) {
    failures.add(error);
  }

  @Override
  public long currentTimeMillis() {
    return nowMillis;
  }

  @Override
  public long nanoTime() {
    nanos += 1_000;
    return nanos;
  }

  /** Lets {@code millis} pass on the nanosecond clock (each reading also adds 1 µs). */
  void elapse(long millis) {
    nanos += millis * 1_000_000;
  }

  /** Removes and returns the pending timer of kind {@code timer}, or null. */
  Scheduled takeTimer(TaskTimer timer) {
    for (Iterator<Scheduled> it = timers.iterator(); it.hasNext(); ) {
      Scheduled s = it.next();
      if (s.timer() == timer) {
        it.remove();
        return s;
      }
    }
    return null;
  }

  /** Removes and returns every message sent so far. */
  List<Sent> takeSent() {
    List<Sent> out = List.copyOf(sent);
    sent.clear();
    return out;
  }

  /** The data items sent to {@code target}, in order. */
  List<Deliver> deliveries(Object target) {
    List<Deliver> out = new ArrayList<>();
    for (Sent s : sent) {
      if (s.target().equals(target) && s.message() instanceof Deliver d) {
        out.add(d);
      }
    }
    return out;
  }

  /** The records (flattened batches) sent to {@code target}, in order. */
  List<Object> records(Object target) {
    List<Object> out = new ArrayList<>();
    for (Deliver d : deliveries(target)) {
      if (d.item() instanceof RecordBatch b) {
        for (int i = 0; i < b.size(); i++) {
          out.add(b.value(i));
        }
      }
    }
    return out;
  }

  /** The credit grants sent to {@code target}, in order. */
  List<Credit> credits(Object target) {
    List<Credit> out = new ArrayList<>();
    for (Sent s : sent) {
      if (s.target().equals(target) && s.message() instanceof Credit c) {
        out.add(c);
      }
    }
    return out;
  }

  // ------------------------------------------------------------------ building engines

  /** A deployed task of a dataflow, ready to drive. */
  record Task(TaskEngine engine, TaskSetup setup, ExecutionPlan.Vertex vertex) {
    /** The id of the channel from {@code sender} into this task. */
    int inputFrom(TaskId sender) {
      for (TaskSetup.InputSpec in : setup.inputs()) {
        if (in.from().equals(sender)) {
          return in.channel();
        }
      }
      throw new IllegalArgumentException("no input from " + sender + " in " + setup);
    }

    /** The id of the channel from this task to {@code target}. */
    int outputTo(TaskId target) {
      for (TaskSetup.OutputSpec out : setup.outputs()) {
        int i = out.targets().indexOf(target);
        if (i >= 0) {
          return out.channels().get(i);
        }
      }
      throw new IllegalArgumentException("no output to " + target + " in " + setup);
    }
  }

  /** Deploys {@code dataflow} on one worker and builds the engine of task {@code head#index}. */
  Task task(Dataflow dataflow, String head, int index, ChannelSettings settings, StateStore store) {
    return task(dataflow.plan(), head, index, settings, store);
  }

  /** Deploys a logical plan built by hand (for what the DSL cannot express yet). */
  Task task(
      LogicalPlan logical, String head, int index, ChannelSettings settings, StateStore store) {
    ExecutionPlan plan = ExecutionPlan.of(logical);
    DeploymentPlan deployment = DeploymentPlan.of("job", plan, 1, settings);
    TaskId id = new TaskId(new OperatorId(head), index);
    TaskSetup setup = deployment.setups().get(id);
    ExecutionPlan.Vertex vertex = plan.vertex(id.operator());
    TypeRegistry registry = TypeRegistry.withDefaults();
    registry.register(logical.types().toArray(new Class<?>[0]));
    TaskEngine engine = new TaskEngine(setup, vertex, store, new KryoSerde(registry), this);
    return new Task(engine, setup, vertex);
  }

  static TaskId taskId(String operator, int index) {
    return new TaskId(new OperatorId(operator), index);
  }

  static RecordBatch batch(Object... values) {
    long[] timestamps = new long[values.length];
    for (int i = 0; i < values.length; i++) {
      timestamps[i] = 1_000 + i;
    }
    return new RecordBatch(values.clone(), timestamps, values.length);
  }
}
