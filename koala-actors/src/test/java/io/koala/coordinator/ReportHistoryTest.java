package io.koala.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.job.ReconfigurationReport;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReportHistoryTest {

  private static ReconfigurationReport report(long epoch) {
    return new ReconfigurationReport(
        epoch,
        "count",
        "rescale",
        List.of(0),
        List.of(0, 1),
        List.of(3),
        1,
        2,
        0,
        0,
        0,
        0,
        0,
        0,
        0);
  }

  @Test
  void keepsTheNewestAndCountsThemAll() {
    ReportHistory h = new ReportHistory();
    for (long e = 1; e <= ReportHistory.KEPT + 10; e++) {
      h.add(report(e));
    }
    assertThat(h.made()).isEqualTo(ReportHistory.KEPT + 10);
    List<ReconfigurationReport> latest = h.latest();
    assertThat(latest).hasSize(ReportHistory.KEPT);
    assertThat(latest.get(0).epoch()).isEqualTo(11);
    assertThat(latest.get(latest.size() - 1).epoch()).isEqualTo(ReportHistory.KEPT + 10);
  }

  @Test
  void aRollbackUndoesTheReportsMadeAfterItsCheckpointEvenBeyondTheKeptOnes() {
    ReportHistory h = new ReportHistory();
    for (long e = 1; e <= 100; e++) {
      h.add(report(e));
    }
    h.truncate(90);
    assertThat(h.made()).isEqualTo(90);
    assertThat(h.latest()).last().extracting(ReconfigurationReport::epoch).isEqualTo(90L);
    h.truncate(10); // before every kept one
    assertThat(h.made()).isEqualTo(10);
    assertThat(h.latest()).isEmpty();
    h.add(report(101));
    assertThat(h.made()).isEqualTo(11);
    assertThat(h.latest()).extracting(ReconfigurationReport::epoch).containsExactly(101L);
  }
}
