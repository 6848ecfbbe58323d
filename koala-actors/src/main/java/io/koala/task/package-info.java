/**
 * One task as a pure, single-threaded state machine: {@link io.koala.task.TaskEngine} is a loop
 * over named parts — the input and output gates, the operator chain, event time, the source driver,
 * the barrier aligner, the epoch participant, the state plane — and reports what to send and when
 * to wake it through its {@link io.koala.task.TaskHost}. It runs in a task actor and in the
 * simulator alike. Plain Java.
 */
package io.koala.task;
