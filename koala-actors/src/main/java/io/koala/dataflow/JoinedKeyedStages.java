package io.koala.dataflow;

import io.koala.function.JoinFunction;
import io.koala.operator.WindowJoinOperator;
import io.koala.window.TimeWindow;
import io.koala.window.WindowAssigner;
import java.util.Objects;

/**
 * Two keyed stages of one dataflow to be joined by window ({@link KeyedStage#join}): choose the
 * windows with {@link #window}, then the join function with {@link WithWindow#apply}. The keys of
 * both stages must be of the same type (they meet when their serialized bytes are equal).
 *
 * <pre>{@code
 * // Nexmark Q8: persons who opened an auction in the 10 s window they registered in.
 * Stage<String> q8 = persons.keyBy(Person::id)
 *     .join(auctions.keyBy(Auction::seller))
 *     .window(WindowAssigner.tumbling(Duration.ofSeconds(10)))
 *     .apply("q8", (p, a) -> p.name());
 * }</pre>
 */
public final class JoinedKeyedStages<K, A, B> {
  private final KeyedStage<K, A> first;
  private final KeyedStage<K, B> second;

  JoinedKeyedStages(KeyedStage<K, A> first, KeyedStage<K, B> second) {
    this.first = first;
    this.second = ConnectedKeyedStages.checkSameDataflow(first, second, "join");
  }

  /** Joins the records of a key that fall in the same window of {@code assigner}. */
  public WithWindow<K, A, B> window(WindowAssigner assigner) {
    return new WithWindow<>(first, second, Objects.requireNonNull(assigner, "window assigner"));
  }

  /**
   * A window join waiting for its function. Semantics: for every window of a key, every pair {@code
   * (a, b)} of that key whose timestamps both fall in the window is joined once, when the window
   * fires (the watermark, the minimum over both inputs, reaches {@link TimeWindow#maxTimestamp()});
   * the results carry that timestamp. With sliding windows a pair is joined once per window it
   * shares. Session windows are formed over the records of both stages together (a record of either
   * side extends or bridges a session). A record whose every window has already fired is dropped
   * and counted in the task's late records. Records need event timestamps: the job fails on a
   * record without one.
   */
  public static final class WithWindow<K, A, B> {
    private final KeyedStage<K, A> first;
    private final KeyedStage<K, B> second;
    private final WindowAssigner assigner;

    WithWindow(KeyedStage<K, A> first, KeyedStage<K, B> second, WindowAssigner assigner) {
      this.first = first;
      this.second = second;
      this.assigner = assigner;
    }

    /** Emits {@code fn.join(a, b)} for every pair of a key in each window. */
    public <O> Stage<O> apply(String name, JoinFunction<A, B, O> fn) {
      Objects.requireNonNull(fn, "join function");
      WindowAssigner windows = assigner;
      return ConnectedKeyedStages.addTwoInput(
          first, second, name, () -> new WindowJoinOperator<A, B, O>(windows, fn));
    }
  }
}
