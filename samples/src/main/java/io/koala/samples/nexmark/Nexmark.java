package io.koala.samples.nexmark;

import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.Stage;
import io.koala.function.Collector;

/**
 * What the Nexmark queries share: registering the event records, and picking one kind of event out
 * of the stream of all three. Each query class ({@link Q1} … {@link Q11}) adds its operators to a
 * {@code Stage<NexmarkEvent>}, names them after the name it is given, and registers its own output
 * records.
 *
 * <pre>{@code
 * DataflowBuilder b = Dataflow.builder("nexmark").parallelism(2);
 * Nexmark.registerTypes(b);
 * Q5.registerTypes(b);
 * Stage<NexmarkEvent> events = b.source(
 *     SourceSpec.generator("events", gen).count(n).eventTime(NexmarkEvent::dateTime),
 *     WatermarkStrategy.monotonousTimestamps());
 * Q5.hotItems(events, "q5").sink(SinkSpec.collecting("hot"));
 * }</pre>
 */
public final class Nexmark {
  private Nexmark() {}

  /** Registers the event records: persons, auctions and bids. */
  public static DataflowBuilder registerTypes(DataflowBuilder b) {
    return b.registerTypes(Person.class, Auction.class, Bid.class);
  }

  /** The persons of {@code events}, through the operator {@code name}. */
  public static Stage<Person> persons(Stage<NexmarkEvent> events, String name) {
    return events.flatMap(
        name,
        (NexmarkEvent e, Collector<Person> out) -> {
          if (e instanceof Person p) {
            out.collect(p);
          }
        });
  }

  /** The auctions of {@code events}, through the operator {@code name}. */
  public static Stage<Auction> auctions(Stage<NexmarkEvent> events, String name) {
    return events.flatMap(
        name,
        (NexmarkEvent e, Collector<Auction> out) -> {
          if (e instanceof Auction a) {
            out.collect(a);
          }
        });
  }

  /** The bids of {@code events}, through the operator {@code name}. */
  public static Stage<Bid> bids(Stage<NexmarkEvent> events, String name) {
    return events.flatMap(
        name,
        (NexmarkEvent e, Collector<Bid> out) -> {
          if (e instanceof Bid b) {
            out.collect(b);
          }
        });
  }
}
