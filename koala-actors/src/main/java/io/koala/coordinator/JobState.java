package io.koala.coordinator;

import io.koala.deploy.LiveDeployment;
import io.koala.protocol.DrainSettings;

/**
 * The job's deployment (live tasks, routing, placement) and its retiring holders, in the one place
 * that a checkpoint takes them from ({@link #checkpoint}) and a deployment attempt sets them from
 * ({@link #restart}, {@link #restore}). Epochs change them in place as they run; a rollback undoes
 * every change since the checkpoint it restores.
 */
final class JobState {
  private final LiveDeployment initial;
  private final DrainSettings drain;
  private LiveDeployment deployment;
  private Retirement retirement;

  /** The state of job {@code setup} as it starts afresh. */
  static JobState initial(JobSetup setup) {
    return new JobState(JobCore.initialDeployment(setup), setup.reconfiguration().drain());
  }

  private JobState(LiveDeployment initial, DrainSettings drain) {
    this.initial = initial.copy();
    this.drain = drain;
    restart();
  }

  LiveDeployment deployment() {
    return deployment;
  }

  Retirement retirement() {
    return retirement;
  }

  /**
   * What a checkpoint keeps: copies of the deployment and retirement as they are now, with {@code
   * taken} requests taken and {@code reports} reconfigurations reported.
   */
  CoordinatorState checkpoint(int taken, int reports) {
    return new CoordinatorState(deployment.copy(), retirement.copy(), taken, reports);
  }

  /** The job starts afresh: the initial deployment, no retiring holder. */
  void restart() {
    deployment = initial.copy();
    retirement = new Retirement(drain);
  }

  /** The job resumes from a checkpoint that kept {@code kept}. */
  void restore(CoordinatorState kept) {
    deployment = kept.deployment().copy();
    retirement = kept.retirement().copy();
  }
}
