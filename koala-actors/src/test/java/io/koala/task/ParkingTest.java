package io.koala.task;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.protocol.StateMessage.KeyRef;
import io.koala.state.TimeDomain;
import org.junit.jupiter.api.Test;

/**
 * The parked items' arrival numbers, by which a watermark or barrier knows what is before it, and
 * their bytes, which count against the task's budget of waiting records.
 */
class ParkingTest {
  static KeyRef key(int bucket, String k) {
    return new KeyRef(bucket, k.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  @Test
  void theOldestArrivalFollowsWhatIsParked() {
    Parking p = new Parking();
    assertThat(p.oldestArrival()).isEqualTo(Long.MAX_VALUE);
    p.park(key(1, "a"), Parking.Parked.record("a1", 0, 0, 7), 3);
    p.park(key(1, "a"), Parking.Parked.record("a2", 0, 0, 9), 3);
    p.park(key(2, "b"), Parking.Parked.record("b1", 0, 0, 5), 3);
    p.await(key(3, "c"), Parking.Parked.record("c1", 0, 0, 5));
    assertThat(p.oldestArrival()).isEqualTo(5);

    assertThat(p.arrived(key(2, "b"))).hasSize(1);
    assertThat(p.oldestArrival()).as("c1 came in the same item as b1").isEqualTo(5);
    assertThat(p.arrived(key(3, "c"))).hasSize(1);
    assertThat(p.oldestArrival()).isEqualTo(7);

    p.park(key(4, "d"), Parking.Parked.timer(100, new byte[0], TimeDomain.EVENT_TIME), 3);
    assertThat(p.oldestArrival()).isEqualTo(Parking.BEFORE_EVERYTHING);
    p.abandon(key(4, "d"));
    assertThat(p.oldestArrival()).isEqualTo(7);

    assertThat(p.arrived(key(1, "a")))
        .extracting(Parking.Parked::value)
        .containsExactly("a1", "a2");
    assertThat(p.oldestArrival()).isEqualTo(Long.MAX_VALUE);
    assertThat(p.isEmpty()).isTrue();
  }

  @Test
  void theBytesFollowWhatIsParked() {
    Parking p = new Parking();
    p.park(key(1, "a"), Parking.Parked.record("a1", 0, 0, 1), 3);
    p.park(key(1, "a"), Parking.Parked.record("a-longer", 0, 0, 2), 3);
    p.await(key(2, "b"), Parking.Parked.timer(100, new byte[10], TimeDomain.EVENT_TIME));
    long a = Parking.waitingBytes("a1") + Parking.waitingBytes("a-longer");
    assertThat(Parking.waitingBytes("a-longer") - Parking.waitingBytes("a1"))
        .as("estimated as batches are")
        .isEqualTo(6);
    assertThat(p.bytes()).isEqualTo(a + Parking.ITEM_BYTES + 10);

    p.arrived(key(2, "b"));
    assertThat(p.bytes()).isEqualTo(a);
    p.abandon(key(1, "a"));
    assertThat(p.bytes()).isZero();
  }
}
