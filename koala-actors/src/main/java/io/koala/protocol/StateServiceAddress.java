package io.koala.protocol;

import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;

/**
 * A remote state service (the {@code remote} state backend, DESIGN §4.4): where the state of a
 * keyed operator lives when it does not live in its tasks. Bucket {@code b} of every operator lives
 * at service {@code b mod services}, whichever task owns the bucket, so a reconfiguration moves no
 * state. A task's parking and fetch machinery names a service by a negative "holder" number ({@link
 * #holder}), never a task's index.
 */
public record StateServiceAddress(int index) {

  /** The operator name services answer as (in {@code StateReply.holder}). */
  public static final OperatorId OPERATOR = new OperatorId("koala-state-service");

  private static final int BASE = -10;

  /** The service of {@code bucket} among {@code services}. */
  public static StateServiceAddress ofBucket(int bucket, int services) {
    return new StateServiceAddress(bucket % services);
  }

  /** The task id the service answers as. */
  public TaskId id() {
    return new TaskId(OPERATOR, index);
  }

  /** The holder number of this service in a task's fetch machinery. */
  public int holder() {
    return BASE - index;
  }

  /** Whether {@code holder} names a service rather than a task. */
  public static boolean isService(int holder) {
    return holder <= BASE;
  }

  /** The service {@code holder} names ({@link #isService}). */
  public static StateServiceAddress ofHolder(int holder) {
    return new StateServiceAddress(BASE - holder);
  }

  /** The holder number of a reply's sender: a service's or a task's. */
  public static int holderOf(TaskId replier) {
    return OPERATOR.equals(replier.operator())
        ? new StateServiceAddress(replier.index()).holder()
        : replier.index();
  }
}
