package io.koala.samples.nexmark;

import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.Stage;
import io.koala.function.Collector;
import io.koala.function.KeyedProcessFunction;
import io.koala.state.KeyedStateContext;
import io.koala.state.ValueState;
import io.koala.window.WindowAssigner;
import java.time.Duration;

/**
 * Nexmark Q8, monitor new users: the persons who opened an auction in the same tumbling window of
 * {@link #SIZE} in which they registered. A window join of persons (keyed by id) with auctions
 * (keyed by seller), then one record per person (a person registers once, so in one window; the
 * join emits a pair per auction, the second step keeps the first).
 */
public final class Q8 {
  /** The window size. */
  public static final Duration SIZE = Duration.ofSeconds(10);

  private Q8() {}

  /** What Q8 emits: a person who opened an auction in the window starting at {@code start}. */
  public record NewUser(long id, String name, long start) {}

  /** Registers the records Q8 emits. */
  public static DataflowBuilder registerTypes(DataflowBuilder b) {
    return b.registerTypes(NewUser.class);
  }

  /**
   * Adds the query: operators {@code name + "-persons"}, {@code name + "-auctions"}, the window
   * join {@code name + "-join"} and the keyed {@code name} that emits each person once.
   */
  public static Stage<NewUser> newUsers(Stage<NexmarkEvent> events, String name) {
    Stage<Person> persons = Nexmark.persons(events, name + "-persons");
    Stage<Auction> auctions = Nexmark.auctions(events, name + "-auctions");
    return persons
        .keyBy(Person::id)
        .join(auctions.keyBy(Auction::seller))
        .window(WindowAssigner.tumbling(SIZE))
        .apply(name + "-join", (p, a) -> new NewUser(p.id(), p.name(), windowStart(p.dateTime())))
        .keyBy(NewUser::id)
        .process(name, FirstPerPerson::new);
  }

  /** The start of the window of {@link #SIZE} that {@code timestamp} falls in. */
  public static long windowStart(long timestamp) {
    long size = SIZE.toMillis();
    return Math.floorDiv(timestamp, size) * size;
  }

  /** Keyed by person id: passes the first record on. */
  static final class FirstPerPerson extends KeyedProcessFunction<Long, NewUser, NewUser> {
    private ValueState<Boolean> seen;

    @Override
    public void open(KeyedStateContext ctx) {
      seen = ctx.valueState("seen", Boolean.class);
    }

    @Override
    public void process(NewUser u, Context<Long> ctx, Collector<NewUser> out) {
      if (seen.value() == null) {
        seen.update(Boolean.TRUE);
        out.collect(u);
      }
    }
  }
}
