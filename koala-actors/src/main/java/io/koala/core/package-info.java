/**
 * Pure cores of the runtime: bucket routing, channel flow control, the task engine that runs an
 * operator chain, deployment planning and the data-plane messages. Deterministic and free of Pekko
 * and lmdbjava, so they are testable in milliseconds and drivable by a simulator.
 */
package io.koala.core;
