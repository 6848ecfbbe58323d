package io.koala.operator;

import io.koala.function.JoinFunction;
import io.koala.state.Codec;
import io.koala.state.TimeDomain;
import io.koala.window.TimeWindow;
import io.koala.window.WindowAssigner;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;

/**
 * The window join: input 0 and input 1 are the two sides. Each record is appended, per window it
 * belongs to, to its side's list in the key's namespaced state (namespace: the window's bytes), and
 * an event-time timer of the key is registered at the window's {@link TimeWindow#maxTimestamp()}.
 * When the timer fires, every pair of the window's two lists is joined once and emitted with that
 * timestamp, and both lists are deleted. A window whose timer has fired is never filled again: a
 * record whose every window has fired is dropped as late.
 *
 * <p>Session windows are formed over both sides together. The key's open sessions are kept in its
 * state (one value, no namespace); a record's window {@code [ts, ts + gap)} absorbs every open
 * session it intersects, whose lists move to the merged window and whose timers are replaced by the
 * merged window's.
 *
 * <p>Every piece of data lives in the key's state and timers, none on the heap between records, so
 * a key's join state moves with it.
 */
public final class WindowJoinOperator<A, B, O> implements Operator<Object, O> {
  private static final byte[] NO_NAMESPACE = new byte[0];

  private final WindowAssigner assigner;
  private final JoinFunction<A, B, O> fn;
  private OperatorContext<O> ctx;
  private NamespacedState.Appendable<Object> left;
  private NamespacedState.Appendable<Object> right;
  private NamespacedState.Value<byte[]> sessions;

  public WindowJoinOperator(WindowAssigner assigner, JoinFunction<A, B, O> fn) {
    this.assigner = assigner;
    this.fn = fn;
  }

  @Override
  public void open(OperatorContext<O> ctx) {
    this.ctx = ctx;
    Codec<Object> elements = ctx.codec(Object.class);
    NamespacedState state = ctx.namespacedState();
    left = state.list("window-join.left", elements);
    right = state.list("window-join.right", elements);
    if (assigner.isMerging()) {
      sessions = state.value("window-join.sessions", ctx.codec(byte[].class));
    }
  }

  @Override
  public void process(Object value, long timestamp, int input) {
    requireTimestamp(ctx, timestamp);
    NamespacedState.Appendable<Object> side = input == 0 ? left : right;
    if (assigner.isMerging()) {
      processMerging(value, timestamp, side);
      return;
    }
    long watermark = ctx.currentWatermark();
    boolean kept = false;
    for (TimeWindow w : assigner.assign(timestamp)) {
      if (w.maxTimestamp() <= watermark) {
        continue; // this window has fired
      }
      byte[] ns = w.toBytes();
      side.add(ns, value);
      ctx.timers().registerEventTimeTimer(w.maxTimestamp(), ns);
      kept = true;
    }
    if (!kept) {
      ctx.lateRecordDropped();
    }
  }

  private void processMerging(
      Object value, long timestamp, NamespacedState.Appendable<Object> side) {
    List<TimeWindow> open = decodeWindows(sessions.get(NO_NAMESPACE));
    TimeWindow merged = assigner.assign(timestamp).get(0);
    List<TimeWindow> absorbed = new ArrayList<>();
    boolean grew = true;
    while (grew) {
      grew = false;
      for (Iterator<TimeWindow> it = open.iterator(); it.hasNext(); ) {
        TimeWindow s = it.next();
        if (s.intersects(merged)) {
          merged = merged.cover(s);
          absorbed.add(s);
          it.remove();
          grew = true;
        }
      }
    }
    if (merged.maxTimestamp() <= ctx.currentWatermark()) {
      // Open sessions end after the watermark, so a late window absorbed none of them.
      ctx.lateRecordDropped();
      return;
    }
    byte[] target = merged.toBytes();
    for (TimeWindow s : absorbed) {
      if (!s.equals(merged)) {
        byte[] ns = s.toBytes();
        move(left, ns, target);
        move(right, ns, target);
        ctx.timers().deleteEventTimeTimer(s.maxTimestamp(), ns);
      }
    }
    open.add(merged);
    sessions.put(NO_NAMESPACE, encodeWindows(open));
    side.add(target, value);
    ctx.timers().registerEventTimeTimer(merged.maxTimestamp(), target);
  }

  private static void move(NamespacedState.Appendable<Object> list, byte[] from, byte[] to) {
    List<Object> moving = list.get(from);
    if (!moving.isEmpty()) {
      List<Object> into = list.get(to);
      into.addAll(moving);
      list.put(to, into);
      list.clear(from);
    }
  }

  @Override
  @SuppressWarnings("unchecked")
  public void onTimer(long timestamp, byte[] namespace, TimeDomain domain) throws Exception {
    if (domain != TimeDomain.EVENT_TIME) {
      return;
    }
    TimeWindow w = TimeWindow.fromBytes(namespace);
    List<Object> as = left.get(namespace);
    List<Object> bs = right.get(namespace);
    for (Object a : as) {
      for (Object b : bs) {
        ctx.output().emit(fn.join((A) a, (B) b), w.maxTimestamp());
      }
    }
    left.clear(namespace);
    right.clear(namespace);
    if (assigner.isMerging()) {
      List<TimeWindow> open = decodeWindows(sessions.get(NO_NAMESPACE));
      open.remove(w);
      sessions.put(NO_NAMESPACE, open.isEmpty() ? null : encodeWindows(open));
    }
  }

  /** Fails on a record without an event timestamp: windows need one. */
  static void requireTimestamp(OperatorContext<?> ctx, long timestamp) {
    if (timestamp == Long.MIN_VALUE) {
      throw new IllegalStateException(
          "operator '"
              + ctx.operatorName()
              + "' joins by event time but received a record without a timestamp: give its"
              + " source a timestamp function");
    }
  }

  private static List<TimeWindow> decodeWindows(byte[] bytes) {
    List<TimeWindow> out = new ArrayList<>();
    if (bytes != null) {
      for (int i = 0; i < bytes.length; i += 16) {
        byte[] one = new byte[16];
        System.arraycopy(bytes, i, one, 0, 16);
        out.add(TimeWindow.fromBytes(one));
      }
    }
    return out;
  }

  private static byte[] encodeWindows(List<TimeWindow> windows) {
    windows.sort(Comparator.comparingLong(TimeWindow::start));
    ByteBuffer b = ByteBuffer.allocate(16 * windows.size());
    for (TimeWindow w : windows) {
      b.put(w.toBytes());
    }
    return b.array();
  }
}
