package io.koala.runtime.internal;

import io.koala.coordinator.ReplyTo;
import org.apache.pekko.actor.typed.ActorRef;

/** Answers of the job core that go to an actor (it may be on another node). */
public record ActorReply<T>(ActorRef<T> ref) implements ReplyTo<T> {
  @Override
  public void tell(T message) {
    ref.tell(message);
  }
}
