/**
 * One task as a pure, single-threaded state machine: {@link io.koala.task.TaskEngine} is the
 * lifecycle ({@link io.koala.task.TaskStatus}) and one loop over named parts — the input and output
 * gates, the item dispatch, the operator chain, event time, the source driver, the barrier aligner,
 * the epoch participant, the state plane and its parking, the remote-state client and the batch
 * clock — and reports what to send and when to wake it ({@link io.koala.task.TaskTimer}) through
 * its {@link io.koala.task.TaskHost}. It runs in a task actor and in the simulator alike. Plain
 * Java.
 */
@Internal
package io.koala.task;

import io.koala.Internal;
