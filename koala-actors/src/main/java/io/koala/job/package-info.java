/**
 * What a client sees of a job: its {@link io.koala.job.JobStatus}, {@link io.koala.job.JobMetrics},
 * the {@link io.koala.job.ReconfigurationReport} of each reconfiguration, and why one was refused
 * ({@link io.koala.job.ReconfigurationException}). Plain Java.
 *
 * <p>API (docs/api.md): no public signature here names a type of an internal package.
 */
package io.koala.job;
