package io.koala.coordinator;

import io.koala.deploy.LiveDeployment;
import io.koala.protocol.DrainSettings;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The job's deployment (live tasks, routing, placement) and its retiring holders, in the one place
 * that a checkpoint takes them from ({@link #checkpoint}) and a deployment attempt sets them from
 * ({@link #restart}, {@link #restore}). Both are immutable values that each change replaces ({@link
 * #updateDeployment}, {@link #updateRetirement}, {@link #changeRetirement}), checking their
 * invariants as it makes the new value: a checkpoint keeps them as they are, and a rollback goes
 * back to the values kept.
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
    this.initial = initial;
    this.drain = drain;
    restart();
  }

  LiveDeployment deployment() {
    return deployment;
  }

  /** Replaces the deployment by what {@code change} makes of it. */
  void updateDeployment(UnaryOperator<LiveDeployment> change) {
    deployment = change.apply(deployment);
  }

  /** Replaces the retirement by what {@code change} makes of it. */
  void updateRetirement(UnaryOperator<Retirement> change) {
    retirement = change.apply(retirement);
  }

  /**
   * Replaces the retirement by the one {@code change} gives, and returns what the caller does with
   * the change (the commands to publish, the holders to stop).
   */
  <T> T changeRetirement(Function<Retirement, Retirement.Changed<T>> change) {
    Retirement.Changed<T> c = change.apply(retirement);
    retirement = c.next();
    return c.out();
  }

  Retirement retirement() {
    return retirement;
  }

  /**
   * What a checkpoint keeps: the deployment and the retirement as they are now, with {@code taken}
   * requests taken and {@code reports} reconfigurations reported.
   */
  CoordinatorState checkpoint(int taken, int reports) {
    return new CoordinatorState(deployment, retirement.kept(), taken, reports);
  }

  /** The job starts afresh: the initial deployment, no retiring holder. */
  void restart() {
    deployment = initial;
    retirement = new Retirement(drain);
  }

  /** The job resumes from a checkpoint that kept {@code kept}. */
  void restore(CoordinatorState kept) {
    deployment = kept.deployment();
    retirement = kept.retirement();
  }
}
