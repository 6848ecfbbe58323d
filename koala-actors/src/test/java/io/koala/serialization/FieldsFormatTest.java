package io.koala.serialization;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.state.Codec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The evolvable encoding of state values of records and plain classes: round trips, and bytes of
 * one version of a class read as another. The format is by field name and carries no class for
 * typed state, so two differently named classes stand for two versions of one.
 */
class FieldsFormatTest {
  record Inner(String name) {}

  record Everything(
      boolean z,
      byte b,
      char c,
      short s,
      int i,
      long j,
      float f,
      double d,
      String text,
      Integer boxed,
      String none,
      List<String> list,
      Inner inner,
      Map<String, Long> map) {}

  static class Base {
    long total;
  }

  static class Plain extends Base {
    String label;
    transient int skipped = 5;
    int[] counts;
  }

  /** Version 1 of a state record. */
  record TotalsV1(String currency, long sum, int count, String removed) {}

  /**
   * Version 2: {@code removed} gone, {@code note} and {@code limit} added (defaults from {@code
   * stateDefaults}), {@code count} widened to long, order changed.
   */
  record TotalsV2(long count, String note, long sum, String currency, int limit) {
    static TotalsV2 stateDefaults() {
      return new TotalsV2(-1, "none", -1, "?", 100);
    }
  }

  /** Version 2 without defaults: added components get null and 0. */
  record TotalsPlainDefaults(String currency, long sum, String note, double ratio, boolean on) {}

  /** A field kept with a type the stored values cannot be read as. */
  record TotalsBadType(long currency, long sum) {}

  static class AccV1 {
    long sum;
    String dropped;
  }

  static class AccV2 {
    long sum;
    int added = 7;
  }

  record BadDefaults(long x) {
    BadDefaults stateDefaults() {
      return this;
    }
  }

  private final KryoSerde serde =
      serdeWith(
          Inner.class,
          Everything.class,
          WithInner.class,
          Plain.class,
          TotalsV1.class,
          TotalsV2.class,
          TotalsPlainDefaults.class,
          TotalsBadType.class,
          AccV1.class,
          AccV2.class,
          BadDefaults.class,
          int[].class);

  private static KryoSerde serdeWith(Class<?>... types) {
    TypeRegistry r = TypeRegistry.withDefaults();
    r.register(types);
    return new KryoSerde(r);
  }

  /** Bytes of {@code value} as state of its class, read as state of class {@code as}. */
  @SuppressWarnings("unchecked")
  private <A, B> B evolve(A value, Class<B> as) {
    byte[] bytes = Codecs.forClass((Class<A>) value.getClass(), serde).encode(value);
    return Codecs.forClass(as, serde).decode(bytes);
  }

  @Test
  void recordsRoundTripWithEveryKindOfField() {
    Everything e =
        new Everything(
            true,
            (byte) -3,
            'ü',
            (short) 300,
            -7,
            Long.MAX_VALUE,
            1.5f,
            Math.PI,
            "grüß",
            42,
            null,
            new ArrayList<>(List.of("a", "b")),
            new Inner("in"),
            Map.of("k", 1L));
    Codec<Everything> codec = Codecs.forClass(Everything.class, serde);
    byte[] bytes = codec.encode(e);
    assertThat(bytes[0]).as("the format version").isEqualTo(FieldsFormat.FIELDS);
    assertThat(codec.decode(bytes)).isEqualTo(e);
    assertThat(codec.decode(codec.encode(e))).as("the codec is reusable").isEqualTo(e);
  }

  @Test
  void plainClassesRoundTripWithTheirSuperclassFieldsAndWithoutTransientOnes() {
    Plain p = new Plain();
    p.total = 99;
    p.label = "x";
    p.counts = new int[] {1, 2};
    p.skipped = 9;
    Plain back = evolve(p, Plain.class);
    assertThat(back.total).isEqualTo(99);
    assertThat(back.label).isEqualTo("x");
    assertThat(back.counts).containsExactly(1, 2);
    assertThat(back.skipped).as("transient: the constructor's").isEqualTo(5);
    assertThat(Codecs.schemaOf(Plain.class, serde))
        .containsExactly(
            new FieldType("total", "long"),
            new FieldType("label", "java.lang.String"),
            new FieldType("counts", "int[]"));
  }

  @Test
  void aRecordReadsOldBytesWithFieldsAddedRemovedReorderedAndWidened() {
    TotalsV2 v2 = evolve(new TotalsV1("EUR", 120, 3, "gone"), TotalsV2.class);
    assertThat(v2)
        .as("kept fields by name, count widened, added ones from stateDefaults()")
        .isEqualTo(new TotalsV2(3L, "none", 120, "EUR", 100));

    TotalsPlainDefaults plain = evolve(new TotalsV1("USD", 5, 1, null), TotalsPlainDefaults.class);
    assertThat(plain).isEqualTo(new TotalsPlainDefaults("USD", 5, null, 0.0, false));
  }

