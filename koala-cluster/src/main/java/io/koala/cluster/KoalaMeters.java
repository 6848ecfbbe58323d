package io.koala.cluster;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps a Micrometer registry in step with {@link MetricRows}: each {@link #update} registers the
 * meters of rows not seen before, sets every row's value, and removes the meters of rows that are
 * gone (a task retired by a scale-in, a job that ended and was forgotten). Thread-safe: updates are
 * serialized, meters read their value from a concurrent map.
 */
final class KoalaMeters {
  private final MeterRegistry registry;
  private final Map<Meter.Id, Double> values = new ConcurrentHashMap<>();
  private final Map<Meter.Id, Meter> meters = new HashMap<>(); // guarded by this

  KoalaMeters(MeterRegistry registry) {
    this.registry = registry;
  }

  synchronized void update(List<MetricRows.Row> rows) {
    Set<Meter.Id> seen = new HashSet<>();
    for (MetricRows.Row r : rows) {
      List<Tag> tags = new ArrayList<>();
      r.tags().forEach((k, v) -> tags.add(Tag.of(k, v)));
      Meter.Type type = r.kind() == MetricRows.Kind.COUNTER ? Meter.Type.COUNTER : Meter.Type.GAUGE;
      Meter.Id id =
          new Meter.Id(r.name(), io.micrometer.core.instrument.Tags.of(tags), null, r.help(), type);
      values.put(id, r.value());
      seen.add(id);
      if (!meters.containsKey(id)) {
        Meter m =
            r.kind() == MetricRows.Kind.COUNTER
                ? FunctionCounter.builder(r.name(), values, v -> v.getOrDefault(id, 0.0))
                    .tags(tags)
                    .description(r.help())
                    .register(registry)
                : Gauge.builder(r.name(), values, v -> v.getOrDefault(id, Double.NaN))
                    .tags(tags)
                    .description(r.help())
                    .strongReference(true)
                    .register(registry);
        meters.put(id, m);
      }
    }
    for (Meter.Id id : List.copyOf(meters.keySet())) {
      if (!seen.contains(id)) {
        registry.remove(meters.remove(id));
        values.remove(id);
      }
    }
  }
}
