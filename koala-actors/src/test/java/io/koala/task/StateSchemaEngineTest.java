package io.koala.task;

import static io.koala.task.FakeServices.batch;
import static io.koala.task.FakeServices.taskId;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.Collector;
import io.koala.function.KeyedProcessFunction;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.Deliver;
import io.koala.serialization.FieldType;
import io.koala.state.KeyedStateContext;
import io.koala.state.ValueState;
import io.koala.store.InMemoryStateStore;
import io.koala.store.ReadTxn;
import io.koala.store.WriteTxn;
import io.koala.task.FakeServices.Task;
import io.koala.task.state.StateDeclaration;
import io.koala.task.state.StateDeclarations;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A task opened on a restored store whose recorded state declaration its operator no longer reads
 * fails at open, naming the operator, the state and the problem, before it processes a record.
 */
class StateSchemaEngineTest {
  private static final ChannelSettings SETTINGS = new ChannelSettings(100, 1 << 20, 5, 8);

  record Totals(long amount, long count) {}

  /** Sums the lengths of a key's words into a {@link Totals}. */
  static final class Summing extends KeyedProcessFunction<String, String, String> {
    private ValueState<Totals> sum;

    @Override
    public void open(KeyedStateContext ctx) {
      sum = ctx.valueState("sum", Totals.class);
    }

    @Override
    public void process(String value, Context<String> ctx, Collector<String> out) {
      Totals t = sum.value();
      t = t == null ? new Totals(0, 0) : t;
      sum.update(new Totals(t.amount() + value.length(), t.count() + 1));
      out.collect(value);
    }
  }

  private final FakeServices services = new FakeServices();
  private final InMemoryStateStore store = new InMemoryStateStore();

  @AfterEach
  void close() {
    store.close();
  }

  private Task totals() {
    DataflowBuilder b = Dataflow.builder("schema");
    b.registerTypes(Totals.class);
    b.source(SourceSpec.collection("words", List.of("x")))
        .keyBy((String w) -> w)
        .process("totals", Summing::new)
        .sink(SinkSpec.collecting("out"));
    return services.task(b.build(), "totals", 0, SETTINGS, store);
  }

  /** Records a declaration in the store, as a restored snapshot of an earlier version holds it. */
  private void recorded(FieldType... fields) {
    try (WriteTxn txn = store.beginWrite()) {
      StateDeclarations.declare(
          txn,
          new StateDeclaration(
              "totals", "sum", "value", Totals.class.getName(), null, List.of(fields)));
      txn.commit();
    }
  }

  private List<StateDeclaration> declarations() {
    try (ReadTxn txn = store.beginRead()) {
      return StateDeclarations.all(txn);
    }
  }

  @Test
  void anIncompatibleRecordedDeclarationFailsTheTaskAtOpenNamingOperatorStateAndField() {
    recorded(new FieldType("amount", "java.lang.String"), new FieldType("count", "long"));
    Task t = totals();
    t.engine().start(0);
    assertThat(t.engine().status()).isEqualTo(TaskStatus.FAILED);
    assertThat(services.failures)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.operator()).isEqualTo("totals");
              assertThat(e.message())
                  .startsWith(
                      "operator 'totals' state 'sum': field 'amount' changed type from"
                          + " java.lang.String to long, which the stored state cannot be read"
                          + " as");
            });
    t.engine().onDeliver(new Deliver(t.inputFrom(taskId("words", 0)), 0, batch("a")));
    t.engine().onTimer(TaskTimer.FLUSH);
    assertThat(services.records(TaskEngine.CLIENT)).as("no record processed").isEmpty();
    assertThat(declarations().get(0).fields())
        .as("the recorded declaration stays")
        .contains(new FieldType("amount", "java.lang.String"));
  }

  @Test
  void aCompatibleRecordedDeclarationIsReplacedByTheNewOne() {
    recorded(new FieldType("amount", "int"), new FieldType("dropped", "java.lang.String"));
    Task t = totals();
    t.engine().start(0);
    t.engine().onDeliver(new Deliver(t.inputFrom(taskId("words", 0)), 0, batch("abc")));
    t.engine().onTimer(TaskTimer.FLUSH);
    assertThat(services.failures).isEmpty();
    assertThat(services.records(TaskEngine.CLIENT)).containsExactly("abc");
    assertThat(declarations())
        .singleElement()
        .extracting(StateDeclaration::fields)
        .isEqualTo(List.of(new FieldType("amount", "long"), new FieldType("count", "long")));
  }
}
