package io.koala.samples.service;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.koala.connector.IngestSource;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.Collector;
import io.koala.function.KeyedProcessFunction;
import io.koala.micrometer.KoalaMetrics;
import io.koala.runtime.Ingest;
import io.koala.runtime.JobHandle;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.KoalaRuntime;
import io.koala.runtime.StateQuery;
import io.koala.state.KeyedStateContext;
import io.koala.state.ValueState;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * A service that embeds Koala the way a Pekko service would: the runtime runs in the service's own
 * ActorSystem ({@link KoalaRuntime#embeddedIn}), the jobs' metrics join the service's own
 * Micrometer registry ({@link KoalaMetrics}), requests push orders into the running job ({@link
 * Ingest}) and read each customer's running total straight from the job's keyed state ({@link
 * JobHandle#query}), wherever it is. HTTP, on the JDK's server:
 *
 * <ul>
 *   <li>{@code POST /orders?customer=C&cents=N}: 202, {@code {"order": n}} (its number, from 1);
 *   <li>{@code GET /totals/<customer>}: 200 {@code {"customer": C, "cents": N}}, or 404;
 *   <li>{@code GET /metrics}: the service's registry, Koala's meters included, for Prometheus.
 * </ul>
 *
 * <p>Run it with {@code java ... OrderHttpService [port]}.
 */
public final class OrderHttpService implements AutoCloseable {
  private static final StateQuery<String, Optional<Long>> TOTAL =
      StateQuery.value("totals", "cents", String.class, Long.class);

  /** One order: who bought, for how many cents. */
  public record Order(String customer, long cents) {}

  /** Keeps each customer's running total in value state "cents". */
  static final class Totals extends KeyedProcessFunction<String, Order, Long> {
    private ValueState<Long> cents;

    @Override
    public void open(KeyedStateContext ctx) {
      cents = ctx.valueState("cents", Long.class);
    }

    @Override
    public void process(Order order, Context<String> ctx, Collector<Long> out) {
      Long before = cents.value();
      long now = (before == null ? 0 : before) + order.cents();
      cents.update(now);
      out.collect(now);
    }
  }

  private final ActorSystem<Void> system;
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final KoalaRuntime runtime;
  private final KoalaMetrics metrics;
  private final JobHandle job;
  private final Ingest<Order> orders;
  private final HttpServer http;

  /**
   * Starts the service on {@code port} (0: any free port), its job's state under {@code dataDir}.
   */
  public OrderHttpService(Path dataDir, int port) throws IOException {
    Config settings = ConfigFactory.load();
    KoalaConfig koala =
        KoalaConfig.from(settings)
            .withDataDir(dataDir)
            .withCheckpointInterval(Duration.ofSeconds(1));
    system =
        ActorSystem.create(Behaviors.empty(), "orders", KoalaRuntime.hostConfig(settings, koala));
    runtime = KoalaRuntime.embeddedIn(system, koala);
    metrics = KoalaMetrics.builder(runtime).pollInterval(Duration.ofSeconds(1)).build();
    metrics.bindTo(registry);
    IngestSource<Order> in = SourceSpec.ingest("orders", 10_000);
    DataflowBuilder b = Dataflow.builder("order-totals").parallelism(2).registerTypes(Order.class);
    b.source(in)
        .keyBy(Order::customer)
        .process("totals", Totals::new)
        .sink(SinkSpec.discarding("out"));
    job = runtime.submit(b.build());
    orders = job.ingest(in);
    http = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
    http.setExecutor(Executors.newFixedThreadPool(4));
    http.createContext("/", this::handle);
    http.start();
  }

  /** The port the service listens on. */
  public int port() {
    return http.getAddress().getPort();
  }

  /** The running job, for operators (rescale, checkpoint, ...). */
  public JobHandle job() {
    return job;
  }

  private void handle(HttpExchange x) throws IOException {
    try (x) {
      String path = x.getRequestURI().getPath();
      String method = x.getRequestMethod();
      if (method.equals("POST") && path.equals("/orders")) {
        Map<String, String> q = params(x.getRequestURI().getRawQuery());
        String customer = q.get("customer");
        long cents;
        try {
          cents = Long.parseLong(q.getOrDefault("cents", ""));
        } catch (NumberFormatException e) {
          reply(x, 400, "{\"error\":\"cents must be a whole number\"}");
          return;
        }
        if (customer == null || customer.isEmpty()) {
          reply(x, 400, "{\"error\":\"customer is missing\"}");
          return;
        }
        long n = orders.offer(new Order(customer, cents)).toCompletableFuture().join();
        reply(x, 202, "{\"order\":" + n + "}");
      } else if (method.equals("GET") && path.startsWith("/totals/")) {
        String customer = URLDecoder.decode(path.substring(8), StandardCharsets.UTF_8);
        Optional<Long> cents =
            job.query(TOTAL, customer).toCompletableFuture().get(10, TimeUnit.SECONDS);
        if (cents.isEmpty()) {
          reply(x, 404, "{\"error\":\"no order of " + json(customer) + " yet\"}");
        } else {
          reply(x, 200, "{\"customer\":\"" + json(customer) + "\",\"cents\":" + cents.get() + "}");
        }
      } else if (method.equals("GET") && path.equals("/metrics")) {
        metrics.refresh();
        reply(x, 200, registry.scrape());
      } else {
        reply(x, 404, "{\"error\":\"no such path: " + json(path) + "\"}");
      }
    } catch (Exception e) {
      reply(x, 503, "{\"error\":\"" + json(String.valueOf(e.getMessage())) + "\"}");
    }
  }

  private static Map<String, String> params(String query) {
    Map<String, String> out = new HashMap<>();
    if (query != null) {
      for (String pair : query.split("&")) {
        int eq = pair.indexOf('=');
        if (eq > 0) {
          out.put(
              URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
              URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
      }
    }
    return out;
  }

  private static String json(String s) {
    return s.replace("\\", "\\\\").replace("\"", "\\\"");
  }

  private static void reply(HttpExchange x, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    x.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
    x.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = x.getResponseBody()) {
      out.write(bytes);
    }
  }

  /** Stops serving, then the runtime, then the service's ActorSystem. */
  @Override
  public void close() {
    http.stop(0);
    metrics.close();
    runtime.close();
    registry.close();
    system.terminate();
  }

  public static void main(String[] args) throws Exception {
    int port = args.length > 0 ? Integer.parseInt(args[0]) : 8080;
    OrderHttpService service = new OrderHttpService(Files.createTempDirectory("orders"), port);
    Runtime.getRuntime().addShutdownHook(new Thread(service::close, "order-service-stop"));
    System.out.println("order service on http://127.0.0.1:" + service.port());
  }
}
