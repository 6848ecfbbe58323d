package io.koala.coordinator;

import io.koala.job.ReconfigurationReport;
import java.util.ArrayDeque;
import java.util.List;

/**
 * The reports of the reconfigurations a job completed: the newest {@link #KEPT}, and how many it
 * made in all. A job that reconfigures every few minutes for months would otherwise carry every
 * report in its memory and in every metrics reply, which must fit a message frame across nodes.
 */
final class ReportHistory {
  /** Reports kept, newest last. */
  static final int KEPT = 64;

  private final ArrayDeque<ReconfigurationReport> kept = new ArrayDeque<>();
  private int made;

  void add(ReconfigurationReport report) {
    kept.addLast(report);
    made++;
    if (kept.size() > KEPT) {
      kept.removeFirst();
    }
  }

  /** The newest reports, oldest first: at most {@link #KEPT}. */
  List<ReconfigurationReport> latest() {
    return List.copyOf(kept);
  }

  /** Reports made since the job started, those no longer kept included. */
  int made() {
    return made;
  }

  /**
   * A rollback to a checkpoint taken when {@code count} reports had been made: the later ones are
   * undone.
   */
  void truncate(int count) {
    while (made > count && !kept.isEmpty()) {
      kept.removeLast();
      made--;
    }
    made = Math.min(made, count);
  }
}
