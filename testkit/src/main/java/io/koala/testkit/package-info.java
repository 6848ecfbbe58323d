/**
 * Testing dataflows, for users: {@link io.koala.testkit.DataflowTestDriver} runs a dataflow
 * synchronously with virtual time and live reconfiguration, {@link
 * io.koala.testkit.KoalaAssertions} checks that reconfiguration does not change its results, and
 * {@link io.koala.testkit.KoalaNodes} is a JUnit 5 extension running an embedded runtime of N
 * nodes, {@link io.koala.testkit.KoalaClusterNodes} one running N Pekko Cluster nodes that can
 * join, leave and be downed. Its subpackages are internal (not API): what Koala's own tests use,
 * the deterministic simulation ({@code sim}) the driver is built on and the verification workloads
 * and oracles ({@code verify}).
 *
 * <p>API (docs/api.md): no public signature here names a type of an internal package.
 */
package io.koala.testkit;
