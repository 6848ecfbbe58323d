package io.koala.bench.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ExperimentProgressTest {

  static RescaleSample row(double t, String phase, long lag, long transferred) {
    return new RescaleSample(t, phase, 0, 12_345, 0, lag, lag, 1, 2, transferred, 0, 0, 0);
  }

  @Test
  void theStatusLineShowsTheWayToTheRescaleThenTheBacklogWorkedOff() {
    ExperimentProgress.StatusLine line =
        new ExperimentProgress.StatusLine(
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            "koala",
            20);
    assertThat(line.render(row(10, "steady", 100, 0)))
        .startsWith("koala ")
        .contains("[##########..........]  50% to the rescale")
        .contains("processed  12,345/s")
        .contains("state moved 0.0 MB");
    assertThat(line.render(row(21, "recovery", 8_000, 2_500_000)))
        .contains("[....................]   0% backlog worked off")
        .contains("state moved 2.5 MB");
    assertThat(line.render(row(22, "recovery", 2_000, 2_500_000)))
        .contains("[###############.....]  75% backlog worked off");
    assertThat(line.render(row(23, "tail", 100, 2_500_000))).contains("100% recovered");
  }

  @Test
  void eventsGoAboveTheLiveLineAndDoneEndsIt() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ExperimentProgress line =
        new ExperimentProgress.StatusLine(
            new PrintStream(bytes, true, StandardCharsets.UTF_8), "koala", 20);
    line.sample(row(1, "warmup", 0, 0));
    line.printf("rescale at %d s%n", 20);
    line.done();
    String out = bytes.toString(StandardCharsets.UTF_8);
    // the live line is wiped, the event printed on a line of its own, the live line redrawn
    assertThat(out).contains("\rrescale at 20 s\nkoala ").endsWith("\n");
  }
}
