package io.koala.operator;

import io.koala.connector.SinkContext;
import io.koala.connector.SinkSpec;
import io.koala.connector.SinkWriter;
import io.koala.function.Collector;

/**
 * Runs the writer of a {@link SinkSpec}: flushes it after every input batch, passes the task's
 * checkpoints on to it (a snapshot prepares a commit, a committed checkpoint commits it), and tells
 * the task whether it takes records now.
 */
public final class SinkOperator<T> implements Operator<T, Void> {
  private final SinkSpec<T> spec;
  private SinkWriter<T> writer;
  private byte[] restoredState; // the writer's state in the checkpoint resumed from, or null
  private boolean checkpointing; // the job takes checkpoints: the writer publishes at their commits

  public SinkOperator(SinkSpec<T> spec) {
    this.spec = spec;
  }

  /**
   * Before {@link #open}: what the writer saved ({@link SinkWriter#pendingState}) in the checkpoint
   * the task resumes from; null when none.
   */
  public void restoreState(byte[] state) {
    this.restoredState = state;
  }

  @Override
  public void open(OperatorContext<Void> ctx) throws Exception {
    checkpointing = ctx.checkpointing();
    writer =
        spec.open(
            new SinkContext() {
              @Override
              public String sinkName() {
                return ctx.operatorName();
              }

              @Override
              public int taskIndex() {
                return ctx.taskIndex();
              }

              @Override
              public int parallelism() {
                return ctx.parallelism();
              }

              @Override
              public Collector<Object> clientResults() {
                return ctx.clientResults();
              }

              @Override
              public boolean checkpointing() {
                return ctx.checkpointing();
              }

              @Override
              public long restoredCheckpoint() {
                return ctx.restoredCheckpoint();
              }

              @Override
              public byte[] restoredState() {
                return restoredState;
              }

              @Override
              public void requestCheckpoint(String reason) {
                ctx.requestCheckpoint(reason);
              }

              @Override
              public Runnable waker() {
                return ctx.waker();
              }
            });
  }

  /** Whether the writer takes records now ({@link SinkWriter#ready}). */
  public boolean ready() throws Exception {
    return writer.ready();
  }

  @Override
  public void process(T value, long timestamp, int input) throws Exception {
    writer.write(value, timestamp);
  }

  @Override
  public void endBatch() throws Exception {
    writer.flush();
  }

  @Override
  public void snapshotState(long checkpointId) throws Exception {
    writer.prepareCommit(checkpointId);
  }

  /** The writer's state at the barrier just snapshotted ({@link SinkWriter#pendingState}). */
  public byte[] pendingState() throws Exception {
    return writer.pendingState();
  }

  @Override
  public void checkpointCommitted(long checkpointId) throws Exception {
    writer.commit(checkpointId);
  }

  @Override
  public void finish() throws Exception {
    writer.flush();
    writer.finish();
  }

  /** Whether the writer publishes at checkpoint commits (the job takes checkpoints). */
  public boolean publishesAtCheckpoints() {
    return checkpointing;
  }

  /**
   * The task retires (a reconfiguration removed it) once its input has ended: flushes, but does not
   * finish the writer — what it wrote since the last checkpoint is prepared at the task's next
   * checkpoint and published when that commits, so a rollback past the removal, which writes those
   * records again, never finds them published.
   */
  public void retire() throws Exception {
    writer.flush();
  }

  @Override
  public void close() throws Exception {
    if (writer != null) {
      writer.close();
    }
  }
}
