package io.koala.coordinator;

import io.koala.deploy.LiveDeployment;

/**
 * What the coordinator keeps of itself with a checkpoint, restored on a rollback to it: the
 * deployment and retiring holders at the trigger, how many requests had been taken and reports made
 * (those taken since are run again).
 */
public record CoordinatorState(
    LiveDeployment deployment, Retirement retirement, int taken, int reports) {}
