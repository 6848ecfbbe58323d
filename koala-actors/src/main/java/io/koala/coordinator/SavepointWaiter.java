package io.koala.coordinator;

/**
 * Who waits for a checkpoint to write a savepoint from it ({@link JobInput.TakeSavepoint}): a value
 * that {@link JobCheckpoints} answers itself, never told directly. Registered with the serializer
 * as every {@link ReplyTo} is, though it never leaves the coordinator.
 *
 * @param directory where the savepoint goes; null for a stop with a final checkpoint, which stays
 *     in the job's checkpoint directory
 * @param stop whether the job stops with it
 * @param replyTo who hears how it went
 */
public record SavepointWaiter(
    String directory, boolean stop, ReplyTo<JobReply.SavepointOutcome> replyTo)
    implements ReplyTo<JobReply.CheckpointOutcome> {
  @Override
  public void tell(JobReply.CheckpointOutcome message) {
    throw new IllegalStateException("a savepoint's waiter is answered by JobCheckpoints");
  }
}
