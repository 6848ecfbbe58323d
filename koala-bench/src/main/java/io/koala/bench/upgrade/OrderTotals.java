package io.koala.bench.upgrade;

import io.koala.connector.RateSchedule;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.Stage;

/**
 * The two versions of the upgrade experiment's job: running totals of orders per customer.
 *
 * <p>Version 1 keeps a {@link TotalsV1} per customer (count, sum, last region) and also counts
 * orders per region in a second stateful operator. Version 2 keeps a {@link TotalsV2} (count, sum,
 * largest amount: a field added, the last region removed), validates orders in a stateless stage
 * added before the keyBy, no longer counts per region, and runs the totals on five tasks instead of
 * two. Both emit a {@link Total} per order to the exactly-once sink {@code totals-out}.
 */
public final class OrderTotals {
  /** The sink of both versions. */
  public static final String SINK = "totals-out";

  /** The stateful operator version 2 drops. */
  public static final String REGION_COUNTS = "region-counts";

  private static final String[] REGIONS = {"north", "south", "east", "west"};

  private OrderTotals() {}

  /** An order. */
  public record Order(long customer, String region, long amount) {}

  /** What both versions emit for an order: the customer's totals after it. */
  public record Total(long customer, long count, long sum) {}

  /** Order {@code i} of the input (the same in both versions and in the reference). */
  public static Order order(long i, int customers) {
    long h = (i * 0x9E3779B97F4A7C15L) >>> 17;
    return new Order(h % customers, REGIONS[(int) (i % REGIONS.length)], 1 + (i * 31) % 100);
  }

  /** Version 1 of the job, with version 1 of the state class. */
  public static Dataflow v1(UpgradeWorkload w, StateClassVersions classes) {
    DataflowBuilder b = Dataflow.builder("order-totals").parallelism(2);
    b.registerTypes(Order.class, Total.class, classes.totals());
    Stage<Order> orders = orders(b, w);
    orders
        .keyBy(Order::customer, Long.class)
        .process("totals", classes.function())
        .sink(SinkSpec.collecting(SINK));
    orders
        .keyBy(Order::region, String.class)
        .count(REGION_COUNTS)
        .sink(SinkSpec.discarding("region-out"));
    return b.build();
  }

  /** Version 2 of the job, with version 2 of the state class. */
  public static Dataflow v2(UpgradeWorkload w, StateClassVersions classes) {
    DataflowBuilder b = Dataflow.builder("order-totals-v2").parallelism(w.v2Parallelism());
    b.registerTypes(Order.class, Total.class, classes.totals());
    orders(b, w)
        .filter("valid", o -> o.amount() > 0)
        .keyBy(Order::customer, Long.class)
        .process("totals", classes.function())
        .sink(SinkSpec.collecting(SINK));
    return b.build();
  }

  private static Stage<Order> orders(DataflowBuilder b, UpgradeWorkload w) {
    int customers = w.customers();
    return b.source(
        SourceSpec.generator("orders", (i, seed) -> order(i, customers))
            .partitions(2)
            .count(w.records())
            .rate(RateSchedule.constant(w.rate())));
  }
}
