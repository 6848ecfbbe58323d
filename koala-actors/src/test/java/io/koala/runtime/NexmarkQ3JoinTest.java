package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.Stage;
import io.koala.eventtime.WatermarkStrategy;
import io.koala.function.Collector;
import io.koala.function.KeyedCoProcessFunction;
import io.koala.job.JobStatus;
import io.koala.state.KeyedStateContext;
import io.koala.state.ListState;
import io.koala.state.ValueState;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Nexmark Q3 shaped: the unbounded keyed join of persons and auctions on seller, for persons in OR,
 * ID or CA and auctions of category 10, as a keyed co-process function (the way Flink's Nexmark
 * implements it). Auctions come from two sources: the second input is a union.
 */
class NexmarkQ3JoinTest {

  record Person(long id, String name, String city, String state, long ts) {}

  record Auction(long id, long seller, int category, long ts) {}

  record Q3Result(String name, String city, String state, long auction) {}

  /** Keeps the person; auctions of a seller not seen yet wait for it. */
  static final class JoinPersonsWithAuctions
      extends KeyedCoProcessFunction<Long, Person, Auction, Q3Result> {
    private ValueState<Person> person;
    private ListState<Auction> waiting;

    @Override
    public void open(KeyedStateContext ctx) {
      person = ctx.valueState("person", Person.class);
      waiting = ctx.listState("waiting", Auction.class);
    }

    @Override
    public void processElement1(Person p, Context<Long> ctx, Collector<Q3Result> out) {
      person.update(p);
      for (Auction a : waiting.get()) {
        out.collect(result(p, a));
      }
      waiting.clear();
    }

    @Override
    public void processElement2(Auction a, Context<Long> ctx, Collector<Q3Result> out) {
      Person p = person.value();
      if (p == null) {
        waiting.add(a);
      } else {
        out.collect(result(p, a));
      }
    }

    private static Q3Result result(Person p, Auction a) {
      return new Q3Result(p.name(), p.city(), p.state(), a.id());
    }
  }

  static final List<Person> PERSONS =
      List.of(
          new Person(1000, "Alice", "Portland", "OR", 1),
          new Person(1001, "Bob", "Seattle", "WA", 2),
          new Person(1002, "Carol", "Los Angeles", "CA", 3),
          new Person(1003, "Dave", "Boise", "ID", 50));
  static final List<Auction> EAST =
      List.of(
          new Auction(2000, 1000, 10, 5),
          new Auction(2002, 1002, 11, 7),
          new Auction(2004, 1003, 10, 9), // before its seller registers
          new Auction(2006, 9999, 10, 61)); // a seller who never registers
  static final List<Auction> WEST =
      List.of(
          new Auction(2001, 1001, 10, 6), // seller in WA
          new Auction(2003, 1002, 10, 8),
          new Auction(2005, 1000, 10, 60));

  @ParameterizedTest(name = "parallelism {0}")
  @ValueSource(ints = {1, 4})
  void q3JoinsPersonsAndAuctionsOnSeller(int parallelism) {
    DataflowBuilder b = Dataflow.builder("nexmark-q3").parallelism(parallelism);
    b.registerTypes(Person.class, Auction.class, Q3Result.class);
    WatermarkStrategy wm = WatermarkStrategy.boundedOutOfOrderness(Duration.ofMillis(10));
    Stage<Person> persons =
        b.source(SourceSpec.collection("persons", PERSONS).timestamps(Person::ts), wm)
            .filter("person-state", p -> Set.of("OR", "ID", "CA").contains(p.state()));
    Stage<Auction> auctions =
        b.source(SourceSpec.collection("auctions-east", EAST).timestamps(Auction::ts), wm)
            .union(
                b.source(SourceSpec.collection("auctions-west", WEST).timestamps(Auction::ts), wm))
            .filter("category-10", a -> a.category() == 10);
    persons
        .keyBy(Person::id)
        .connect(auctions.keyBy(Auction::seller))
        .process("q3", JoinPersonsWithAuctions::new)
        .sink(SinkSpec.collecting("out"));
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load())) {
      JobHandle job = runtime.submit(b.build());
      assertThat(job.await(Duration.ofSeconds(30))).isEqualTo(JobStatus.FINISHED);
      List<Q3Result> out = job.collected("out");
      assertThat(out)
          .containsExactlyInAnyOrder(
              new Q3Result("Alice", "Portland", "OR", 2000),
              new Q3Result("Alice", "Portland", "OR", 2005),
              new Q3Result("Carol", "Los Angeles", "CA", 2003),
              new Q3Result("Dave", "Boise", "ID", 2004));
      // The join is unbounded: three persons stay, and the auctions of sellers 1001 (filtered out:
      // WA) and 9999 (never registers) still wait, one list each.
      assertThat(job.metrics().stateEntries()).isEqualTo(5);
    }
  }
}
