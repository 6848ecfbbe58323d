package io.koala.bench.experiment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.koala.bench.cli.KoalaBench;
import io.koala.routing.Buckets;
import io.koala.serialization.KeyEncoder;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.TypeRegistry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code koala experiment rescale} end to end at a tiny scale (4 workers in separate ActorSystems,
 * 2,000 keys, 500 active, capacities scaled down): the JSON line parses and its figures agree with
 * each other and with what the workload implies.
 */
class RescaleExperimentIT {
  static final int KEYS = 2_000;
  static final int ACTIVE = 500;
  static final int STATE_BYTES = 128;

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"q6star", "twitch"})
  void tinyRescaleRecoversAndMovesOnlyHotState(String workload, @TempDir Path dir)
      throws Exception {
    Path csv = dir.resolve("rows.csv");
    StringWriter out = new StringWriter();
    CommandLine cli = KoalaBench.commandLine().setOut(new PrintWriter(out));
    int code =
        cli.execute(
            "experiment",
            "rescale",
            "--workload=" + workload,
            "--keys=" + KEYS,
            "--active-keys=" + ACTIVE,
            "--state-bytes=" + STATE_BYTES,
            "--task-capacity=500", // 4 tasks: 2,000/s before, 8 tasks: 4,000/s after
            "--rate=1200", // doubled: 2,400/s, above the capacity before, below the one after
            "--steady-seconds=3",
            "--doubled-seconds=4",
            "--tail-seconds=1",
            "--timeout-seconds=60",
            "--json",
            "--csv=" + csv);
    assertThat(code).as("exit code; stdout: %s", out).isZero();
    String[] lines = out.toString().strip().split("\n");
    Config j = ConfigFactory.parseString(lines[lines.length - 1]);

    assertThat(j.getString("protocol")).isEqualTo("koala");
    assertThat(j.getString("workload")).isEqualTo(workload);
    assertThat(j.getInt("workers")).isEqualTo(4);
    assertThat(j.getDouble("capacityBefore")).isEqualTo(2_000);
    assertThat(j.getDouble("capacityAfter")).isEqualTo(4_000);
    assertThat(j.getIsNull("error")).isTrue();
    assertThat(j.getBoolean("recovered")).isTrue();

    // a store key of a Long key is bucket(2) | keyLen(4) | tag and 8 bytes | stateId(4) | nsLen(2)
    long perKey = j.getLong("stateBytesPerKey");
    assertThat(perKey).isEqualTo(STATE_BYTES + 2 + 4 + 9 + 4 + 2);
    assertThat(j.getLong("stateBytesTotal")).isEqualTo(KEYS * perKey);

    // the moved buckets' keys, recomputed from the buckets the report names
    Set<Integer> moved = new HashSet<>(j.getIntList("movedBuckets"));
    assertThat(moved).isNotEmpty().hasSizeLessThan(Buckets.DEFAULT_BUCKETS);
    KeyEncoder keys = new KeyEncoder(new KryoSerde(TypeRegistry.withDefaults()));
    long movedKeys = 0;
    long movedHotKeys = 0;
    for (long k = 0; k < KEYS; k++) {
      if (moved.contains(Buckets.bucketOf(keys.encode(k), Buckets.DEFAULT_BUCKETS))) {
        movedKeys++;
        movedHotKeys += k < ACTIVE ? 1 : 0;
      }
    }
    assertThat(j.getLong("movedBucketsKeys")).isEqualTo(movedKeys);
    assertThat(j.getLong("movedBucketsStateBytes")).isEqualTo(movedKeys * perKey);
    assertThat(j.getLong("accessedMovedKeys")).isPositive().isLessThanOrEqualTo(movedHotKeys);

    // lazy transfer: after the warm-up (over seconds before the rescale) only hot keys are
    // touched, so only hot keys of moved buckets can have been fetched, each once, whole
    long transferred = j.getLong("keysTransferred");
    assertThat(transferred).isPositive().isLessThanOrEqualTo(movedHotKeys);
    assertThat(j.getLong("stateBytesTransferred")).isEqualTo(transferred * perKey);
    assertThat(j.getLong("stateBytesTransferred"))
        .isLessThanOrEqualTo(j.getLong("movedBucketsStateBytes"));
    assertThat(j.getLong("fetchRequests")).isPositive().isLessThanOrEqualTo(transferred);
    assertThat(j.getLong("kltBytes")).isPositive(); // cold keys of moved buckets stay remote

    // 2,400/s against 2,000/s for 4 s builds a backlog well above the steady one. At this scale
    // the channels' credit windows can hold most of it (the sources read ahead of the target), so
    // the source lag alone need not pass its threshold: the end-to-end backlog does, below
    long lag = j.getLong("lagAtReconfig");
    assertThat(j.getLong("maxLagRecords")).isGreaterThanOrEqualTo(lag);
    assertThat(j.getDouble("idealRecoveryMs"))
        .isCloseTo(lag / (4_000.0 - 2_400) * 1000, within(1e-2));
    assertThat(j.getDouble("backlogRecoveryMs")).isBetween(0.0, 60_000.0);
    // the end-to-end backlog also counts what the sources read but the target has not processed
    long backlog = j.getLong("endToEndBacklogAtReconfig");
    assertThat(backlog).isGreaterThan(j.getLong("endToEndRecoveryThreshold"));
    assertThat(j.getDouble("endToEndIdealRecoveryMs"))
        .isCloseTo(backlog / (4_000.0 - 2_400) * 1000, within(1e-2));
    assertThat(j.getDouble("endToEndRecoveryMs")).isBetween(0.0, 60_000.0);
    assertThat(j.getDouble("minThroughputDuringReconfig")).isPositive();

    List<String> rows = Files.readAllLines(csv, StandardCharsets.UTF_8);
    assertThat(rows.get(0)).startsWith("time,phase,inputRate,throughput,");
    List<String> phases = new ArrayList<>();
    for (String row : rows.subList(1, rows.size())) {
      String phase = row.split(",")[1];
      if (phases.isEmpty() || !phases.get(phases.size() - 1).equals(phase)) {
        phases.add(phase);
      }
    }
    assertThat(phases).containsExactly("warmup", "steady", "doubled", "recovery", "tail");
  }

  @Test
  void refusesAProtocolThatDoesNotExistNamingTheFlag() {
    assertRefused(
        "--protocol: no protocol \"sr\"; allowed: koala, stop-restart, eager, fluid, remote",
        "--protocol=sr");
  }

  @Test
  void refusesInconsistentSizesNamingTheFlag() {
    assertRefused("--active-keys must be in [1, --keys = 10]", "--keys=10", "--active-keys=11");
    assertRefused("--state-bytes must be at least", "--state-bytes=16");
    assertRefused("--to must differ from --from", "--from=4", "--to=4");
  }

  private static void assertRefused(String message, String... flags) {
    StringWriter err = new StringWriter();
    CommandLine cli = KoalaBench.commandLine().setErr(new PrintWriter(err));
    List<String> args = new ArrayList<>(List.of("experiment", "rescale"));
    args.addAll(List.of(flags));
    assertThat(cli.execute(args.toArray(String[]::new))).isEqualTo(2);
    assertThat(err.toString()).contains(message);
  }
}
