package io.koala.job;

import io.koala.core.KoalaMessage;
import io.koala.plan.TaskId;

/**
 * How the host reaches a deployed task: the job core keeps one per task of the current attempt and
 * hands it back in effects addressed to that task; what it holds besides the task's id (actor
 * references, in the runtime) is the host's.
 */
public interface TaskAddress extends KoalaMessage {
  TaskId task();
}
