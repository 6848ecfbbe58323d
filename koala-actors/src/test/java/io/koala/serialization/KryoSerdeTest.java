package io.koala.serialization;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.function.KeyValue;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Kryo with required registration: round trips, errors, and byte-level determinism. */
class KryoSerdeTest {

  /** A record users would register. */
  record Trade(String symbol, long quantity, BigDecimal price, Instant at, List<String> tags) {}

  enum Side {
    BUY,
    SELL {
      @Override
      public String toString() {
        return "sell";
      }
    }
  }

  record Order(UUID id, Side side, Map<String, Integer> legs) {}

  /** Never registered. */
  record Unregistered(int x) {}

  /** A linked chain of records: each link is written one Kryo level below the one before. */
  record Link(int n, Link next) {}

  static Link chain(int links) {
    Link head = null;
    for (int i = links; i > 0; i--) {
      head = new Link(i, head);
    }
    return head;
  }

  private static KryoSerde serde(Class<?>... types) {
    TypeRegistry registry = TypeRegistry.withDefaults();
    registry.register(types);
    return new KryoSerde(registry);
  }

  static Stream<Object> builtIns() {
    return Stream.of(
        "text",
        "",
        42,
        -7L,
        Long.MIN_VALUE,
        (short) 3,
        (byte) -1,
        'c',
        3.25d,
        1.5f,
        true,
        new BigInteger("123456789012345678901234567890"),
        new BigDecimal("-1.50"),
        Instant.ofEpochSecond(1_700_000_000L, 123_456_789),
        Duration.ofMillis(1500),
        LocalDate.of(2024, 2, 29),
        LocalDateTime.of(2024, 2, 29, 23, 59, 1),
        UUID.fromString("123e4567-e89b-12d3-a456-426614174000"),
        new ArrayList<>(List.of(1, 2, 3)),
        new HashMap<>(Map.of("a", 1L)),
        new TreeMap<>(Map.of("b", "x", "a", "y")),
        new KeyValue<>("k", 5L),
        List.of(),
        List.of("one"),
        List.of("one", "two", "three"),
        Set.of(1, 2, 3),
        Map.of(),
        Map.of("k", 1),
        Map.of("k", 1, "l", 2, "m", 3));
  }

  @ParameterizedTest(name = "{0} ({arguments})")
  @MethodSource("builtIns")
  void builtInTypesRoundTripWithoutRegistration(Object value) {
    KryoSerde serde = serde();
    assertThat(serde.registry().isRegistered(value.getClass())).isTrue();
    Object back = serde.fromBytes(serde.toBytes(value));
    assertThat(back).isEqualTo(value);
  }

  @Test
  void primitiveArraysRoundTrip() {
    KryoSerde serde = serde();
    assertThat((byte[]) serde.fromBytes(serde.toBytes(new byte[] {1, -2, 3})))
        .containsExactly(1, -2, 3);
    assertThat((long[]) serde.fromBytes(serde.toBytes(new long[] {Long.MAX_VALUE, 0})))
        .containsExactly(Long.MAX_VALUE, 0);
    assertThat((String[]) serde.fromBytes(serde.toBytes(new String[] {"a", null})))
        .containsExactly("a", null);
  }

  @Test
  void nullRoundTrips() {
    KryoSerde serde = serde();
    assertThat(serde.fromBytes(serde.toBytes(null))).isNull();
  }

  @Test
  void aRegisteredRecordWithNestedTypesRoundTrips() {
    KryoSerde serde = serde(Trade.class);
    Trade t =
        new Trade("KOA", 100, new BigDecimal("12.34"), Instant.ofEpochMilli(5), List.of("a", "b"));
    assertThat(serde.fromBytes(serde.toBytes(t))).isEqualTo(t);
    assertThat(serde.fromBytes(serde.toBytes(t, Trade.class), Trade.class)).isEqualTo(t);
  }

  @Test
  void recordsWithEnumsUuidsAndImmutableMapsRoundTrip() {
    KryoSerde serde = serde(Order.class, Side.class);
    Order o = new Order(UUID.randomUUID(), Side.SELL, Map.of("x", 1, "y", 2));
    assertThat(serde.fromBytes(serde.toBytes(o))).isEqualTo(o);
    assertThat(serde.fromBytes(serde.toBytes(Side.SELL))).isSameAs(Side.SELL);
    assertThat(serde.registry().isRegistered(Side.SELL.getClass())).isTrue();
  }

