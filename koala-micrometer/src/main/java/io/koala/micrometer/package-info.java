/**
 * Koala's metrics in a Micrometer registry: {@link io.koala.micrometer.KoalaMetrics}, a {@code
 * MeterBinder} for the jobs of an embedded runtime (or one job), which a cluster node's {@code
 * /metrics} endpoint uses too. {@code docs/operations.md} lists the meters. API (docs/api.md).
 */
package io.koala.micrometer;
