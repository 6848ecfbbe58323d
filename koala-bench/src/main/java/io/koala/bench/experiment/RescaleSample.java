package io.koala.bench.experiment;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * One row of the per-second CSV: the second that ended at {@code timeSeconds}.
 *
 * @param timeSeconds end of the interval, seconds since the job started
 * @param phase {@code warmup}, {@code steady}, {@code doubled}, {@code recovery} (from the rescale
 *     until both the source lag and the end-to-end backlog are back to their levels before the
 *     doubling) or {@code tail}
 * @param inputRate records per second that became available at the source in the interval
 * @param throughput records per second the target operator processed in the interval (counted by
 *     the sink chained to it: one average per record)
 * @param recordsInRate the target's {@code recordsIn} per second, as the runtime counts it (a
 *     record forwarded or parked for its state during a reconfiguration counts twice)
 * @param lagRecords records available at the source but not read, at the end of the interval
 * @param backlogRecords records available at the source but not yet processed by the target (the
 *     lag plus the records in flight), at the end of the interval
 * @param p50BatchLatencyMs median per-batch processing time of the target operator in the interval
 * @param p99BatchLatencyMs 99th percentile of the same
 * @param stateBytesTransferred bytes of state fetched between tasks since the job started
 * @param recordsForwarded records old owners forwarded to new ones since the job started
 * @param recordsHeld records new owners held until their old owner's forwarding was done (§6.6),
 *     since the job started
 * @param parkedRecords records waiting for their key's state at the end of the interval
 */
public record RescaleSample(
    double timeSeconds,
    String phase,
    double inputRate,
    double throughput,
    double recordsInRate,
    long lagRecords,
    long backlogRecords,
    double p50BatchLatencyMs,
    double p99BatchLatencyMs,
    long stateBytesTransferred,
    long recordsForwarded,
    long recordsHeld,
    long parkedRecords) {

  /** The CSV header line. */
  public static final String CSV_HEADER =
      "time,phase,inputRate,throughput,recordsInRate,lagRecords,backlogRecords,"
          + "p50BatchLatencyMs,p99BatchLatencyMs,stateBytesTransferred,recordsForwarded,recordsHeld,"
          + "parkedRecords";

  /**
   * Writes {@code rows} as CSV with a header line.
   *
   * @throws IOException when the file cannot be written
   */
  public static void writeCsv(List<RescaleSample> rows, Path file) throws IOException {
    try (PrintWriter out =
        new PrintWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8), false)) {
      out.println(CSV_HEADER);
      for (RescaleSample row : rows) {
        out.println(row.toCsv());
      }
      if (out.checkError()) {
        throw new IOException("cannot write " + file);
      }
    }
  }

  /** This row as a CSV line. */
  public String toCsv() {
    return String.format(
        Locale.ROOT,
        "%.3f,%s,%.0f,%.0f,%.0f,%d,%d,%.3f,%.3f,%d,%d,%d,%d",
        timeSeconds,
        phase,
        inputRate,
        throughput,
        recordsInRate,
        lagRecords,
        backlogRecords,
        p50BatchLatencyMs,
        p99BatchLatencyMs,
        stateBytesTransferred,
        recordsForwarded,
        recordsHeld,
        parkedRecords);
  }
}
