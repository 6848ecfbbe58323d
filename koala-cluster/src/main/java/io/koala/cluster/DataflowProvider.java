package io.koala.cluster;

import com.typesafe.config.Config;
import io.koala.dataflow.Dataflow;
import java.util.List;

/**
 * The dataflows an application's jar gives a node started with {@code ./koala node --config FILE
 * --dataflows JAR}: the node finds every implementation the jar lists in {@code
 * META-INF/services/io.koala.cluster.DataflowProvider} (one fully qualified class name a line, as
 * {@link java.util.ServiceLoader} reads it) and {@link KoalaCluster#define defines} each dataflow
 * they return; {@code --submit NAME} then runs one of them as a job from that node.
 *
 * <p>Every node that may host a job's tasks defines its dataflow, so every node is started with the
 * same jar and its providers must return the same dataflows (by name, with the same operators) on
 * every node. An implementation is a public class with a public no-argument constructor; the node
 * calls {@link #dataflows} once, at start, before it joins the cluster. The jar's classes are
 * loaded by a class loader whose parent holds Koala, which is also the node's thread context class
 * loader and its ActorSystem's class loader: the jar's record and state classes work like those of
 * an application that embeds Koala, and its {@code reference.conf}, when it has one, joins the
 * node's configuration.
 *
 * <pre>{@code
 * public final class OrderDataflows implements DataflowProvider {
 *   public List<Dataflow> dataflows(Config nodeConfig) {
 *     long customers = nodeConfig.getLong("orders.customers"); // a setting of the node file
 *     DataflowBuilder b = Dataflow.builder("order-totals").registerTypes(Order.class);
 *     b.source(SourceSpec.generator("orders", (i, seed) -> new Order(i % customers, 25L)))
 *         .keyBy(Order::customer)
 *         .reduce("totals", (a, o) -> new Order(a.customer(), a.cents() + o.cents()))
 *         .sink(SinkSpec.discarding("out"));
 *     return List.of(b.build());
 *   }
 * }
 * }</pre>
 *
 * with {@code record Order(long customer, long cents)}, the jar's {@code
 * META-INF/services/io.koala.cluster.DataflowProvider} holding the line {@code
 * com.example.OrderDataflows}, and on each node {@code ./koala node --config node.conf --dataflows
 * orders.jar} ({@code --submit order-totals} on one of them).
 */
public interface DataflowProvider {

  /**
   * The dataflows this node defines.
   *
   * @param nodeConfig the node's whole configuration: its file over the defaults, resolved, so that
   *     an application's own settings in the node file (say {@code orders.customers = 1000}) reach
   *     its dataflows
   * @return the dataflows, each with a name no other dataflow of the node has
   */
  List<Dataflow> dataflows(Config nodeConfig);
}
