package io.koala.operator;

import io.koala.function.Collector;
import io.koala.function.ProcessJoinFunction;
import io.koala.state.Codec;
import io.koala.state.TimeDomain;
import java.nio.ByteBuffer;
import java.util.function.Supplier;

/**
 * The interval join: a record {@code a} of input 0 matches every record {@code b} of input 1 with
 * the same key and {@code a.ts + lower <= b.ts <= a.ts + upper}. A record first probes the other
 * side's buffer and joins every match, then is buffered itself unless the watermark already shows
 * that nothing can match it any more.
 *
 * <p>State of a key, per side: the buffered records, one list per timestamp (namespace: the
 * timestamp), and a sorted index of the buffered timestamps (one value), so a probe reads only the
 * lists in range. A buffered record is removed by an event-time timer of its key when the watermark
 * reaches {@code ts + upper} (input 0) or {@code ts - lower} (input 1): from then on every record
 * still to come has a timestamp above the watermark, out of its range. A record at or below the
 * watermark is late and dropped, since the records it would match may already be gone.
 */
public final class IntervalJoinOperator<A, B, O> implements Operator<Object, O> {
  private static final byte[] NO_NAMESPACE = new byte[0];

  private final long lower;
  private final long upper;
  private final Supplier<? extends ProcessJoinFunction<A, B, O>> supplier;
  private ProcessJoinFunction<A, B, O> fn;
  private OperatorContext<O> ctx;

  @SuppressWarnings({"unchecked", "rawtypes"})
  private final NamespacedState.Appendable<Object>[] buffers = new NamespacedState.Appendable[2];

  @SuppressWarnings({"unchecked", "rawtypes"})
  private final NamespacedState.Value<byte[]>[] indexes = new NamespacedState.Value[2];

  private long leftTs;
  private long rightTs;
  private final Collector<O> collector =
      value -> ctx.output().emit(value, Math.max(leftTs, rightTs));
  private final ProcessJoinFunction.Context context =
      new ProcessJoinFunction.Context() {
        @Override
        public long leftTimestamp() {
          return leftTs;
        }

        @Override
        public long rightTimestamp() {
          return rightTs;
        }

        @Override
        public long timestamp() {
          return Math.max(leftTs, rightTs);
        }
      };

  /**
   * @param lower the lower bound in milliseconds (inclusive), at most {@code upper}
   * @param upper the upper bound in milliseconds (inclusive)
   */
  public IntervalJoinOperator(
      long lower, long upper, Supplier<? extends ProcessJoinFunction<A, B, O>> supplier) {
    if (lower > upper) {
      throw new IllegalArgumentException(
          "lower bound " + lower + " ms exceeds upper bound " + upper + " ms");
    }
    this.lower = lower;
    this.upper = upper;
    this.supplier = supplier;
  }

  @Override
  public void open(OperatorContext<O> ctx) throws Exception {
    this.ctx = ctx;
    Codec<Object> elements = ctx.codec(Object.class);
    Codec<byte[]> bytes = ctx.codec(byte[].class);
    NamespacedState state = ctx.namespacedState();
    buffers[0] = state.list("interval-join.left", elements);
    buffers[1] = state.list("interval-join.right", elements);
    indexes[0] = state.value("interval-join.left.index", bytes);
    indexes[1] = state.value("interval-join.right.index", bytes);
    fn = supplier.get();
    if (fn == null) {
      throw new IllegalStateException("the function supplier returned null");
    }
    fn.open();
  }

