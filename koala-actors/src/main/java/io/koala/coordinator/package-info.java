/**
 * The job's coordinator as a pure state machine (DESIGN §4.1, §6.1, §8, §9): {@link
 * io.koala.coordinator.JobCore} takes an input — a message from a task, a worker, a client, the
 * journal, or a timer — and returns the effects its host carries out; its parts are named after
 * what they decide. The cores it drives live here too: epochs ({@link
 * io.koala.coordinator.EpochDriver}), checkpoints ({@link io.koala.coordinator.Checkpoints}),
 * retiring holders, departures, the worker pool. The actor {@code JobCoordinator} and the
 * deterministic simulator both host the core, so every decision the simulator checks is the one
 * users run. No Pekko, no I/O, no clock: time comes with each input.
 */
@Internal
package io.koala.coordinator;

import io.koala.Internal;
