package io.koala.runtime.internal;

import io.koala.autoscaler.AutoscalerSettings;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.DrainSettings;
import io.koala.protocol.ReconfigurationProtocol;
import io.koala.runtime.KoalaConfig;
import io.koala.store.StoreOptions;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * The settings of a {@link KoalaConfig} that only Koala's engine reads, in its internal types:
 * batches, channels, hot sets and the decay of the tasks' load counters ({@code koala.batch},
 * {@code koala.channel}, {@code koala.reconfiguration.hot-set}, {@code
 * koala.metrics.load-half-life}), the store's memory map ({@code koala.store}), the reconfiguration
 * protocol and the drain of retired holders ({@code koala.reconfiguration}), the autoscaler ({@code
 * koala.autoscaler}). The configuration reads and checks them when it is created, like the rest;
 * they are kept off its public API, which names no internal type.
 */
public record EngineSettings(
    ChannelSettings channels,
    StoreOptions store,
    ReconfigurationProtocol protocol,
    DrainSettings drain,
    AutoscalerSettings autoscaler) {
  private static final AtomicReference<Function<KoalaConfig, EngineSettings>> CONFIGS =
      new AtomicReference<>();

  public EngineSettings {
    Objects.requireNonNull(channels, "channels");
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(protocol, "protocol");
    Objects.requireNonNull(drain, "drain");
    Objects.requireNonNull(autoscaler, "autoscaler");
  }

  /**
   * How {@link KoalaConfig} hands its engine settings to Koala's engine, which lives outside its
   * package, without widening its API: called once, by its static initializer.
   */
  public static void openConfigs(Function<KoalaConfig, EngineSettings> reader) {
    if (!CONFIGS.compareAndSet(null, reader)) {
      throw new IllegalStateException("configurations are already open");
    }
  }

  /** The engine settings of {@code config} (its class is initialized: it has an instance). */
  public static EngineSettings of(KoalaConfig config) {
    return CONFIGS.get().apply(Objects.requireNonNull(config, "config"));
  }
}
