package io.koala.bench.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.cli.ProtocolChoice;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which runs of a comparison its summary leaves out, and why (issue 48): a protocol that could not
 * keep up with the input before the doubling, where the control of its repetition did, is a finding
 * of the experiment; any other error makes the run invalid.
 */
class CompareSummaryTest {

  private static RescaleResult result(String protocol, long lagBeforeDoubling, String error) {
    return new RescaleResult(
        "q6star",
        protocol,
        0,
        0,
        0,
        0,
        0,
        1_000,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        List.of(),
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        null,
        null,
        lagBeforeDoubling,
        0,
        0,
        0,
        null,
        null,
        0,
        0,
        null,
        null,
        0,
        null,
        0,
        null,
        0,
        null,
        List.of(),
        List.of(),
        true,
        0,
        error);
  }

  private static CompareSummary.Run run(
      String protocol, int repetition, long lagBeforeDoubling, String error) {
    return new CompareSummary.Run(
        protocol + "-" + (repetition + 1),
        protocol,
        repetition,
        result(protocol, lagBeforeDoubling, error));
  }

  @Test
  void aProtocolThatCouldNotKeepUpWhereTheControlDidIsAFindingNotAnInvalidRun() {
    CompareSummary s =
        CompareSummary.of(
            "compare",
            List.of("koala", "remote"),
            1,
            List.of(
                run("koala", 0, 100, null),
                run("remote", 0, 50_000, "the job had not caught up with its input"),
                run(ProtocolChoice.CONTROL, 0, 120, null)));
    assertThat(s.unsustained()).containsExactly("remote-1");
    assertThat(s.invalid()).isEmpty();
    assertThat(s.protocols().get("remote").runs()).isZero();
    assertThat(s.protocols().get("koala").runs()).isEqualTo(1);
  }

  @Test
  void whenTheControlDidNotKeepUpEitherTheRunsAreInvalid() {
    CompareSummary s =
        CompareSummary.of(
            "compare",
            List.of("remote"),
            1,
            List.of(
                run("remote", 0, 50_000, "the job had not caught up with its input"),
                run(
                    ProtocolChoice.CONTROL,
                    0,
                    40_000,
                    "the job had not caught up with its input")));
    assertThat(s.unsustained()).isEmpty();
    assertThat(s.invalid()).containsExactly("remote-1", "control-1");
  }

  @Test
  void anyOtherErrorIsAnInvalidRun() {
    CompareSummary s =
        CompareSummary.of(
            "compare",
            List.of("koala"),
            1,
            List.of(
                run("koala", 0, 100, "the rescale failed: boom"),
                run(ProtocolChoice.CONTROL, 0, 100, null)));
    assertThat(s.invalid()).containsExactly("koala-1");
    assertThat(s.unsustained()).isEmpty();
  }
}