  @Test
  void anUnregisteredClassNamesTheClassAndTheFix() {
    KryoSerde serde = serde();
    assertThat(serde.registry().isRegistered(Unregistered.class)).isFalse();
    assertThatThrownBy(() -> serde.toBytes(new Unregistered(1)))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining(Unregistered.class.getName())
        .hasMessageContaining("registerTypes");
    assertThatThrownBy(() -> serde.toBytes(new Unregistered(1), Unregistered.class))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining(Unregistered.class.getName())
        .hasMessageContaining("registerTypes");
  }

  @Test
  void anUnregisteredNestedClassIsReportedByName() {
    KryoSerde serde = serde();
    List<Object> list = new ArrayList<>(List.of(new Unregistered(2)));
    assertThatThrownBy(() -> serde.toBytes(list))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining(Unregistered.class.getName())
        .hasMessageContaining("registerTypes");
  }

  @Test
  void aClassRegisteredAfterTheSerdeWasMadeIsPickedUp() {
    TypeRegistry registry = TypeRegistry.withDefaults();
    KryoSerde serde = new KryoSerde(registry);
    assertThatThrownBy(() -> serde.toBytes(new Unregistered(3)))
        .isInstanceOf(SerializationException.class);
    registry.register(Unregistered.class);
    assertThat(serde.fromBytes(serde.toBytes(new Unregistered(3)))).isEqualTo(new Unregistered(3));
  }

  @Test
  void registrationOrderDoesNotChangeTheBytes() {
    TypeRegistry forward = TypeRegistry.withDefaults();
    forward.register(Trade.class, Order.class, Side.class, Unregistered.class);
    TypeRegistry backward = TypeRegistry.withDefaults();
    backward.register(Unregistered.class, Side.class);
    backward.register(Order.class);
    backward.register(Trade.class);
    KryoSerde a = new KryoSerde(forward);
    KryoSerde b = new KryoSerde(backward);

    List<Object> values =
        List.of(
            new Trade("X", 1, BigDecimal.ONE, Instant.EPOCH, List.of("t")),
            new Order(new UUID(1, 2), Side.BUY, Map.of("k", 1)),
            Side.SELL,
            new Unregistered(9),
            new KeyValue<>("k", List.of(1L, 2L)));
    for (Object v : values) {
      byte[] bytesA = a.toBytes(v);
      assertThat(bytesA).as("%s", v).isEqualTo(b.toBytes(v));
      assertThat(b.fromBytes(bytesA)).as("%s", v).isEqualTo(v);
    }
    assertThat(TypeRegistry.idOf(Trade.class)).isGreaterThanOrEqualTo(1000);
  }

  @Test
  void serializationIsDeterministicAcrossInstances() {
    Trade t = new Trade("D", 7, new BigDecimal("0.1"), Instant.ofEpochSecond(9), List.of());
    byte[] first = serde(Trade.class).toBytes(t);
    byte[] again = serde(Trade.class).toBytes(t);
    assertThat(first).isEqualTo(again);
    KryoSerde one = serde(Trade.class);
    assertThat(one.toBytes(t)).isEqualTo(one.toBytes(t));
  }

  @Test
  void registeringTheSameClassTwiceIsHarmless() {
    TypeRegistry r = TypeRegistry.withDefaults();
    r.register(Trade.class);
    int version = r.version();
    r.register(Trade.class);
    assertThat(r.version()).isEqualTo(version);
    assertThat(r.isRegistered(Trade.class)).isTrue();
  }

  @Test
  void garbageBytesFailWithASerializationException() {
    KryoSerde serde = serde();
    assertThatThrownBy(() -> serde.fromBytes(new byte[] {(byte) 0xFF, (byte) 0xFF, 0x7F}))
        .isInstanceOf(SerializationException.class);
  }

  /**
   * {@link TypeRegistry#isRegistered} is what the task engine asks before a record leaves an
   * operator; it must not promise a class that serialization then refuses.
   */
  @Test
  void everyClassIsRegisteredClaimsIsSerializable() {
    KryoSerde serde = serde();
    List<Object> values =
        List.of(
            Collections.unmodifiableList(new ArrayList<>(List.of(1))),
            Collections.emptyList(),
            Collections.singletonList("x"),
            Collections.unmodifiableMap(new LinkedHashMap<>(Map.of("a", 1))));
    for (Object v : values) {
      if (serde.registry().isRegistered(v.getClass())) {
        assertThat(serde.fromBytes(serde.toBytes(v))).as(v.getClass().getName()).isEqualTo(v);
      }
    }
  }

  @Test
  void arraysAsListIsNotClaimedToBeRegistered() {
    assertThat(TypeRegistry.withDefaults().isRegistered(Arrays.asList(1, 2).getClass())).isFalse();
  }

