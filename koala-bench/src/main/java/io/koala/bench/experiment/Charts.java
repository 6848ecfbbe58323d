package io.koala.bench.experiment;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The experiments' charts: measures over time with one line per run, time counted from each run's
 * first reconfiguration so that runs line up; and plain x/y charts of a summary.
 */
public final class Charts {
  private Charts() {}

  /** A measure to chart: its file name, title, y-axis label and value per row. */
  private record Measure(
      String file, String title, String unit, ToDoubleFunction<RescaleSample> value) {}

  private static final List<Measure> MEASURES =
      List.of(
          new Measure("throughput", "Target throughput", "records/s", RescaleSample::throughput),
          new Measure("lag", "Source lag", "records", s -> (double) s.lagRecords()),
          new Measure(
              "p99-batch-latency",
              "p99 per-batch latency of the target",
              "ms",
              RescaleSample::p99BatchLatencyMs),
          new Measure(
              "state-transferred",
              "State transferred between tasks since the start",
              "MB",
              s -> s.stateBytesTransferred() / 1e6));

  /**
   * Writes {@code throughput.png}, {@code lag.png}, {@code p99-batch-latency.png} and {@code
   * state-transferred.png} into {@code dir}: each run from the doubling of its input rate to its
   * end, one line per run.
   *
   * @param runs each run's outcome, in the order to draw them
   * @param subtitle what the runs share, after each chart's title
   * @return the files written
   * @throws IOException when a file cannot be written
   */
  public static List<Path> overTime(
      Map<String, RescaleExperiment.Outcome> runs, String subtitle, Path dir) throws IOException {
    List<Path> files = new ArrayList<>();
    for (Measure m : MEASURES) {
      XYChart chart =
          chart(m.title() + " — " + subtitle, "seconds since the reconfiguration", m.unit());
      for (Map.Entry<String, RescaleExperiment.Outcome> run : runs.entrySet()) {
        RescaleSettings s = run.getValue().settings();
        List<Double> x = new ArrayList<>();
        List<Double> y = new ArrayList<>();
        for (RescaleSample row : run.getValue().samples()) {
          double t = row.timeSeconds() - s.rescaleAtSecond();
          if (t >= -s.doubledSeconds()) {
            x.add(t);
            y.add(m.value().applyAsDouble(row));
          }
        }
        if (!x.isEmpty()) {
          chart.addSeries(run.getKey(), x, y).setMarker(SeriesMarkers.NONE);
        }
      }
      files.add(write(chart, dir.resolve(m.file() + ".png")));
    }
    return files;
  }

  /** The subtitle of runs of scenario {@code s}: workload, rescale and state per key. */
  public static String subtitle(RescaleSettings s) {
    return String.format(
        "%s, %d → %d tasks, %d B state/key", s.workload(), s.from(), s.to(), s.stateBytes());
  }

  /**
   * Writes an x/y chart with a line and markers per series to {@code file}.
   *
   * @param series each series' points as {x, y} pairs, in x order
   * @throws IOException when the file cannot be written
   */
  public static Path xy(
      Path file, String title, String xAxis, String yAxis, Map<String, List<double[]>> series)
      throws IOException {
    XYChart chart = chart(title, xAxis, yAxis);
    addSeries(chart, series, true);
    chart.getStyler().setMarkerSize(8);
    return write(chart, file);
  }

  /**
   * Writes an x/y chart with a line per series and no markers to {@code file}.
   *
   * @param series each series' points as {x, y} pairs, in x order
   * @throws IOException when the file cannot be written
   */
  public static Path lines(
      Path file, String title, String xAxis, String yAxis, Map<String, List<double[]>> series)
      throws IOException {
    XYChart chart = chart(title, xAxis, yAxis);
    addSeries(chart, series, false);
    return write(chart, file);
  }

  private static void addSeries(
      XYChart chart, Map<String, List<double[]>> series, boolean markers) {
    series.forEach(
        (name, points) -> {
          if (!points.isEmpty()) {
            XYSeries s =
                chart.addSeries(
                    name,
                    points.stream().map(p -> p[0]).toList(),
                    points.stream().map(p -> p[1]).toList());
            if (!markers) {
              s.setMarker(SeriesMarkers.NONE);
            }
          }
        });
  }

  private static XYChart chart(String title, String xAxis, String yAxis) {
    System.setProperty("java.awt.headless", "true");
    XYChart chart =
        new XYChartBuilder()
            .width(1000)
            .height(500)
            .title(title)
            .xAxisTitle(xAxis)
            .yAxisTitle(yAxis)
            .build();
    chart.getStyler().setMarkerSize(0);
    chart.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
    return chart;
  }

  private static Path write(XYChart chart, Path file) throws IOException {
    if (!javax.imageio.ImageIO.write(BitmapEncoder.getBufferedImage(chart), "png", file.toFile())) {
      throw new IOException("no PNG writer in this JVM for " + file);
    }
    return file;
  }
}
