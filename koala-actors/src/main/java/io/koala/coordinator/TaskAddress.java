package io.koala.coordinator;

import io.koala.plan.TaskId;
import io.koala.protocol.KoalaMessage;

/**
 * How the host reaches a deployed task: the job core keeps one per task of the current attempt and
 * hands it back in effects addressed to that task; what it holds besides the task's id (actor
 * references, in the runtime) is the host's.
 */
public interface TaskAddress extends KoalaMessage {
  TaskId task();
}
