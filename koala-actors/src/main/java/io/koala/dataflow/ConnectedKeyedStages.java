package io.koala.dataflow;

import io.koala.function.DataflowDefinitionException;
import io.koala.function.KeyedCoProcessFunction;
import io.koala.operator.KeyedCoProcessOperator;
import io.koala.operator.OperatorFactory;
import io.koala.plan.OperatorNode.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Two keyed stages of one dataflow, connected with {@link KeyedStage#connect}: the next operator
 * reads both, the first on its input 0 and the second on input 1, and sees every record of a key at
 * the same task, with one state and one set of timers per key shared by both inputs. The keys of
 * both stages must be of the same type: they meet when their serialized bytes are equal (a {@code
 * Long} 5 and an {@code Integer} 5 do not).
 *
 * <pre>{@code
 * Stage<String> out = persons.keyBy(Person::id)
 *     .connect(auctions.keyBy(Auction::seller))
 *     .process("sellers", SellerAuctions::new);
 * }</pre>
 */
public final class ConnectedKeyedStages<K, A, B> {
  private final KeyedStage<K, A> first;
  private final KeyedStage<K, B> second;

  ConnectedKeyedStages(KeyedStage<K, A> first, KeyedStage<K, B> second) {
    this.first = first;
    this.second = checkSameDataflow(first, second, "connect");
  }

  /**
   * Runs a keyed co-process function; {@code function} is called once per task for a fresh
   * instance.
   */
  public <O> Stage<O> process(
      String name, Supplier<? extends KeyedCoProcessFunction<K, A, B, O>> function) {
    Objects.requireNonNull(function, "function supplier");
    return addTwoInput(first, second, name, () -> new KeyedCoProcessOperator<K, A, B, O>(function));
  }

  /**
   * Adds an operator of the low-level SPI reading both stages (the first on input 0, the second on
   * input 1), with keyed state.
   */
  public <O> Stage<O> transform(String name, OperatorFactory<Object, O> factory) {
    Objects.requireNonNull(factory, "operator factory");
    return addTwoInput(first, second, name, factory);
  }

  /** Returns {@code second}; fails unless both stages belong to the same dataflow. */
  static <K, B> KeyedStage<K, B> checkSameDataflow(
      KeyedStage<K, ?> first, KeyedStage<K, B> second, String what) {
    Objects.requireNonNull(second, "other stage");
    if (first.builder() != second.builder()) {
      throw new DataflowDefinitionException(
          "cannot " + what + " stages of different dataflows: define both with the same builder");
    }
    return second;
  }

  /** Adds a two-input operator with keyed state: {@code first} on input 0, {@code second} on 1. */
  static <O> Stage<O> addTwoInput(
      KeyedStage<?, ?> first,
      KeyedStage<?, ?> second,
      String name,
      OperatorFactory<Object, O> factory) {
    List<DataflowBuilder.DraftInput> inputs = new ArrayList<>(first.inputs(0));
    inputs.addAll(second.inputs(1));
    return first.builder().addOperator(name, Kind.TRANSFORM, factory, true, inputs);
  }
}
