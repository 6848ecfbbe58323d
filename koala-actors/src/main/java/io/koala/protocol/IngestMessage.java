package io.koala.protocol;

import java.util.List;

/**
 * The messages between a service's {@code Ingest} handle and the tasks of an ingest source
 * (docs/decisions.md, "Push ingestion"). Records are numbered by the handle: record {@code s} (from
 * 1) goes to task {@code (s - 1) mod parallelism}, as that task's record number {@code (s - 1) /
 * parallelism} (from 0), so a task's position (how many records of its stripe it has emitted) says
 * exactly which records it has, and checkpoints keep that position.
 */
public sealed interface IngestMessage extends KoalaMessage {

  /** What a task receives. */
  sealed interface ToTask extends IngestMessage, TaskMessage {}

  /** What the handle receives. */
  sealed interface ToClient extends IngestMessage {}

  /**
   * Coordinator → task: the handle feeding this source, at {@code client} (an address the task's
   * host sends to: an actor reference in the runtime). {@code attachment} grows with every
   * attachment the coordinator sends, so the handle keeps to a task's latest incarnation.
   */
  record Attach(long attachment, Object client) implements ToTask {}

  /**
   * Handle → task: the task's records number {@code first}, {@code first + 1}, ... of its stripe.
   */
  record Batch(long attachment, long first, List<Object> records) implements ToTask {}

  /** Handle → task: the task's stripe ends after {@code count} records. */
  record End(long attachment, long count) implements ToTask {}

  /**
   * Task → handle: the task (of {@code parallelism}) is at {@code position} and takes {@code
   * window} records beyond what it has emitted; its records go to {@code address}. Sent on each
   * attachment, and again when a batch does not follow on from what it has.
   */
  record Hello(
      int task,
      int parallelism,
      long attachment,
      Object address,
      long position,
      int window,
      boolean checkpointing)
      implements ToClient {}

  /**
   * Task → handle: it has emitted {@code position} records of its stripe (cumulative; re-sent
   * periodically, so a lost one is harmless).
   */
  record Consumed(int task, long attachment, long position) implements ToClient {}

  /**
   * Task → handle: a completed checkpoint holds the first {@code position} records of its stripe.
   */
  record Committed(int task, long attachment, long position) implements ToClient {}
}
