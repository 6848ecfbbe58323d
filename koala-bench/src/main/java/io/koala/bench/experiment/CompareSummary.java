package io.koala.bench.experiment;

import io.koala.cli.ProtocolChoice;
import io.koala.connector.Json;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The last line of a comparison ({@code experiment compare}, {@code uniform}, {@code
 * multi-operator}): per protocol, the medians over its runs of the figures that rank protocols, the
 * values of every run (the spread), and each run's recovery divided by the control run of the same
 * repetition, when the comparison ran one ({@link ProtocolChoice#CONTROL}). Recovery is that of the
 * end-to-end backlog (records available and not yet processed: held and parked records count as not
 * processed). A run whose result has an error is left out of every figure and listed in {@code
 * invalid}, or, when its protocol could not keep up with the input before the doubling while the
 * control run of its repetition did, in {@code unsustained}: that is a finding about the protocol
 * at this load, not a run that went wrong. A figure no valid run has is {@code null}.
 *
 * @param summary always true: this is the summary line
 * @param experiment the experiment's name
 * @param workload the workload
 * @param stateBytes encoded value bytes per key
 * @param runsPerProtocol repetitions asked for
 * @param order the runs' labels in the order they ran
 * @param protocols per protocol, in the order asked for
 * @param invalid labels of the runs whose result has an error, those in {@code unsustained} aside
 * @param unsustained labels of the runs whose protocol could not keep up with the input before the
 *     doubling, where the control of their repetition did
 */
public record CompareSummary(
    boolean summary,
    String experiment,
    String workload,
    int stateBytes,
    int runsPerProtocol,
    List<String> order,
    Map<String, ProtocolFigures> protocols,
    List<String> invalid,
    List<String> unsustained) {

  /**
   * One protocol's figures over its valid runs. Each list holds one value per valid run, in the
   * order of the repetitions; a median is that of its list.
   *
   * @param runs valid runs
   * @param recoveryMs end-to-end backlog recovery, ms after the rescale
   * @param controlRecoveryMs the control runs' end-to-end recovery (the measured ideal)
   * @param recoveryOverControl each run's recovery over the control run of its repetition
   * @param idealRecoveryMs the formula's ideal: backlog at the rescale over the spare capacity
   * @param recoveryOverIdeal each run's recovery over the formula's ideal
   * @param minThroughputOverBefore the target's lowest 1-s throughput after the rescale over its
   *     mean throughput in the seconds before
   * @param stateOverLowerBound state moved over the state of the moved buckets' keys that the
   *     records after the rescale touched (the least any protocol must move)
   * @param p99BeforeMs p99 per-batch latency before the rescale
   * @param p99DuringMs p99 per-batch latency from the rescale until the recovery
   * @param p99DuringOverBefore their ratio
   * @param stateBytesTransferred state moved between tasks
   */
  public record ProtocolFigures(
      int runs,
      List<Double> recoveryMs,
      Double recoveryMsMedian,
      List<Double> controlRecoveryMs,
      Double controlRecoveryMsMedian,
      List<Double> recoveryOverControl,
      Double recoveryOverControlMedian,
      List<Double> idealRecoveryMs,
      List<Double> recoveryOverIdeal,
      Double recoveryOverIdealMedian,
      List<Double> minThroughputOverBefore,
      Double minThroughputOverBeforeMedian,
      List<Double> stateOverLowerBound,
      Double stateOverLowerBoundMedian,
      List<Double> p99BeforeMs,
      List<Double> p99DuringMs,
      List<Double> p99DuringOverBefore,
      Double p99DuringOverBeforeMedian,
      List<Double> stateBytesTransferred,
      Double stateBytesTransferredMedian) {}

  /** One run of a comparison: its label, protocol, repetition (from 0) and result. */
  public record Run(String label, String protocol, int repetition, RescaleResult result) {}

  /**
   * The summary of {@code runs}, in the order they ran; {@code protocols} gives the order of the
   * protocols in the summary (the control run, if any, is not one of them).
   */
  public static CompareSummary of(
      String experiment, List<String> protocols, int repetitions, List<Run> runs) {
    Map<Integer, RescaleResult> controls = new LinkedHashMap<>();
    for (Run r : runs) {
      if (r.result().error() == null && r.protocol().equals(ProtocolChoice.CONTROL)) {
        controls.put(r.repetition(), r.result());
      }
    }
    List<String> invalid = new ArrayList<>();
    List<String> unsustained = new ArrayList<>();
    for (Run r : runs) {
      if (r.result().error() == null) {
        continue;
      }
      boolean keptUp = RunValidity.keptUp(r.result().lagBeforeDoubling(), r.result().inputRate());
      if (!keptUp
          && !r.protocol().equals(ProtocolChoice.CONTROL)
          && controls.containsKey(r.repetition())) {
        unsustained.add(r.label());
      } else {
        invalid.add(r.label());
      }
    }
    Map<String, ProtocolFigures> figures = new LinkedHashMap<>();
    for (String p : protocols) {
      List<Run> mine = new ArrayList<>();
      for (Run r : runs) {
        if (r.protocol().equals(p) && r.result().error() == null) {
          mine.add(r);
        }
      }
      mine.sort((a, b) -> Integer.compare(a.repetition(), b.repetition()));
      figures.put(p, figures(mine, controls));
    }
    RescaleResult any = runs.get(0).result();
    return new CompareSummary(
        true,
        experiment,
        any.workload(),
        any.stateBytes(),
        repetitions,
        runs.stream().map(Run::label).toList(),
        figures,
        invalid,
        unsustained);
  }

  private static ProtocolFigures figures(List<Run> runs, Map<Integer, RescaleResult> controls) {
    List<Double> recovery = values(runs, RescaleResult::endToEndRecoveryMs);
    List<Double> control = new ArrayList<>();
    List<Double> overControl = new ArrayList<>();
    for (Run r : runs) {
      RescaleResult c = controls.get(r.repetition());
      if (c != null && c.endToEndRecoveryMs() != null) {
        control.add(c.endToEndRecoveryMs());
        Double ratio = ratio(r.result().endToEndRecoveryMs(), c.endToEndRecoveryMs());
        if (ratio != null) {
          overControl.add(ratio);
        }
      }
    }
    List<Double> p99Before = values(runs, r -> r.p99BatchLatencyMsBefore());
    List<Double> p99During = values(runs, RescaleResult::p99BatchLatencyMsDuring);
    List<Double> state = values(runs, r -> (double) r.stateBytesTransferred());
    List<Double> overIdeal =
        values(runs, r -> ratio(r.endToEndRecoveryMs(), r.endToEndIdealRecoveryMs()));
    List<Double> minOverBefore =
        values(runs, r -> ratio(r.minThroughputDuringReconfig(), r.throughputBeforeReconfig()));
    List<Double> stateOverBound =
        values(
            runs,
            r ->
                r.accessedMovedKeysStateBytes() == 0
                    ? null
                    : ratio(
                        (double) r.stateBytesTransferred(),
                        (double) r.accessedMovedKeysStateBytes()));
    List<Double> p99Ratio =
        values(runs, r -> ratio(r.p99BatchLatencyMsDuring(), r.p99BatchLatencyMsBefore()));
    return new ProtocolFigures(
        runs.size(),
        recovery,
        median(recovery),
        control,
        median(control),
        overControl,
        median(overControl),
        values(runs, RescaleResult::endToEndIdealRecoveryMs),
        overIdeal,
        median(overIdeal),
        minOverBefore,
        median(minOverBefore),
        stateOverBound,
        median(stateOverBound),
        p99Before,
        p99During,
        p99Ratio,
        median(p99Ratio),
        state,
        median(state));
  }

  /** The non-null values of {@code f} over {@code runs}. */
  private static List<Double> values(List<Run> runs, Function<RescaleResult, Double> f) {
    List<Double> out = new ArrayList<>();
    for (Run r : runs) {
      Double v = f.apply(r.result());
      if (v != null) {
        out.add(v);
      }
    }
    return out;
  }

  /** The median of {@code values} (the mean of the middle two of an even count), or null. */
  static Double median(List<Double> values) {
    if (values.isEmpty()) {
      return null;
    }
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int n = sorted.size();
    double m = n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    return round(m);
  }

  private static Double ratio(Double a, Double b) {
    if (a == null || b == null || b == 0) {
      return null;
    }
    return round(a / b);
  }

  private static double round(double v) {
    return Math.round(v * 1000.0) / 1000.0;
  }

  /** This summary as one line of JSON. */
  public String toJson() {
    return Json.encode(this);
  }
}
