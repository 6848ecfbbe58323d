package io.koala.samples.azure;

/**
 * A 5-minute CPU reading of a VM, shaped like a row of the Azure public dataset's {@code
 * vm_cpu_readings}: utilisation in percent, {@code minCpu ≤ avgCpu ≤ maxCpu} in {@code [0, 100]}.
 *
 * @param timestamp start of the 5-minute interval, milliseconds
 */
public record VmReading(long vmId, long timestamp, double minCpu, double maxCpu, double avgCpu) {}
