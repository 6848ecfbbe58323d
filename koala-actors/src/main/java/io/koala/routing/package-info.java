/**
 * Where a record goes: key hashing and buckets ({@link io.koala.routing.Murmur3}, {@link
 * io.koala.routing.Buckets}), the bucket-to-task {@link io.koala.routing.RoutingTable}, how buckets
 * are spread ({@link io.koala.routing.PartitionPolicy}) and the per-edge {@link
 * io.koala.task.Router}. Plain Java.
 */
package io.koala.routing;
