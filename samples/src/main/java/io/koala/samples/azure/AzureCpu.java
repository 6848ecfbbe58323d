package io.koala.samples.azure;

import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.Stage;
import io.koala.samples.BoundedSeries;
import io.koala.samples.SeriesStats;

/**
 * The Azure VM CPU query (WORKLOADS.md): readings keyed by VM id ({@code long}), keeping each VM's
 * last {@value #LAST_READINGS} average-CPU readings (four hours) and emitting their running median,
 * mean and maximum for every reading. Each VM's state ({@link BoundedSeries}) is padded to {@code
 * stateBytes} bytes. Its keyed operator, named by the caller ({@value #OPERATOR} in the
 * experiments), is the reconfiguration target.
 *
 * <pre>{@code
 * DataflowBuilder b = Dataflow.builder("azure");
 * AzureCpu.registerTypes(b);
 * Stage<VmReading> readings = b.source(SourceSpec.generator("readings", new AzureGenerator(...)));
 * AzureCpu.cpuStats(readings, AzureCpu.OPERATOR, 512).sink(SinkSpec.discarding("out"));
 * }</pre>
 */
public final class AzureCpu {
  /** How many of a VM's last readings the statistics are over. */
  public static final int LAST_READINGS = 48;

  /** The smallest state per key: {@link BoundedSeries#minBytes} of {@value #LAST_READINGS}. */
  public static final int MIN_STATE_BYTES = 4 + 8 * LAST_READINGS;

  /** The name the experiments give the keyed operator. */
  public static final String OPERATOR = "azure-vm-cpu-stats";

  /** Appends the average CPU to the VM's series and emits its statistics. */
  private static final SeriesStats<VmReading, VmCpuStats> CPU_STATS =
      new SeriesStats<>(
          "last-avg-cpu",
          LAST_READINGS,
          VmReading::vmId,
          VmReading::avgCpu,
          (reading, key, s) ->
              new VmCpuStats(reading.vmId(), s.size(), s.median(), s.mean(), s.max()));

  private AzureCpu() {}

  /** Registers the records that travel between the tasks of the query. */
  public static DataflowBuilder registerTypes(DataflowBuilder b) {
    return b.registerTypes(VmReading.class, VmCpuStats.class);
  }

  /**
   * Adds the query: {@code readings} keyed by VM into the operator {@code name}.
   *
   * @param stateBytes bytes of state per VM, at least {@link #MIN_STATE_BYTES}
   * @throws IllegalArgumentException if {@code stateBytes} is too small
   */
  public static Stage<VmCpuStats> cpuStats(Stage<VmReading> readings, String name, int stateBytes) {
    return CPU_STATS.add(readings, name, stateBytes);
  }
}
