package io.koala.operator;

import java.util.Objects;

/**
 * Creates the operator instance of one task.
 *
 * <p>An operator that uses keyed state ({@link OperatorContext#keyedState()}, {@link
 * OperatorContext#currentKey()}, {@link OperatorContext#timers()} or {@link
 * OperatorContext#namespacedState()}) needs its input partitioned by key. Added after {@code
 * keyBy(...)} it always gets keyed state; added to a stage that is not keyed, declare it with
 * {@link #keyed} so that building the dataflow fails, naming the operator, instead of the first
 * record:
 *
 * <pre>{@code
 * stage.keyBy(Order::customer).transform("totals", OrderTotals::new);           // keyed state
 * stage.transform("totals", OperatorFactory.keyed(OrderTotals::new));           // build() fails
 * }</pre>
 */
@FunctionalInterface
public interface OperatorFactory<I, O> {
  Operator<I, O> create();

  /**
   * Whether the operators this creates use keyed state, so that their input must be keyed: false
   * unless the factory was declared with {@link #keyed}.
   */
  default boolean keyedState() {
    return false;
  }

  /** {@code factory}, declared as creating operators that use keyed state. */
  static <I, O> OperatorFactory<I, O> keyed(OperatorFactory<I, O> factory) {
    Objects.requireNonNull(factory, "operator factory");
    return new OperatorFactory<>() {
      @Override
      public Operator<I, O> create() {
        return factory.create();
      }

      @Override
      public boolean keyedState() {
        return true;
      }
    };
  }
}
