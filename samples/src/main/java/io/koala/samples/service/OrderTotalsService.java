package io.koala.samples.service;

import io.koala.connector.IngestSource;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.runtime.Ingest;
import io.koala.runtime.JobHandle;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.KoalaRuntime;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A service that embeds Koala: its request threads push orders into a running job ({@link Ingest}),
 * the job keeps each customer's running total in keyed state, and a callback sink updates the
 * service's own view of the totals, which its requests read. Checkpoints every 500 ms make a crash
 * inside the job lose and duplicate nothing. Run it with {@code java ... OrderTotalsService
 * [orders]}.
 */
public final class OrderTotalsService implements AutoCloseable {
  /** One order: who bought, for how many cents. */
  public record Order(String customer, long cents) {}

  private final KoalaRuntime runtime;
  private final JobHandle job;
  private final Ingest<Order> orders;
  private final Map<String, Long> totals = new ConcurrentHashMap<>();

  /** Starts the runtime and the job, with checkpoints under {@code dataDir}. */
  public OrderTotalsService(Path dataDir) {
    IngestSource<Order> in = SourceSpec.ingest("orders", 10_000);
    DataflowBuilder b = Dataflow.builder("order-totals").parallelism(2).registerTypes(Order.class);
    b.source(in)
        .keyBy(Order::customer)
        .reduce("totals", (a, o) -> new Order(a.customer(), a.cents() + o.cents()))
        .sink(
            SinkSpec.forEach("view", (Order total) -> totals.put(total.customer(), total.cents())));
    runtime =
        KoalaRuntime.embedded(
            KoalaConfig.load().withDataDir(dataDir).withCheckpointInterval(Duration.ofMillis(500)));
    job = runtime.submit(b.build());
    orders = job.ingest(in);
  }

  /** A request thread's call: waits while the job is behind. */
  public void order(String customer, long cents) throws InterruptedException {
    orders.put(new Order(customer, cents));
  }

  /** A customer's total as the job has counted it so far (null: no order seen yet). */
  public Long total(String customer) {
    return totals.get(customer);
  }

  /** How far the orders are safe in a completed checkpoint (order numbers from 1). */
  public long committed() {
    return orders.committed();
  }

  /** Stops taking orders and waits until the job has counted every one. */
  @Override
  public void close() {
    orders.complete();
    job.await(Duration.ofSeconds(60));
    runtime.close();
  }

  /**
   * What the sample's requests do: {@code threads} threads place orders {@code 0..n-1}, order
   * {@code i} by {@code "customer-" + i % customers} for {@code 100 + i % 7} cents.
   */
  public static void placeOrders(OrderTotalsService service, int n, int customers, int threads)
      throws InterruptedException {
    Thread[] requests = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      int first = t;
      requests[t] =
          new Thread(
              () -> {
                try {
                  for (int i = first; i < n; i += threads) {
                    service.order("customer-" + i % customers, 100 + i % 7);
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              },
              "request-" + t);
      requests[t].start();
    }
    for (Thread t : requests) {
      t.join();
    }
  }

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
    OrderTotalsService service = new OrderTotalsService(Files.createTempDirectory("order-totals"));
    placeOrders(service, n, 100, 4);
    service.close();
    System.out.printf(
        "%,d orders; customer-0 spent %,d cents; %,d orders were in a completed checkpoint%n",
        n, service.total("customer-0"), service.committed());
  }
}
