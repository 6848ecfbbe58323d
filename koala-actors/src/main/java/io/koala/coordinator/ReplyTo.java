package io.koala.coordinator;

/**
 * Where the job core's answers to one requester go: an actor in the runtime, a list in the
 * simulator. The core never calls {@link #tell} itself: it returns a {@link JobEffect.Reply}, which
 * its host carries out. Implementations are values ({@code equals} by destination), so that a
 * listener subscribing again is recognised.
 */
public interface ReplyTo<T> {
  void tell(T message);
}
