/**
 * An Azure VM CPU workload (WORKLOADS.md): 5-minute CPU readings of many short-lived VMs with a
 * daily rhythm, and the query keeping running statistics of each VM's readings.
 */
package io.koala.samples.azure;
