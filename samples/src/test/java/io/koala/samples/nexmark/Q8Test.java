package io.koala.samples.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.samples.nexmark.Q8.NewUser;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class Q8Test {

  @Test
  void emitsThePersonsWhoSoldInTheWindowTheyRegisteredInLikeAPlainLoop() {
    long seed = NexmarkRun.seed("Q8Test");
    NexmarkGenerator gen = NexmarkRun.generator(seed);
    List<NewUser> actual =
        NexmarkRun.run(gen, seed, Q8::registerTypes, events -> Q8.newUsers(events, "q8"));

    Map<Long, Person> persons = new HashMap<>();
    Set<NewUser> expected = new LinkedHashSet<>();
    for (NexmarkEvent e : NexmarkRun.events(gen, NexmarkRun.EVENTS)) {
      if (e instanceof Person p) {
        persons.put(p.id(), p);
      } else if (e instanceof Auction a) {
        Person p = persons.get(a.seller());
        long window = Math.floorDiv(p.dateTime(), 10_000) * 10_000;
        if (Math.floorDiv(a.dateTime(), 10_000) * 10_000 == window) {
          expected.add(new NewUser(p.id(), p.name(), window));
        }
      }
    }
    assertThat(expected).hasSizeGreaterThan(5);
    assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
  }
}
