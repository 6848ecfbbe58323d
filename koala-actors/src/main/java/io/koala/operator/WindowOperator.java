package io.koala.operator;

import io.koala.KoalaException;
import io.koala.function.AggregateFunction;
import io.koala.function.Collector;
import io.koala.function.OutputTag;
import io.koala.function.ReduceFunction;
import io.koala.state.Codec;
import io.koala.state.TimeDomain;
import io.koala.state.ValueState;
import io.koala.window.ProcessWindowFunction;
import io.koala.window.TimeWindow;
import io.koala.window.WindowAssigner;
import io.koala.window.WindowResult;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Keyed event-time windows with Flink's default event-time trigger: a window fires once, when the
 * watermark reaches its {@link TimeWindow#maxTimestamp()}, and again for every record that arrives
 * later but within the allowed lateness; its state is purged when the watermark passes {@code
 * maxTimestamp + allowedLateness}. A record that is too late for every window it belongs to goes to
 * the late-data side output, or is dropped and counted ({@link OperatorContext#lateRecordDropped}).
 *
 * <p>Everything lives in the task's store under the key, never on the heap between records: the
 * contents of each window (state {@value #CONTENTS}, namespace {@link TimeWindow#toBytes()}), a
 * key's session windows (state {@value #SESSIONS}), and the timers, whose namespace is the window's
 * 16 bytes followed by a marker ({@link #FIRE} or {@link #CLEANUP}). So a key's windows move with
 * the key.
 *
 * <p>What a window keeps and emits is a {@link Contents}: the reduced value, the accumulator of an
 * aggregate, or every record for a {@link ProcessWindowFunction}.
 */
public final class WindowOperator<K, I, O> implements Operator<I, O> {
  /** State holding each window's contents, namespaced by window. */
  static final String CONTENTS = "window.contents";

  /** State holding a key's session windows (merging assigners only). */
  static final String SESSIONS = "window.sessions";

  /** Timer marker: the window fires. */
  static final byte FIRE = 0;

  /** Timer marker: the window's allowed lateness is over; its state goes. */
  static final byte CLEANUP = 1;

  private final String name;
  private final WindowAssigner assigner;
  private final long lateness;
  private final OutputTag<I> lateData;
  private final Contents<K, I, O> contents;

  private OperatorContext<O> ctx;
  private InternalTimers timers;
  private ValueState<List<TimeWindow>> sessions;
  private Output<I> lateOutput;

  private WindowOperator(
      String name,
      WindowAssigner assigner,
      long allowedLatenessMillis,
      OutputTag<I> lateData,
      Contents<K, I, O> contents) {
    this.name = Objects.requireNonNull(name, "name");
    this.assigner = Objects.requireNonNull(assigner, "window assigner");
    if (allowedLatenessMillis < 0) {
      throw new IllegalArgumentException(
          "allowed lateness must not be negative, got " + allowedLatenessMillis + " ms");
    }
    this.lateness = allowedLatenessMillis;
    this.lateData = lateData;
    this.contents = contents;
  }

  /**
   * Windows reduced with {@code fn}; emits {@code WindowResult(key, start, end, reduced)}.
   *
   * @param name the operator's name, for error messages
   * @param lateData the late records' side output, or {@code null} to drop and count them
   */
  public static <K, T> WindowOperator<K, T, WindowResult<K, T>> reduce(
      String name,
      WindowAssigner assigner,
      long allowedLatenessMillis,
      OutputTag<T> lateData,
      ReduceFunction<T> fn) {
    return new WindowOperator<>(
        name, assigner, allowedLatenessMillis, lateData, new Reduced<>(name, fn));
  }

  /**
   * Windows aggregated incrementally with {@code fn} (only the accumulator is kept); emits {@code
   * WindowResult(key, start, end, result)}. Session windows need {@link AggregateFunction#merge}.
   */
  public static <K, T, A, R> WindowOperator<K, T, WindowResult<K, R>> aggregate(
      String name,
      WindowAssigner assigner,
      long allowedLatenessMillis,
      OutputTag<T> lateData,
      AggregateFunction<T, A, R> fn) {
    return new WindowOperator<>(
        name, assigner, allowedLatenessMillis, lateData, new Aggregated<>(fn));
  }

  /** Windows keeping every record, given to a {@link ProcessWindowFunction} when they fire. */
  public static <K, T, R> WindowOperator<K, T, R> process(
      String name,
      WindowAssigner assigner,
      long allowedLatenessMillis,
      OutputTag<T> lateData,
      Supplier<? extends ProcessWindowFunction<K, T, R>> fn) {
    return new WindowOperator<>(
        name, assigner, allowedLatenessMillis, lateData, new Processed<>(fn));
  }

  /**
   * Whether {@code fn} implements {@link AggregateFunction#merge}, as session windows need: some
   * class or interface other than {@link AggregateFunction} declares it.
   */
  public static boolean implementsMerge(AggregateFunction<?, ?, ?> fn) {
    try {
      return fn.getClass().getMethod("merge", Object.class, Object.class).getDeclaringClass()
          != AggregateFunction.class;
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException("AggregateFunction.merge is missing", e);
    }
  }

  @Override
  public void open(OperatorContext<O> ctx) throws Exception {
    this.ctx = ctx;
    this.timers = ctx.timers();
    if (assigner.isMerging()) {
      sessions = ctx.keyedState().valueState(SESSIONS, SessionWindows.CODEC);
    }
    if (lateData != null) {
      lateOutput = ctx.sideOutput(lateData);
    }
    contents.open(ctx);
  }

  @Override
  public void process(I value, long timestamp, int input) throws Exception {
    if (timestamp == Long.MIN_VALUE) {
      throw new KoalaException(
          "window operator '"
              + name
              + "' received a record without an event timestamp: give the source timestamps"
              + " (CollectionSource.timestamps(...), GeneratorSource.eventTime(...)) and a"
              + " WatermarkStrategy (DataflowBuilder.source(spec, strategy))");
    }
    long watermark = ctx.currentWatermark();
    if (assigner.isMerging()) {
      processSession(value, timestamp, watermark);
      return;
    }
    boolean accepted = false;
    for (TimeWindow w : assigner.assign(timestamp)) {
      if (isLate(w, lateness, watermark)) {
        continue;
      }
      accepted = true;
      byte[] ns = w.toBytes();
      boolean fresh = contents.add(ns, value);
      added(w, ns, fresh, watermark);
    }
    if (!accepted) {
      late(value, timestamp);
    }
  }

  private void processSession(I value, long timestamp, long watermark) throws Exception {
    List<TimeWindow> current = sessions.value();
    SessionWindows.Merge m =
        SessionWindows.add(
            current == null ? List.of() : current, assigner.assign(timestamp).get(0));
    TimeWindow w = m.window();
    if (isLate(w, lateness, watermark)) {
      // Only a window that absorbs no session can be late: every session still kept is not.
      late(value, timestamp);
      return;
    }
    byte[] ns = w.toBytes();
    boolean fresh = !m.unchanged();
    if (fresh) {
      if (!m.merged().isEmpty()) {
        List<byte[]> sources = new ArrayList<>(m.merged().size());
        for (TimeWindow s : m.merged()) {
          sources.add(s.toBytes());
          deleteTimers(s);
        }
        contents.merge(ns, sources);
      }
      sessions.update(m.sessions());
    }
    contents.add(ns, value);
    added(w, ns, fresh, watermark);
  }

  /**
   * A record was added to {@code w}. A window the watermark has passed (a late record within the
   * allowed lateness) fires at once with the updated contents; a new window registers its timers.
   */
  private void added(TimeWindow w, byte[] ns, boolean fresh, long watermark) throws Exception {
    if (w.maxTimestamp() <= watermark) {
      fire(w, ns);
    } else if (fresh) {
      timers.registerEventTimeTimer(w.maxTimestamp(), timerNamespace(w, FIRE));
    }
    if (fresh && lateness > 0) {
      timers.registerEventTimeTimer(cleanupTime(w, lateness), timerNamespace(w, CLEANUP));
    }
  }

  private void deleteTimers(TimeWindow w) {
    timers.deleteEventTimeTimer(w.maxTimestamp(), timerNamespace(w, FIRE));
    if (lateness > 0) {
      timers.deleteEventTimeTimer(cleanupTime(w, lateness), timerNamespace(w, CLEANUP));
    }
  }

  private void late(I value, long timestamp) {
    if (lateOutput != null) {
      lateOutput.emit(value, timestamp);
    } else {
      ctx.lateRecordDropped();
    }
  }

  @Override
  public void onTimer(long timestamp, byte[] namespace, TimeDomain domain) throws Exception {
    if (domain != TimeDomain.EVENT_TIME || namespace.length != 17) {
      throw new IllegalStateException(
          "window operator '" + name + "': unexpected " + domain + " timer at " + timestamp);
    }
    byte[] ns = Arrays.copyOf(namespace, 16);
    TimeWindow w = TimeWindow.fromBytes(ns);
    List<TimeWindow> current = null;
    if (assigner.isMerging()) {
      current = sessions.value();
      if (current == null || !current.contains(w)) {
        return; // merged into a larger session since (its timers are deleted then; defensive)
      }
    }
    if (namespace[16] == FIRE) {
      fire(w, ns);
      if (lateness == 0) {
        purge(w, ns, current);
      }
    } else {
      purge(w, ns, current);
    }
  }

  private void fire(TimeWindow w, byte[] ns) throws Exception {
    @SuppressWarnings("unchecked")
    K key = (K) ctx.currentKey();
    contents.emit(key, w, ns, ctx.output());
  }

  private void purge(TimeWindow w, byte[] ns, List<TimeWindow> current) {
    contents.clear(ns);
    if (current != null) {
      List<TimeWindow> rest = new ArrayList<>(current);
      rest.remove(w);
      sessions.update(rest.isEmpty() ? null : rest);
    }
  }

  @Override
  public void close() throws Exception {
    contents.close();
  }

  // ---------------------------------------------------------------- pure helpers

  /** Whether {@code w} is past its allowed lateness at {@code watermark}: it takes no records. */
  static boolean isLate(TimeWindow w, long allowedLateness, long watermark) {
    return cleanupTime(w, allowedLateness) <= watermark;
  }

  /** When {@code w}'s state goes: {@code maxTimestamp + allowedLateness}, saturating. */
  static long cleanupTime(TimeWindow w, long allowedLateness) {
    long t = w.maxTimestamp() + allowedLateness;
    return t < w.maxTimestamp() ? Long.MAX_VALUE : t;
  }

  /** A timer's namespace: the window's 16 bytes, then {@code marker}. */
  static byte[] timerNamespace(TimeWindow w, byte marker) {
    byte[] ns = Arrays.copyOf(w.toBytes(), 17);
    ns[16] = marker;
    return ns;
  }

  // ---------------------------------------------------------------- window contents

  /** What a window keeps in state and what it emits when it fires. */
  private abstract static class Contents<K, I, O> {
    abstract void open(OperatorContext<O> ctx) throws Exception;

    /**
     * Adds {@code value} to the window stored under {@code ns}.
     *
     * @return whether the window had no contents before
     */
    abstract boolean add(byte[] ns, I value) throws Exception;

    /**
     * Combines the contents of {@code sources} (earliest first) into {@code target}; clears them.
     */
    abstract void merge(byte[] target, List<byte[]> sources) throws Exception;

    /** Emits the window's result, if it has contents, with the window's max timestamp. */
    abstract void emit(K key, TimeWindow w, byte[] ns, Output<O> out) throws Exception;

    abstract void clear(byte[] ns);

    void close() throws Exception {}
  }

  /** The reduced value of each window. */
  private static final class Reduced<K, T> extends Contents<K, T, WindowResult<K, T>> {
    private final String name;
    private final ReduceFunction<T> fn;
    private NamespacedState.Value<T> reduced;

    Reduced(String name, ReduceFunction<T> fn) {
      this.name = name;
      this.fn = Objects.requireNonNull(fn, "function");
    }

    @Override
    @SuppressWarnings("unchecked")
    void open(OperatorContext<WindowResult<K, T>> ctx) {
      Codec<T> codec = (Codec<T>) ctx.codec(Object.class);
      reduced = ctx.namespacedState().value(CONTENTS, codec);
    }

    @Override
    boolean add(byte[] ns, T value) throws Exception {
      T previous = reduced.get(ns);
      reduced.put(ns, previous == null ? value : reduce(previous, value));
      return previous == null;
    }

    private T reduce(T a, T b) throws Exception {
      T r = fn.reduce(a, b);
      if (r == null) {
        throw new NullPointerException("the reduce function of '" + name + "' returned null");
      }
      return r;
    }

    @Override
    void merge(byte[] target, List<byte[]> sources) throws Exception {
      T acc = null;
      for (byte[] s : sources) {
        T v = reduced.get(s);
        if (v != null) {
          acc = acc == null ? v : reduce(acc, v);
        }
        reduced.clear(s);
      }
      reduced.put(target, acc);
    }

    @Override
    void emit(K key, TimeWindow w, byte[] ns, Output<WindowResult<K, T>> out) {
      T v = reduced.get(ns);
      if (v != null) {
        out.emit(new WindowResult<>(key, w.start(), w.end(), v), w.maxTimestamp());
      }
    }

    @Override
    void clear(byte[] ns) {
      reduced.clear(ns);
    }
  }

  /** The accumulator of each window. */
  private static final class Aggregated<K, T, A, R> extends Contents<K, T, WindowResult<K, R>> {
    private final AggregateFunction<T, A, R> fn;
    private NamespacedState.Value<A> accumulators;

    Aggregated(AggregateFunction<T, A, R> fn) {
      this.fn = Objects.requireNonNull(fn, "function");
    }

    @Override
    @SuppressWarnings("unchecked")
    void open(OperatorContext<WindowResult<K, R>> ctx) {
      Codec<A> codec = (Codec<A>) ctx.codec(Object.class);
      accumulators = ctx.namespacedState().value(CONTENTS, codec);
    }

    @Override
    boolean add(byte[] ns, T value) throws Exception {
      A acc = accumulators.get(ns);
      accumulators.put(ns, fn.add(value, acc == null ? fn.createAccumulator() : acc));
      return acc == null;
    }

    @Override
    void merge(byte[] target, List<byte[]> sources) throws Exception {
      A acc = null;
      for (byte[] s : sources) {
        A a = accumulators.get(s);
        if (a != null) {
          acc = acc == null ? a : fn.merge(acc, a);
        }
        accumulators.clear(s);
      }
      accumulators.put(target, acc);
    }

    @Override
    void emit(K key, TimeWindow w, byte[] ns, Output<WindowResult<K, R>> out) throws Exception {
      A acc = accumulators.get(ns);
      if (acc != null) {
        out.emit(new WindowResult<>(key, w.start(), w.end(), fn.result(acc)), w.maxTimestamp());
      }
    }

    @Override
    void clear(byte[] ns) {
      accumulators.clear(ns);
    }
  }

  /** Every record of each window, for a {@link ProcessWindowFunction}. */
  private static final class Processed<K, T, R> extends Contents<K, T, R> {
    private final Supplier<? extends ProcessWindowFunction<K, T, R>> supplier;
    private ProcessWindowFunction<K, T, R> fn;
    private NamespacedState.Appendable<T> elements;
    private Output<R> out;
    private long timestamp;
    private final Collector<R> collector = value -> out.emit(value, timestamp);

    Processed(Supplier<? extends ProcessWindowFunction<K, T, R>> supplier) {
      this.supplier = Objects.requireNonNull(supplier, "function supplier");
    }

    @Override
    @SuppressWarnings("unchecked")
    void open(OperatorContext<R> ctx) throws Exception {
      Codec<T> codec = (Codec<T>) ctx.codec(Object.class);
      elements = ctx.namespacedState().list(CONTENTS, codec);
      fn = supplier.get();
      if (fn == null) {
        throw new IllegalStateException("the function supplier returned null");
      }
      fn.open(ctx.keyedState());
    }

    @Override
    boolean add(byte[] ns, T value) {
      List<T> list = elements.get(ns);
      boolean fresh = list.isEmpty();
      list.add(value);
      elements.put(ns, list);
      return fresh;
    }

    @Override
    void merge(byte[] target, List<byte[]> sources) {
      List<T> all = new ArrayList<>();
      for (byte[] s : sources) {
        all.addAll(elements.get(s));
        elements.clear(s);
      }
      elements.put(target, all);
    }

    @Override
    void emit(K key, TimeWindow w, byte[] ns, Output<R> out) throws Exception {
      List<T> list = elements.get(ns);
      if (!list.isEmpty()) {
        this.out = out;
        this.timestamp = w.maxTimestamp();
        fn.process(key, w, list, collector);
      }
    }

    @Override
    void clear(byte[] ns) {
      elements.clear(ns);
    }

    @Override
    void close() throws Exception {
      if (fn != null) {
        fn.close();
      }
    }
  }
}
