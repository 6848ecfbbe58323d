package io.koala.bench.experiment;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Where a running experiment reports: events (the scenario, the rescale, a recovery, a warning) as
 * lines of their own, and the row of every second. {@link #lines} writes every row as a line (for
 * logs and pipes); {@link #statusLine} keeps one live line with a progress bar under the events,
 * for a terminal. Thread-safe: the rescale's completion is reported from another thread.
 */
public interface ExperimentProgress {

  /** Reports an event, formatted like {@link String#format}; a trailing {@code %n} is optional. */
  void printf(String format, Object... args);

  /** Reports the row of the second that just ended. */
  void sample(RescaleSample row);

  /** The run ended: a live line is finished with a line break. */
  void done();

  /**
   * A live status line for the run of {@code s} on a terminal ({@link System#console()} present),
   * else {@link #lines}.
   */
  static ExperimentProgress forTerminal(PrintStream out, String label, RescaleSettings s) {
    return System.console() != null ? statusLine(out, label, s) : lines(out);
  }

  /** Every event and every second's row as a line of its own. */
  static ExperimentProgress lines(PrintStream out) {
    return new ExperimentProgress() {
      @Override
      public synchronized void printf(String format, Object... args) {
        out.println(stripNewline(String.format(Locale.ROOT, format, args)));
      }

      @Override
      public synchronized void sample(RescaleSample r) {
        out.printf(
            Locale.ROOT,
            "%5.1f s %-8s input %,9.0f/s  processed %,9.0f/s  lag %,9d  backlog %,9d  batch p50"
                + " %6.2f ms p99 %7.2f ms  transferred %,d B  forwarded %,d  held %,d  parked"
                + " %,d%n",
            r.timeSeconds(),
            r.phase(),
            r.inputRate(),
            r.throughput(),
            r.lagRecords(),
            r.backlogRecords(),
            r.p50BatchLatencyMs(),
            r.p99BatchLatencyMs(),
            r.stateBytesTransferred(),
            r.recordsForwarded(),
            r.recordsHeld(),
            r.parkedRecords());
      }

      @Override
      public void done() {}
    };
  }

  /** Reports nothing: for a run whose only purpose is to warm the JVM up. */
  static ExperimentProgress silent() {
    return new ExperimentProgress() {
      @Override
      public void printf(String format, Object... args) {}

      @Override
      public void sample(RescaleSample row) {}

      @Override
      public void done() {}
    };
  }

  /**
   * One line rewritten every second, {@code label} first: the phase, a bar (the time to the rescale
   * before it, the share of the backlog worked off after it), throughput, source lag and state
   * moved. Events are printed above it.
   */
  static ExperimentProgress statusLine(PrintStream out, String label, RescaleSettings s) {
    return new StatusLine(out, label, s.rescaleAtSecond());
  }

  /** The live line of {@link #statusLine}. */
  final class StatusLine implements ExperimentProgress {
    static final int BAR = 20;
    private final PrintStream out;
    private final String label;
    private final double rescaleAtSecond;
    private String current = "";
    private long lagAtRescale = -1;

    StatusLine(PrintStream out, String label, double rescaleAtSecond) {
      this.out = out;
      this.label = label;
      this.rescaleAtSecond = rescaleAtSecond;
    }

    @Override
    public synchronized void printf(String format, Object... args) {
      clear();
      out.println(stripNewline(String.format(Locale.ROOT, format, args)));
      out.print(current);
      out.flush();
    }

    @Override
    public synchronized void sample(RescaleSample r) {
      clear();
      current = render(r);
      out.print(current);
      out.flush();
    }

    @Override
    public synchronized void done() {
      if (!current.isEmpty()) {
        out.println();
        current = "";
      }
    }

    private void clear() {
      if (!current.isEmpty()) {
        out.print("\r" + " ".repeat(current.length()) + "\r");
      }
    }

    /** The status line of row {@code r}. */
    String render(RescaleSample r) {
      double share;
      String what;
      switch (r.phase()) {
        case "recovery" -> {
          if (lagAtRescale < 0) {
            lagAtRescale = Math.max(1, r.lagRecords());
          }
          share = 1 - Math.min(1.0, (double) r.lagRecords() / lagAtRescale);
          what = "backlog worked off";
        }
        case "tail" -> {
          share = 1;
          what = "recovered";
        }
        default -> {
          share = Math.min(1.0, r.timeSeconds() / rescaleAtSecond);
          what = "to the rescale";
        }
      }
      int filled = (int) Math.round(share * BAR);
      String bar =
          "["
              + "#".repeat(filled)
              + ".".repeat(BAR - filled)
              + String.format(Locale.ROOT, "] %3.0f%% %-18s", share * 100, what);
      return String.format(
          Locale.ROOT,
          "%s %5.0f s %-8s %s processed %,7.0f/s  lag %,9d  state moved %s",
          label,
          r.timeSeconds(),
          r.phase(),
          bar,
          r.throughput(),
          r.lagRecords(),
          megabytes(r.stateBytesTransferred()));
    }
  }

  /** {@code bytes} in megabytes, one decimal. */
  static String megabytes(long bytes) {
    return String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
  }

  private static String stripNewline(String s) {
    return s.endsWith("\n") ? s.substring(0, s.length() - 1) : s;
  }
}
