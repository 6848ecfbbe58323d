package io.koala.samples.azure;

/**
 * What the Azure CPU query emits per reading: statistics of the average CPU of the VM's last
 * readings, in percent.
 *
 * @param readings how many readings the statistics are over, at most {@link AzureCpu#LAST_READINGS}
 */
public record VmCpuStats(
    long vmId, int readings, double medianCpu, double meanCpu, double maxCpu) {}
