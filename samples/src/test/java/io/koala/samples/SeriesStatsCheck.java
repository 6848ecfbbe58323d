package io.koala.samples;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.dataflow.DataflowBuilder;
import io.koala.job.JobStatus;
import io.koala.runtime.JobHandle;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.KoalaRuntime;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the tests of the series-statistics queries ({@link SeriesStats}) share: running a query's
 * job to its end, and the plain loop they are checked against.
 */
public final class SeriesStatsCheck {
  private SeriesStatsCheck() {}

  /** Runs {@code b}'s job on 2 embedded workers until it finishes; what sink {@code sink} got. */
  public static <R> List<R> collected(DataflowBuilder b, String sink) {
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load().withWorkers(2))) {
      JobHandle job = runtime.submit(b.build());
      assertThat(job.await(Duration.ofSeconds(60))).isEqualTo(JobStatus.FINISHED);
      return job.collected(sink);
    }
  }

  /** The last values of each key, as a plain loop keeps them. */
  public static final class LastValues {
    private final int capacity;
    private final Map<Long, Deque<Double>> last = new TreeMap<>();

    public LastValues(int capacity) {
      this.capacity = capacity;
    }

    /** Appends {@code value} to the values of {@code key}; its last values, oldest first. */
    public double[] add(long key, double value) {
      Deque<Double> values = last.computeIfAbsent(key, k -> new ArrayDeque<>());
      values.addLast(value);
      if (values.size() > capacity) {
        values.removeFirst();
      }
      return values.stream().mapToDouble(Double::doubleValue).toArray();
    }
  }

  /** The middle value, or the mean of the two middle ones. */
  public static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  /** The mean, summing in order. */
  public static double mean(double[] values) {
    double sum = 0;
    for (double v : values) {
      sum += v;
    }
    return sum / values.length;
  }

  /** The largest value. */
  public static double max(double[] values) {
    return Arrays.stream(values).max().orElseThrow();
  }
}
