package io.koala.protocol;

import io.koala.plan.TaskId;

/** Where a task's state server is: the target of fetches for the state {@code task} holds. */
public record StateServerAddress(TaskId task) {}
