package io.koala.testkit.verify;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.runtime.KoalaConfig;
import io.koala.runtime.KoalaRuntime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random reconfiguration schedules with crashes on the actor runtime (every message serialized):
 * each crash rolls its job back once, and every workload's output still equals its reference run's.
 */
class RuntimeVerifierTest {
  /** Two seconds of input per run: the runs of a seed go together, on one runtime. */
  static final long RECORDS = 8_000;

  static final double RATE = 4_000;

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {2, 3})
  void crashesRollBackOnceEachAndTheOutputEqualsTheReference(long seed) {
    System.out.println("RuntimeVerifierTest seed " + seed);
    KoalaConfig config =
        RuntimeVerifier.withCheckpoints(
            KoalaConfig.load()
                .withWorkers(3)
                .with("pekko.actor.serialize-messages", "on")
                .with("pekko.loglevel", "WARNING"));
    List<Outcome> outcomes = new ArrayList<>();
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      RuntimeVerifier v = new RuntimeVerifier(runtime, RECORDS, RATE, Duration.ofSeconds(60), true);
      List<RuntimeVerifier.Run> runs = new ArrayList<>();
      for (Workload w : Workloads.all()) {
        runs.add(v.start(w, seed, 3));
      }
      v.drive(runs);
      for (RuntimeVerifier.Run r : runs) {
        outcomes.add(v.finish(r));
      }
    }
    int crashes = 0;
    for (Outcome o : outcomes) {
      System.out.println(o);
      assertThat(o.mismatches()).as("%s", o).isEmpty();
      assertThat(o.violations()).as("%s", o).isEmpty();
      assertThat(o.recoveries()).as("one rollback per crash: %s", o).isEqualTo(o.crashes().size());
      crashes += o.crashes().size();
    }
    assertThat(crashes).as("crashes injected into the runs of seed %d", seed).isPositive();
  }
}