  /** Version 1 with a nested value of a class the next version no longer has. */
  record WithInner(long sum, Inner inner) {}

  record WithoutInner(long sum) {}

  @Test
  void aRemovedFieldIsSkippedUnreadEvenWhenItsClassIsNoLongerRegistered() {
    byte[] bytes =
        Codecs.forClass(WithInner.class, serde).encode(new WithInner(3, new Inner("gone")));
    KryoSerde without = serdeWith(WithoutInner.class); // Inner is not registered here
    assertThat(Codecs.forClass(WithoutInner.class, without).decode(bytes))
        .isEqualTo(new WithoutInner(3));
  }

  @Test
  void aPlainClassKeepsWhatItsConstructorGaveAFieldItGained() {
    AccV1 v1 = new AccV1();
    v1.sum = 17;
    v1.dropped = "bye";
    AccV2 v2 = evolve(v1, AccV2.class);
    assertThat(v2.sum).isEqualTo(17);
    assertThat(v2.added).isEqualTo(7);
  }

  @Test
  void aFieldStoredWithATypeItCannotBeReadAsFailsNamingItInsteadOfCorruptingState() {
    assertThatThrownBy(() -> evolve(new TotalsV1("EUR", 1, 1, null), TotalsBadType.class))
        .isInstanceOf(SerializationException.class)
        .hasMessage(
            "field 'currency' of "
                + TotalsBadType.class.getName()
                + " was stored as java.lang.String, which cannot be read as long");
    // long → int narrows: refused as well
    assertThat(StateClassLayout.readableAs("long", "int")).isFalse();
    assertThat(StateClassLayout.readableAs("java.lang.Integer", "long")).isTrue();
    assertThat(StateClassLayout.readableAs("long", "double")).as("lossy").isFalse();
  }

  @Test
  void aFormatThisVersionDoesNotKnowIsRefused() {
    byte[] bytes = Codecs.forClass(TotalsV1.class, serde).encode(new TotalsV1("a", 1, 1, "b"));
    bytes[0] = 9;
    assertThatThrownBy(() -> Codecs.forClass(TotalsV1.class, serde).decode(bytes))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("has format 9, which this version of Koala does not read");
  }

  @Test
  void aStateDefaultsMethodOfTheWrongShapeIsRefusedNamingTheClass() {
    assertThatThrownBy(() -> Codecs.forClass(BadDefaults.class, serde))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining(BadDefaults.class.getName())
        .hasMessageContaining("stateDefaults() but it is not static");
  }

  @Test
  void objectTypedStateWritesJdkValuesWithKryoAndUserClassesByField() {
    Codec<Object> any = Codecs.forClass(Object.class, serde);
    for (Object v :
        List.of(5L, "s", new ArrayList<>(List.of(1, 2)), new TotalsV1("a", 1, 2, "c"))) {
      assertThat(any.decode(any.encode(v))).isEqualTo(v);
    }
    assertThat(any.encode(7L)[0]).isEqualTo(FieldsFormat.ANY_KRYO);
    assertThat(any.encode(new TotalsV1("a", 1, 2, "c"))[0]).isEqualTo(FieldsFormat.ANY_FIELDS);
    assertThat(Codecs.schemaOf(Object.class, serde)).isNull();
    assertThat(Codecs.schemaOf(Long.class, serde)).isNull();
    assertThat(Codecs.schemaOf(java.time.Instant.class, serde)).isNull();
  }

  @Test
  void objectTypedStateSuchAsAWindowAccumulatorReadsANewVersionOfItsClass() throws Exception {
    Class<?> v1 =
        ClassVersions.compile(
            "evolve.Acc", "package evolve; public record Acc(long sum, String gone) {}");
    Class<?> v2 =
        ClassVersions.compile(
            "evolve.Acc",
            "package evolve; public record Acc(int count, long sum) {"
                + " static Acc stateDefaults() { return new Acc(1, 0); } }");
    byte[] bytes =
        Codecs.forClass(Object.class, serdeWith(v1)).encode(ClassVersions.make(v1, 40L, "x"));
    Object read = Codecs.forClass(Object.class, serdeWith(v2)).decode(bytes);
    assertThat(read.getClass()).isSameAs(v2);
    assertThat(ClassVersions.get(read, "sum")).isEqualTo(40L);
    assertThat(ClassVersions.get(read, "count")).isEqualTo(1);
  }

  @Test
  void aValueOfASubclassOfTheDeclaredClassIsRefusedRatherThanCutDown() {
    class Sub extends Plain {}
    assertThatThrownBy(() -> Codecs.forClass(Plain.class, serde).encode(new Sub()))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("was given a " + Sub.class.getName());
  }

  @Test
  void anUnregisteredStateClassKeepsItsError() {
    record Unregistered(int x) {}
    assertThatThrownBy(() -> Codecs.forClass(Unregistered.class, serde))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("registerTypes");
  }
}