  @Test
  void aValueNestedDeeperThanTheLimitFailsNamingItsClassAndTheLimit() {
    KryoSerde serde = serde(Link.class);
    assertThat(serde.registry().maxDepth()).isEqualTo(TypeRegistry.DEFAULT_MAX_DEPTH).isEqualTo(64);
    assertThat(serde.fromBytes(serde.toBytes(chain(20)))).isEqualTo(chain(20));
    assertThatThrownBy(() -> serde.toBytes(chain(100)))
        .isInstanceOf(SerializationException.class)
        .hasMessageStartingWith(Link.class.getName() + " nests objects more than 64 levels deep")
        .hasMessageContaining("beyond koala.serialization.max-depth = 64")
        .hasMessageNotContaining("Serialization trace");
    assertThatThrownBy(() -> serde.toBytes(chain(100), Link.class))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("koala.serialization.max-depth = 64");
    // the failed writes left the instance at depth 0: a normal value still passes
    assertThat(serde.fromBytes(serde.toBytes(chain(20)))).isEqualTo(chain(20));
    assertThat(serde.fromBytes(serde.toBytes(List.of(chain(3), chain(3)))))
        .isEqualTo(List.of(chain(3), chain(3)));
  }

  @Test
  void aDeeperValueReceivedIsRefusedBeforeItIsBuilt() {
    TypeRegistry lenient = TypeRegistry.withDefaults();
    lenient.register(Link.class);
    lenient.setMaxDepth(TypeRegistry.MAX_MAX_DEPTH);
    byte[] deep = new KryoSerde(lenient).toBytes(chain(100));
    KryoSerde strict = serde(Link.class);
    assertThatThrownBy(() -> strict.fromBytes(deep))
        .isInstanceOf(SerializationException.class)
        .hasMessageStartingWith("a value (" + Link.class.getName() + ") nests objects more than 64")
        .hasMessageContaining("koala.serialization.max-depth = 64");
    assertThatThrownBy(() -> strict.fromBytes(deep, Link.class))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("koala.serialization.max-depth = 64");
  }

  @Test
  void aLowerLimitReachesSerdesMadeBefore() {
    KryoSerde serde = serde(Link.class);
    byte[] bytes = serde.toBytes(chain(20));
    serde.registry().setMaxDepth(TypeRegistry.MIN_MAX_DEPTH);
    assertThatThrownBy(() -> serde.toBytes(chain(20)))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("koala.serialization.max-depth = 16");
    assertThatThrownBy(() -> serde.fromBytes(bytes)).isInstanceOf(SerializationException.class);
    assertThat(serde.fromBytes(serde.toBytes(chain(5)))).isEqualTo(chain(5));
  }

  @Test
  void theLimitHasBounds() {
    TypeRegistry r = TypeRegistry.withDefaults();
    assertThatThrownBy(() -> r.setMaxDepth(TypeRegistry.MIN_MAX_DEPTH - 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("allowed: [16, 1024]");
    assertThatThrownBy(() -> r.setMaxDepth(TypeRegistry.MAX_MAX_DEPTH + 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(r.maxDepth()).isEqualTo(TypeRegistry.DEFAULT_MAX_DEPTH);
  }

  /**
   * The highest limit allowed is still reached before the stack of a thread of the JVM's default
   * size (1 MiB on 64-bit Linux) runs out, writing and reading.
   */
  @Test
  void theHighestLimitIsReachedBeforeADefaultStackOverflows() throws Exception {
    TypeRegistry r = TypeRegistry.withDefaults();
    r.register(Link.class);
    r.setMaxDepth(TypeRegistry.MAX_MAX_DEPTH);
    KryoSerde serde = new KryoSerde(r);
    java.util.concurrent.atomic.AtomicReference<Throwable> failure =
        new java.util.concurrent.atomic.AtomicReference<>();
    java.util.concurrent.atomic.AtomicReference<Object> back =
        new java.util.concurrent.atomic.AtomicReference<>();
    Thread t =
        new Thread(
            null,
            () -> {
              try {
                back.set(serde.fromBytes(serde.toBytes(chain(1000))));
                serde.toBytes(chain(2000));
              } catch (Throwable e) {
                failure.set(e);
              }
            },
            "default-stack",
            1 << 20);
    t.start();
    t.join();
    assertThat(failure.get()).isNotInstanceOf(StackOverflowError.class);
    // walked, not compared: a record's equals recurses too, and deeper than Kryo per level
    int links = 0;
    for (Link l = (Link) back.get(); l != null; l = l.next()) {
      assertThat(l.n()).isEqualTo(++links);
    }
    assertThat(links).isEqualTo(1000);
    assertThat(failure.get())
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("koala.serialization.max-depth = 1024");
  }
}
