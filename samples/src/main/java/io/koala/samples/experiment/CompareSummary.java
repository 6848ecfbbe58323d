package io.koala.samples.experiment;

import io.koala.connector.Json;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The last line of {@code experiment compare}: the figures the issue asks for side by side, and
 * each protocol's ratios to Koala. A figure a run does not have (it never recovered, the protocol
 * did not run) is {@code null}, and so is every ratio built from it.
 *
 * @param summary the experiment's name ({@code "compare"}, {@code "uniform"}), to tell this line
 *     from the per-protocol lines
 * @param workload the workload
 * @param stateBytes encoded value bytes per key
 * @param protocols the protocols run, in order
 * @param backlogRecoveryMs per protocol: {@link RescaleResult#backlogRecoveryMs}
 * @param stateBytesTransferred per protocol: {@link RescaleResult#stateBytesTransferred}
 * @param p99BatchLatencyMsBefore per protocol: steady p99 per-batch latency before the rescale
 * @param p99BatchLatencyMsDuring per protocol: p99 per-batch latency during the recovery
 * @param minThroughputDuringReconfig per protocol: lowest 1-second throughput during the recovery
 * @param vsKoala per protocol other than Koala: its figures divided by Koala's
 * @param invalid protocols whose run is invalid (see their line's {@code error})
 */
public record CompareSummary(
    String summary,
    String workload,
    int stateBytes,
    List<String> protocols,
    Map<String, Double> backlogRecoveryMs,
    Map<String, Long> stateBytesTransferred,
    Map<String, Double> p99BatchLatencyMsBefore,
    Map<String, Double> p99BatchLatencyMsDuring,
    Map<String, Double> minThroughputDuringReconfig,
    Map<String, Ratios> vsKoala,
    List<String> invalid) {

  /**
   * A protocol's figures divided by Koala's.
   *
   * @param recovery backlog recovery time
   * @param state state bytes transferred
   * @param steadyP99 p99 per-batch latency before the rescale
   */
  public record Ratios(Double recovery, Double state, Double steadyP99) {}

  /** The summary of {@code results}, keyed by protocol in run order. */
  public static CompareSummary of(String experiment, Map<String, RescaleResult> results) {
    Map<String, Double> recovery = new LinkedHashMap<>();
    Map<String, Long> state = new LinkedHashMap<>();
    Map<String, Double> before = new LinkedHashMap<>();
    Map<String, Double> during = new LinkedHashMap<>();
    Map<String, Double> minThroughput = new LinkedHashMap<>();
    List<String> invalid = new java.util.ArrayList<>();
    RescaleResult any = results.values().iterator().next();
    results.forEach(
        (p, r) -> {
          recovery.put(p, r.backlogRecoveryMs());
          state.put(p, r.stateBytesTransferred());
          before.put(p, r.p99BatchLatencyMsBefore());
          during.put(p, r.p99BatchLatencyMsDuring());
          minThroughput.put(p, r.minThroughputDuringReconfig());
          if (r.error() != null) {
            invalid.add(p);
          }
        });
    Map<String, Ratios> ratios = new LinkedHashMap<>();
    RescaleResult koala = results.get(RescaleSettings.KOALA);
    if (koala != null) {
      results.forEach(
          (p, r) -> {
            if (!p.equals(RescaleSettings.KOALA)) {
              ratios.put(
                  p,
                  new Ratios(
                      ratio(r.backlogRecoveryMs(), koala.backlogRecoveryMs()),
                      ratio(
                          (double) r.stateBytesTransferred(),
                          (double) koala.stateBytesTransferred()),
                      ratio(r.p99BatchLatencyMsBefore(), koala.p99BatchLatencyMsBefore())));
            }
          });
    }
    return new CompareSummary(
        experiment,
        any.workload(),
        any.stateBytes(),
        List.copyOf(results.keySet()),
        recovery,
        state,
        before,
        during,
        minThroughput,
        ratios,
        invalid);
  }

  private static Double ratio(Double a, Double b) {
    if (a == null || b == null || b == 0) {
      return null;
    }
    return Math.round(a / b * 100.0) / 100.0;
  }

  /** This summary as one line of JSON. */
  public String toJson() {
    return Json.encode(this);
  }
}
