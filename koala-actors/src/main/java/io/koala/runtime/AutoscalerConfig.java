package io.koala.runtime;

import com.typesafe.config.Config;
import io.koala.autoscaler.AutoscalerSettings;
import java.time.Duration;

/** Reads and checks {@code koala.autoscaler}, as {@link KoalaConfig} does the rest. */
final class AutoscalerConfig {
  private static final String AT = "koala.autoscaler.";

  private AutoscalerConfig() {}

  static AutoscalerSettings read(Config c) {
    int min = KoalaConfig.intIn(c, AT + "min-parallelism", 1, 1024);
    int max = KoalaConfig.intIn(c, AT + "max-parallelism", 1, 1024);
    if (max < min) {
      throw new ConfigurationException(
          AT + "max-parallelism = " + max + " is below " + AT + "min-parallelism = " + min);
    }
    return new AutoscalerSettings(
        KoalaConfig.bool(c, AT + "enabled"),
        KoalaConfig.durationIn(c, AT + "interval", Duration.ofSeconds(1), Duration.ofHours(1)),
        doubleIn(c, AT + "headroom", 1, 10),
        doubleIn(c, AT + "scale-in-hysteresis", 0, 10),
        KoalaConfig.durationIn(c, AT + "cooldown", Duration.ZERO, Duration.ofDays(1)),
        KoalaConfig.intIn(c, AT + "max-step", 1, 1024),
        min,
        max,
        KoalaConfig.durationIn(c, AT + "catch-up", Duration.ofSeconds(1), Duration.ofDays(1)),
        KoalaConfig.durationIn(c, AT + "lead", Duration.ZERO, Duration.ofHours(1)),
        KoalaConfig.operatorNames(c, AT + "operators"));
  }

  private static double doubleIn(Config c, String path, double min, double max) {
    double v =
        KoalaConfig.read(
            c, path, "a number in [" + min + ", " + max + "]", () -> c.getDouble(path));
    if (!(v >= min && v <= max)) {
      throw new ConfigurationException(
          path + " = " + v + " is out of range; allowed: [" + min + ", " + max + "]");
    }
    return v;
  }
}
