package io.koala.micrometer;

import io.koala.micrometer.MeterRows.Durations;
import io.koala.micrometer.MeterRows.Kind;
import io.koala.micrometer.MeterRows.Latencies;
import io.koala.micrometer.MeterRows.Row;
import io.koala.micrometer.MeterRows.Value;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * The meters of one job in a registry, kept in step with its snapshots: each {@link #update}
 * registers the meters of series not seen before, moves every series to its new value, and removes
 * the meters of series that are gone (a task retired, a released holder forgotten at a rollback).
 * Counters add their {@link Increments}; timers are fed the durations recorded since the previous
 * update, so that their buckets sum across tasks. Updates come from one thread at a time; meters
 * read their values from volatile fields.
 */
final class JobMeters implements AutoCloseable {
  /** Bucket boundaries of the tasks' latencies: 1-2-5 steps from 10 µs to a minute. */
  static final Duration[] LATENCY_BUCKETS = steps(Duration.ofNanos(10_000), Duration.ofSeconds(60));

  /** Bucket boundaries of reconfigurations: 1-2-5 steps from 100 ms to an hour. */
  static final Duration[] RECONFIGURATION_BUCKETS =
      steps(Duration.ofMillis(100), Duration.ofHours(1));

  private final MeterRegistry registry;
  private final Tags common;
  private final boolean replay;
  private final Map<Key, Series> series = new HashMap<>();
  private int rollbacks;
  private boolean updated;

  /**
   * The meters of a job, with the {@code common} tags; {@code replay}: whether the timers count the
   * durations the job recorded before its first update (false for a job that ran before the binder
   * was bound: its history is not replayed).
   */
  JobMeters(MeterRegistry registry, Tags common, boolean replay) {
    this.registry = registry;
    this.common = common;
    this.replay = replay;
  }

  /** Brings the meters in step with {@code s}. */
  void update(MeterRows.Snapshot s) {
    boolean restarted = updated && s.rollbacks() != rollbacks;
    boolean baseline = !updated && !replay;
    rollbacks = s.rollbacks();
    updated = true;
    Set<Key> seen = new HashSet<>();
    for (Row row : s.rows()) {
      Key key = new Key(row.name(), row.tags());
      if (!seen.add(key)) {
        throw new IllegalStateException("two rows for one series: " + key);
      }
      Series x = series.get(key);
      if (x == null) {
        x = register(row);
        series.put(key, x);
      }
      x.update(row, restarted, baseline);
    }
    for (Key key : List.copyOf(series.keySet())) {
      if (!seen.contains(key)) {
        registry.remove(series.remove(key).meter());
      }
    }
  }

  /** Removes every meter of the job. */
  @Override
  public void close() {
    series.values().forEach(x -> registry.remove(x.meter()));
    series.clear();
  }

  private Series register(Row row) {
    Tags tags = common.and(Tags.of(row.tags().entrySet().stream().map(this::tag).toList()));
    if (row instanceof Value v && v.kind() == Kind.GAUGE) {
      GaugeSeries g = new GaugeSeries();
      g.meter =
          Gauge.builder(v.name(), g, x -> x.value)
              .tags(tags)
              .description(v.help())
              .strongReference(true)
              .register(registry);
      return g;
    } else if (row instanceof Value v) {
      CounterSeries c = new CounterSeries(v.kind());
      c.meter =
          FunctionCounter.builder(v.name(), c, x -> x.total)
              .tags(tags)
              .description(v.help())
              .register(registry);
      return c;
    } else if (row instanceof Latencies l) {
      return new LatencySeries(timer(l.name(), tags, l.help(), LATENCY_BUCKETS));
    } else if (row instanceof Durations d) {
      return new HistorySeries(timer(d.name(), tags, d.help(), RECONFIGURATION_BUCKETS));
    }
    throw new IllegalStateException("unhandled row " + row);
  }

  private io.micrometer.core.instrument.Tag tag(Map.Entry<String, String> e) {
    return io.micrometer.core.instrument.Tag.of(e.getKey(), e.getValue());
  }

  private Timer timer(String name, Tags tags, String help, Duration[] buckets) {
    return Timer.builder(name)
        .tags(tags)
        .description(help)
        .serviceLevelObjectives(buckets)
        .register(registry);
  }

  /** 1-2-5 steps from {@code from} (a power of ten) up to {@code to}, which ends them. */
  static Duration[] steps(Duration from, Duration to) {
    List<Duration> out = new ArrayList<>();
    for (long decade = from.toNanos(); decade < to.toNanos(); decade *= 10) {
      for (long step : new long[] {1, 2, 5}) {
        if (decade * step < to.toNanos()) {
          out.add(Duration.ofNanos(decade * step));
        }
      }
    }
    out.add(to);
    return out.toArray(Duration[]::new);
  }

  /** A series: its name and tags, without the binder's common tags. */
  private record Key(String name, Map<String, String> tags) {}

  /** A registered meter and what it keeps between updates. */
  private abstract static class Series {
    abstract Meter meter();

    /**
     * Moves to {@code row}'s value; {@code restarted}: the job rolled back since the last update;
     * {@code baseline}: the first update of a job whose history is not replayed.
     */
    abstract void update(Row row, boolean restarted, boolean baseline);
  }

  private static final class GaugeSeries extends Series {
    volatile double value;
    Meter meter;

    @Override
    Meter meter() {
      return meter;
    }

    @Override
    void update(Row row, boolean restarted, boolean baseline) {
      value = ((Value) row).value();
    }
  }

  private static final class CounterSeries extends Series {
    private final Kind kind;
    private double last;
    volatile double total;
    Meter meter;

    CounterSeries(Kind kind) {
      this.kind = kind;
    }

    @Override
    Meter meter() {
      return meter;
    }

    @Override
    void update(Row row, boolean restarted, boolean baseline) {
      double now = ((Value) row).value();
      total += Increments.counter(kind, last, now, restarted);
      last = now;
    }
  }

  /** A timer fed the increments of a task's cumulative histogram, kept compressed in between. */
  private static final class LatencySeries extends Series {
    private final Timer timer;
    private byte[] last; // null: nothing seen yet

    LatencySeries(Timer timer) {
      this.timer = timer;
    }

    @Override
    Meter meter() {
      return timer;
    }

    @Override
    void update(Row row, boolean restarted, boolean baseline) {
      Histogram now = ((Latencies) row).nanos();
      if (!baseline) {
        Histogram before = last == null ? null : Increments.decompress(last);
        Histogram delta = Increments.histogram(before, now, restarted);
        for (HistogramIterationValue v : delta.recordedValues()) {
          long nanos = delta.medianEquivalentValue(v.getValueIteratedTo());
          for (long n = v.getCountAddedInThisIterationStep(); n > 0; n--) {
            timer.record(nanos, TimeUnit.NANOSECONDS);
          }
        }
      }
      last = Increments.compress(now);
    }
  }

  /**
   * A timer fed each entry of a history once, by the entries' numbers in the job's history: those
   * after the last fed are new; a history that went back (a rollback undid entries, whose numbers
   * the next ones take again) is fed from where it now ends.
   */
  private static final class HistorySeries extends Series {
    private final Timer timer;
    private int fedUpTo = -1; // the number of the last entry fed

    HistorySeries(Timer timer) {
      this.timer = timer;
    }

    @Override
    Meter meter() {
      return timer;
    }

    @Override
    void update(Row row, boolean restarted, boolean baseline) {
      Durations d = (Durations) row;
      List<Long> nanos = d.nanos();
      List<Integer> seqs = d.seqs();
      int last = seqs.isEmpty() ? -1 : seqs.get(seqs.size() - 1);
      int from = Math.min(fedUpTo, last); // a history that went back is fed from its end
      if (!baseline) {
        for (int i = 0; i < nanos.size(); i++) {
          if (seqs.get(i) > from) {
            timer.record(nanos.get(i), TimeUnit.NANOSECONDS);
          }
        }
      }
      fedUpTo = Math.max(from, last);
    }
  }
}
