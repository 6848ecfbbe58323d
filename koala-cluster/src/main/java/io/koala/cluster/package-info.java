/**
 * Koala on a Pekko cluster: {@link io.koala.cluster.KoalaCluster} embeds Koala in a clustered
 * ActorSystem, places tasks on the members that come Up, moves them off a member that leaves
 * gracefully, and recovers those of a member that is downed; {@link io.koala.cluster.LocalCluster}
 * runs such nodes in one JVM, for tests and demos; {@link io.koala.cluster.DataflowProvider} gives
 * a node started from the command line the dataflows of an application's jar.
 *
 * <p>API (docs/api.md): no public signature here names a type of an internal package.
 */
package io.koala.cluster;
