/**
 * Where a record goes: key hashing and buckets ({@link io.koala.routing.Murmur3}, {@link
 * io.koala.routing.Buckets}), the bucket-to-task {@link io.koala.routing.RoutingTable}, and how
 * buckets are spread ({@link io.koala.routing.PartitionPolicy}), which a rebalance or a rescale
 * names. Plain Java.
 *
 * <p>API (docs/api.md): no public signature here names a type of an internal package.
 */
package io.koala.routing;
