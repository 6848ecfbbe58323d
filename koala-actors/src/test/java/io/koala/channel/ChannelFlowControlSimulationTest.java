package io.koala.channel;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.protocol.Deliver;
import io.koala.protocol.EndOfChannel;
import io.koala.protocol.RecordBatch;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A seeded simulation of one data channel: an {@link OutputChannel} and an {@link InputChannel}
 * exchange items and credit grants through two FIFO queues, with a random interleaving of offers,
 * deliveries, consumption, grants, periodic re-grants and stale duplicate grants. Every item must
 * arrive exactly once and in order, and the items in flight (sent, not yet consumed) must never
 * exceed the window.
 *
 * <p>Replay a failure with {@code -Dkoala.sim.seed=<seed>} (the seed is printed and part of every
 * assertion message).
 */
class ChannelFlowControlSimulationTest {

  @Test
  void fixedSeeds() {
    for (long seed = 1; seed <= 300; seed++) {
      simulate(seed);
    }
  }

  @Test
  void randomSeed() {
    String fixed = System.getProperty("koala.sim.seed");
    long seed = fixed != null ? Long.parseLong(fixed) : new Random().nextLong();
    System.out.println("ChannelFlowControlSimulationTest seed=" + seed);
    simulate(seed);
  }

  private static void simulate(long seed) {
    Random random = new Random(seed);
    int window = 1 + random.nextInt(10);
    int records = random.nextInt(200);
    String where = "seed " + seed + " (window " + window + ", " + records + " records)";

    OutputChannel out = new OutputChannel(9, "receiver", window);
    InputChannel in = new InputChannel(9, "sender", 0, window);
    ArrayDeque<Deliver> wire = new ArrayDeque<>();
    ArrayDeque<Long> grants = new ArrayDeque<>();
    ArrayDeque<Deliver> accepted = new ArrayDeque<>();
    List<Object> received = new ArrayList<>();
    List<Long> oldGrants = new ArrayList<>();
    OutputChannel.Sender sender = (ch, seq, item) -> wire.add(new Deliver(ch.id(), seq, item));

    int offered = 0;
    long consumed = 0;
    boolean endOffered = false;
    boolean endConsumed = false;
    for (int step = 0; ; step++) {
      boolean canOffer = !endOffered;
      boolean canDeliver = !wire.isEmpty();
      boolean canConsume = !accepted.isEmpty();
      boolean canGrant = !grants.isEmpty();
      boolean canRegrant = !in.ended() && random.nextInt(20) == 0;
      boolean canStale = !oldGrants.isEmpty() && random.nextInt(20) == 0;
      if (!(canOffer || canDeliver || canConsume || canGrant)) {
        break;
      }
      List<Integer> choices = new ArrayList<>();
      if (canOffer) {
        choices.add(0);
      }
      if (canDeliver) {
        choices.add(1);
      }
      if (canConsume) {
        choices.add(2);
      }
      if (canGrant) {
        choices.add(3);
      }
      if (canRegrant) {
        choices.add(4);
      }
      if (canStale) {
        choices.add(5);
      }
      int action = choices.get(random.nextInt(choices.size()));
      switch (action) {
        case 0 -> {
          if (offered < records) {
            out.offer(new RecordBatch(new Object[] {offered}, new long[] {offered}, 1), sender);
            offered++;
          } else {
            out.offer(EndOfChannel.INSTANCE, sender);
            endOffered = true;
          }
        }
        case 1 -> {
          Deliver d = wire.poll();
          in.accept(d.seq(), d.item() == EndOfChannel.INSTANCE);
          accepted.add(d);
        }
        case 2 -> {
          Deliver d = accepted.poll();
          boolean end = d.item() == EndOfChannel.INSTANCE;
          assertThat(endConsumed).as("%s: item after end-of-channel", where).isFalse();
          if (d.item() instanceof RecordBatch b) {
            received.add(b.value(0));
          }
          long g = in.consumed(end);
          consumed++;
          endConsumed |= end;
          if (g >= 0) {
            grants.add(g);
          }
        }
        case 3 -> {
          long g = grants.poll();
          out.onCredit(g, sender);
          oldGrants.add(g);
        }
        case 4 -> grants.add(in.granted());
        case 5 -> out.onCredit(oldGrants.get(random.nextInt(oldGrants.size())), sender);
        default -> throw new IllegalStateException("unhandled action " + action);
      }
      long inFlight = out.sent() - consumed;
      assertThat(inFlight)
          .as("%s, step %d: items in flight", where, step)
          .isBetween(0L, (long) window);
      assertThat(in.inFlight()).as("%s, step %d", where, step).isLessThanOrEqualTo(window);
    }

    List<Object> expected = new ArrayList<>();
    for (int i = 0; i < records; i++) {
      expected.add(i);
    }
    assertThat(received).as(where).containsExactlyElementsOf(expected);
    assertThat(endConsumed).as("%s: end-of-channel consumed", where).isTrue();
    assertThat(in.ended()).as(where).isTrue();
    assertThat(out.queued()).as(where).isZero();
    assertThat(out.sent()).as(where).isEqualTo(records + 1L);
  }
}
