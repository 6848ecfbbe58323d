/**
 * A Taxi-trends workload (WORKLOADS.md): NYC-taxi-shaped trips on a grid of 500 m cells, and the
 * query keeping the median trip time of each route and vendor.
 */
package io.koala.samples.taxi;
