package io.koala.bench.upgrade;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code koala experiment upgrade} at a small scale: the two versions of the state class compile
 * and load side by side, version 1 stops with a savepoint, version 2 restores from it, and the
 * output of both equals the reference with nothing lost or duplicated.
 */
class UpgradeExperimentTest {
  @Test
  void versionTwoContinuesExactlyWhereVersionOneStopped(@TempDir Path dir) {
    List<String> progress = new ArrayList<>();
    UpgradeExperiment.Result r =
        UpgradeExperiment.run(new UpgradeWorkload(8_000, 500, 8_000, 0.4, 5), dir, progress::add);

    assertThat(r.verdict()).isEqualTo(new UpgradeVerdict(true, 0, 0, 8_000));
    assertThat(progress).anyMatch(line -> line.startsWith("version 1 stopped with savepoint"));
    assertThat(r.json()).contains("\"outputEquivalent\":true").contains("\"recordsLost\":0");
    assertThat(dir.resolve("savepoint-v1")).as("the run cleans up").doesNotExist();
  }
}
