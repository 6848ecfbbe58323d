package io.koala.samples.nexmark;

import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.Stage;
import io.koala.function.Collector;
import io.koala.function.KeyedCoProcessFunction;
import io.koala.state.KeyedStateContext;
import io.koala.state.MapState;
import io.koala.state.ValueState;
import java.util.Set;

/**
 * Nexmark Q3, local item suggestion: for every auction of category {@value #CATEGORY} whose seller
 * lives in Oregon, Idaho or California, the seller's name, city and state with the auction id. An
 * unbounded keyed join of persons (keyed by id) with auctions (keyed by seller): each person's
 * record stays in the key's state for good, so the state grows with the persons, which makes Q3 a
 * reconfiguration target. An auction that arrives before its seller's person record (the two inputs
 * interleave in no fixed order) waits in the key's state until it comes; the output is the same set
 * of pairs whatever the order.
 *
 * <p>Persons of every state reach the join, which keeps them all and applies the state condition
 * itself: filtering them before the join (the usual plan) would leave the auctions of sellers from
 * other states waiting for good, as nothing would tell the join that their seller is known.
 */
public final class Q3 {
  /** The category whose auctions are joined. */
  public static final long CATEGORY = 10;

  /** The states whose persons are joined. */
  public static final Set<String> STATES = Set.of("OR", "ID", "CA");

  private Q3() {}

  /** What Q3 emits: a seller in one of {@link #STATES} and an auction of theirs. */
  public record LocalItem(String name, String city, String state, long auction) {}

  /** Registers the records Q3 emits. */
  public static DataflowBuilder registerTypes(DataflowBuilder b) {
    return b.registerTypes(LocalItem.class);
  }

  /**
   * Adds the query: operators {@code name + "-persons"}, {@code name + "-auctions"}, {@code name +
   * "-category"} and the join {@code name}, keyed by person id.
   */
  public static Stage<LocalItem> localItems(Stage<NexmarkEvent> events, String name) {
    Stage<Person> persons = Nexmark.persons(events, name + "-persons");
    Stage<Auction> auctions =
        Nexmark.auctions(events, name + "-auctions")
            .filter(name + "-category", a -> a.category() == CATEGORY);
    return persons
        .keyBy(Person::id)
        .connect(auctions.keyBy(Auction::seller))
        .process(name, Join::new);
  }

  /** Whether {@code p} lives in one of {@link #STATES}. */
  public static boolean selected(Person p) {
    return STATES.contains(p.state());
  }

  /** The join: the person in state, auctions (by id) waiting for it until it comes. */
  static final class Join extends KeyedCoProcessFunction<Long, Person, Auction, LocalItem> {
    private ValueState<Person> person;
    private MapState<Long, Auction> waiting;

    @Override
    public void open(KeyedStateContext ctx) {
      person = ctx.valueState("person", Person.class);
      waiting = ctx.mapState("waiting-auctions", Long.class, Auction.class);
    }

    @Override
    public void processElement1(Person p, Context<Long> ctx, Collector<LocalItem> out) {
      person.update(p);
      if (!waiting.isEmpty()) {
        if (selected(p)) {
          for (Auction a : waiting.entries().values()) {
            out.collect(item(p, a));
          }
        }
        waiting.clear();
      }
    }

    @Override
    public void processElement2(Auction a, Context<Long> ctx, Collector<LocalItem> out) {
      Person p = person.value();
      if (p == null) {
        waiting.put(a.id(), a);
      } else if (selected(p)) {
        out.collect(item(p, a));
      }
    }

    private static LocalItem item(Person p, Auction a) {
      return new LocalItem(p.name(), p.city(), p.state(), a.id());
    }
  }
}
