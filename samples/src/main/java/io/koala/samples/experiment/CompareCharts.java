package io.koala.samples.experiment;

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
 * The charts of {@code experiment compare}: one PNG per measure over time, one line per protocol,
 * time counted from the rescale request so that the runs line up.
 */
public final class CompareCharts {
  private CompareCharts() {}

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
              RescaleSample::p99BatchLatencyMs));

  /**
   * Writes {@code throughput.png}, {@code lag.png} and {@code p99-batch-latency.png} into {@code
   * dir}, from the doubling of the input rate to the end of the longest run.
   *
   * @param runs the per-second rows of each protocol's run, in the order to draw them
   * @return the files written
   * @throws IOException when a file cannot be written
   */
  public static List<Path> write(Map<String, List<RescaleSample>> runs, RescaleSettings s, Path dir)
      throws IOException {
    System.setProperty("java.awt.headless", "true");
    List<Path> files = new ArrayList<>();
    for (Measure m : MEASURES) {
      XYChart chart =
          new XYChartBuilder()
              .width(1000)
              .height(500)
              .title(
                  m.title()
                      + String.format(
                          " — %s, %d → %d tasks, %d B state/key",
                          s.workload(), s.from(), s.to(), s.stateBytes()))
              .xAxisTitle("seconds since the rescale request")
              .yAxisTitle(m.unit())
              .build();
      chart.getStyler().setMarkerSize(0);
      chart.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
      for (Map.Entry<String, List<RescaleSample>> run : runs.entrySet()) {
        List<Double> x = new ArrayList<>();
        List<Double> y = new ArrayList<>();
        for (RescaleSample row : run.getValue()) {
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
      Path file = dir.resolve(m.file() + ".png");
      if (!javax.imageio.ImageIO.write(
          BitmapEncoder.getBufferedImage(chart), "png", file.toFile())) {
        throw new IOException("no PNG writer in this JVM for " + file);
      }
      files.add(file);
    }
    return files;
  }
}
