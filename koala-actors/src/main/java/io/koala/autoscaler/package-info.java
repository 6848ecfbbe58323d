/**
 * The autoscaler's policy core ({@link io.koala.autoscaler.AutoscalerPolicy}): from the load the
 * runtime measures (records, busy time and per-bucket load of every task), the rate each operator
 * must keep up with and the parallelism and placement that serve it. Pure: no actor system, no
 * clock; the coordinator's driver feeds it samples and carries out its decisions.
 */
@io.koala.Internal
package io.koala.autoscaler;
