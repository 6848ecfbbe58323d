/**
 * A Borg resource-monitoring workload (WORKLOADS.md): task events shaped like Google's cluster
 * trace, and the query keeping running statistics of the requests of each job and event type.
 */
package io.koala.samples.borg;
