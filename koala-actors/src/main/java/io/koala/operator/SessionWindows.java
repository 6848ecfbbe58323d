package io.koala.operator;

import io.koala.state.Codec;
import io.koala.window.TimeWindow;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The session windows of one key, as pure functions: merging a new record's window into the key's
 * sessions, and the sessions' encoding as keyed state (the set is state, not heap metadata: it
 * moves with the key). A key's sessions never intersect one another; a new window absorbs every
 * session it intersects (touching counts, as in Flink), and every session the growing cover then
 * intersects.
 */
final class SessionWindows {
  private SessionWindows() {}

  /**
   * The outcome of adding a window to a key's sessions.
   *
   * @param window the session the new window belongs to now
   * @param merged the existing sessions that are part of {@code window}, earliest first: empty when
   *     {@code window} is new, just {@code window} when the new window falls inside an existing
   *     session, else the sessions whose contents merge into {@code window}
   * @param sessions every session of the key afterwards, earliest first
   */
  record Merge(TimeWindow window, List<TimeWindow> merged, List<TimeWindow> sessions) {
    Merge {
      merged = List.copyOf(merged);
      sessions = List.copyOf(sessions);
    }

    /** Whether {@code window} was already a session (nothing to merge, no new timers). */
    boolean unchanged() {
      return merged.size() == 1 && merged.get(0).equals(window);
    }
  }

  /** Adds {@code added} to {@code sessions} (pairwise non-intersecting), merging as needed. */
  static Merge add(List<TimeWindow> sessions, TimeWindow added) {
    List<TimeWindow> sorted = new ArrayList<>(sessions);
    sorted.sort(Comparator.comparingLong(TimeWindow::start).thenComparingLong(TimeWindow::end));
    TimeWindow cover = added;
    List<TimeWindow> merged = new ArrayList<>();
    boolean grew = true;
    while (grew) {
      grew = false;
      for (TimeWindow s : sorted) {
        if (!merged.contains(s) && s.intersects(cover)) {
          cover = cover.cover(s);
          merged.add(s);
          grew = true;
        }
      }
    }
    merged.sort(Comparator.comparingLong(TimeWindow::start));
    List<TimeWindow> after = new ArrayList<>();
    boolean placed = false;
    for (TimeWindow s : sorted) {
      if (merged.contains(s)) {
        continue;
      }
      if (!placed && s.start() > cover.start()) {
        after.add(cover);
        placed = true;
      }
      after.add(s);
    }
    if (!placed) {
      after.add(cover);
    }
    return new Merge(cover, merged, after);
  }

  /** The sessions of a key as state: 16 bytes per window ({@link TimeWindow#toBytes()}). */
  static final Codec<List<TimeWindow>> CODEC =
      new Codec<>() {
        @Override
        public byte[] encode(List<TimeWindow> windows) {
          ByteBuffer b = ByteBuffer.allocate(16 * windows.size());
          for (TimeWindow w : windows) {
            b.put(w.toBytes());
          }
          return b.array();
        }

        @Override
        public List<TimeWindow> decode(byte[] bytes) {
          if (bytes.length % 16 != 0) {
            throw new IllegalArgumentException(
                "session windows state of " + bytes.length + " bytes is not a multiple of 16");
          }
          List<TimeWindow> out = new ArrayList<>(bytes.length / 16);
          byte[] one = new byte[16];
          for (int i = 0; i < bytes.length; i += 16) {
            System.arraycopy(bytes, i, one, 0, 16);
            out.add(TimeWindow.fromBytes(one));
          }
          return out;
        }
      };
}
