/**
 * Koala's own verification: the workloads ({@link io.koala.testkit.verify.Workload}), their
 * reconfiguration and crash schedules, the invariants and oracles that check a run, and the
 * verifiers that run them on the simulation ({@link io.koala.testkit.verify.SimVerifier}) or on the
 * actor runtime ({@link io.koala.testkit.verify.RuntimeVerifier}). For Koala's tests and its {@code
 * koala verify} command, not for applications.
 */
@Internal
package io.koala.testkit.verify;

import io.koala.Internal;