  @Override
  @SuppressWarnings("unchecked")
  public void process(Object value, long timestamp, int input) throws Exception {
    WindowJoinOperator.requireTimestamp(ctx, timestamp);
    long watermark = ctx.currentWatermark();
    if (timestamp <= watermark) {
      ctx.lateRecordDropped();
      return;
    }
    int side = input == 0 ? 0 : 1;
    int other = 1 - side;
    // Range of the other side's timestamps this record matches.
    long from = side == 0 ? plus(timestamp, lower) : minus(timestamp, upper);
    long to = side == 0 ? plus(timestamp, upper) : minus(timestamp, lower);
    byte[] index = indexes[other].get(NO_NAMESPACE);
    if (index != null) {
      for (int i = SortedLongs.ceiling(index, from); i < SortedLongs.size(index); i++) {
        long t = SortedLongs.get(index, i);
        if (t > to) {
          break;
        }
        for (Object match : buffers[other].get(SortedLongs.bytes(t))) {
          if (side == 0) {
            join((A) value, timestamp, (B) match, t);
          } else {
            join((A) match, t, (B) value, timestamp);
          }
        }
      }
    }
    long cleanup = side == 0 ? plus(timestamp, upper) : minus(timestamp, lower);
    if (cleanup > watermark) {
      buffers[side].add(SortedLongs.bytes(timestamp), value);
      indexes[side].put(
          NO_NAMESPACE, SortedLongs.insert(indexes[side].get(NO_NAMESPACE), timestamp));
      ctx.timers().registerEventTimeTimer(cleanup, timerNamespace(side, timestamp));
    }
  }

  private void join(A a, long aTs, B b, long bTs) throws Exception {
    leftTs = aTs;
    rightTs = bTs;
    fn.processElement(a, b, context, collector);
  }

  @Override
  public void onTimer(long timestamp, byte[] namespace, TimeDomain domain) {
    if (domain != TimeDomain.EVENT_TIME || namespace.length != 9) {
      return;
    }
    int side = namespace[0];
    long ts = ByteBuffer.wrap(namespace, 1, 8).getLong();
    buffers[side].clear(SortedLongs.bytes(ts));
    byte[] rest = SortedLongs.remove(indexes[side].get(NO_NAMESPACE), ts);
    indexes[side].put(NO_NAMESPACE, rest.length == 0 ? null : rest);
  }

  @Override
  public void close() throws Exception {
    if (fn != null) {
      fn.close();
    }
  }

  private static byte[] timerNamespace(int side, long timestamp) {
    return ByteBuffer.allocate(9).put((byte) side).putLong(timestamp).array();
  }

  /** {@code a + b}, saturating at the ends of {@code long}. */
  static long plus(long a, long b) {
    long r = a + b;
    if (((a ^ r) & (b ^ r)) < 0) {
      return b > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
    }
    return r;
  }

  /** {@code a - b}, saturating at the ends of {@code long}. */
  static long minus(long a, long b) {
    long r = a - b;
    if (((a ^ b) & (a ^ r)) < 0) {
      return b < 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
    }
    return r;
  }

  /**
   * A sorted set of longs as a byte array of big-endian 8-byte entries: searched in place, so a
   * probe decodes only the entries in range.
   */
  static final class SortedLongs {
    private SortedLongs() {}

    static int size(byte[] set) {
      return set == null ? 0 : set.length / 8;
    }

    static long get(byte[] set, int i) {
      return ByteBuffer.wrap(set).getLong(i * 8);
    }

    /** Index of the first entry {@code >= value} ({@link #size} if none). */
    static int ceiling(byte[] set, long value) {
      int lo = 0;
      int hi = size(set);
      while (lo < hi) {
        int mid = (lo + hi) >>> 1;
        if (get(set, mid) < value) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      return lo;
    }

    /** The set with {@code value} added (the same array if it was there). */
    static byte[] insert(byte[] set, long value) {
      int i = ceiling(set, value);
      int n = size(set);
      if (i < n && get(set, i) == value) {
        return set;
      }
      byte[] out = new byte[(n + 1) * 8];
      if (set != null) {
        System.arraycopy(set, 0, out, 0, i * 8);
        System.arraycopy(set, i * 8, out, (i + 1) * 8, (n - i) * 8);
      }
      ByteBuffer.wrap(out).putLong(i * 8, value);
      return out;
    }

    /** The set without {@code value}. */
    static byte[] remove(byte[] set, long value) {
      int i = ceiling(set, value);
      int n = size(set);
      if (i == n || get(set, i) != value) {
        return set == null ? new byte[0] : set;
      }
      byte[] out = new byte[(n - 1) * 8];
      System.arraycopy(set, 0, out, 0, i * 8);
      System.arraycopy(set, (i + 1) * 8, out, i * 8, (n - i - 1) * 8);
      return out;
    }

    /** {@code value} as 8 big-endian bytes (a namespace). */
    static byte[] bytes(long value) {
      return ByteBuffer.allocate(8).putLong(value).array();
    }
  }
}
