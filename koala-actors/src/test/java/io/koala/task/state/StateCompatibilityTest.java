package io.koala.task.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.serialization.FieldType;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pure check of a state's new declaration against the recorded one: each case. */
class StateCompatibilityTest {
  private static final List<FieldType> TOTALS =
      List.of(
          new FieldType("amount", "java.lang.String"),
          new FieldType("count", "int"),
          new FieldType("tags", "java.util.List<java.lang.String>"));

  private static StateDeclaration value(String valueClass, List<FieldType> fields) {
    return new StateDeclaration("totals", "sum", KeyedStateBackend.VALUE, valueClass, null, fields);
  }

  private static StateDeclaration totals(FieldType... fields) {
    return value("shop.Totals", List.of(fields));
  }

  private static StateDeclaration map(String keyClass, String valueClass) {
    return new StateDeclaration("totals", "sum", KeyedStateBackend.MAP, valueClass, keyClass, null);
  }

  private static List<String> check(StateDeclaration recorded, StateDeclaration declared) {
    return StateCompatibility.check(recorded, declared);
  }

  // ---------------------------------------------------------------- allowed

  @Test
  void theSameDeclarationIsAllowed() {
    assertThat(check(value("shop.Totals", TOTALS), value("shop.Totals", TOTALS))).isEmpty();
    assertThat(check(map("java.lang.String", "java.lang.Long"), map("java.lang.String", "long")))
        .as("a primitive and its box are the same state")
        .isEmpty();
  }

  @Test
  void fieldsAddedRemovedOrReorderedAreAllowed() {
    assertThat(
            check(
                value("shop.Totals", TOTALS),
                totals(
                    new FieldType("tags", "java.util.List<java.lang.String>"),
                    new FieldType("amount", "java.lang.String"),
                    new FieldType("currency", "java.lang.String"))))
        .isEmpty();
  }

  @Test
  void losslessWideningsOfAFieldAreAllowed() {
    assertThat(
            check(
                totals(new FieldType("count", "int"), new FieldType("ratio", "float")),
                totals(new FieldType("count", "java.lang.Long"), new FieldType("ratio", "double"))))
        .isEmpty();
    assertThat(
            check(
                totals(new FieldType("count", "java.lang.Integer")),
                totals(new FieldType("count", "int"))))
        .isEmpty();
  }

  @Test
  void stateDeclaredWithACodecIsComparedByKindOnly() {
    StateDeclaration window =
        new StateDeclaration(
            "w", "window.contents", KeyedStateBackend.NAMESPACED, null, null, null);
    assertThat(check(window, window)).isEmpty();
  }

  // ---------------------------------------------------------------- refused

  @Test
  void aChangedKindIsRefused() {
    assertThat(check(value("java.lang.Long", null), map("java.lang.String", "java.lang.Long")))
        .containsExactly(
            "its kind changed from a value state to a map state, which the stored state cannot"
                + " be read as");
  }

  @Test
  void aValueClassChangedToAnotherClassIsRefused() {
    assertThat(check(value("shop.Totals", TOTALS), value("shop.Summary", TOTALS)))
        .containsExactly(
            "its value class changed from shop.Totals to shop.Summary, which the stored values"
                + " cannot be read as (keep the class's name, or drop the state)");
    assertThat(check(value("java.lang.Integer", null), value("java.lang.Long", null)))
        .as("Integer and Long state have different fixed widths")
        .hasSize(1);
    assertThat(check(value(null, null), value("java.lang.Long", null)))
        .singleElement()
        .asString()
        .contains("from (none: a codec of the operator's own) to java.lang.Long");
  }

  @Test
  void aChangedMapKeyClassIsRefused() {
    assertThat(check(map("java.lang.String", "long"), map("java.lang.Long", "long")))
        .containsExactly(
            "its map key class changed from java.lang.String to java.lang.Long, which the stored"
                + " map keys cannot be read as");
  }

  @Test
  void aFieldKeptWithATypeItsStoredValuesCannotBeReadAsIsRefusedEachNamed() {
    List<String> problems =
        check(
            value("shop.Totals", TOTALS),
            totals(
                new FieldType("amount", "long"),
                new FieldType("count", "short"),
                new FieldType("tags", "java.util.List<java.lang.Long>")));
    assertThat(problems)
        .containsExactly(
            "field 'amount' changed type from java.lang.String to long, which the stored state"
                + " cannot be read as",
            "field 'count' changed type from int to short, which the stored state cannot be read"
                + " as",
            "field 'tags' changed type from java.util.List<java.lang.String> to"
                + " java.util.List<java.lang.Long>, which the stored state cannot be read as");
    assertThat(check(totals(new FieldType("n", "long")), totals(new FieldType("n", "double"))))
        .as("long → double loses precision")
        .hasSize(1);
  }

  @Test
  void aSwitchBetweenFieldByFieldAndWholeValuesIsRefused() {
    assertThat(check(value("shop.Totals", TOTALS), value("shop.Totals", null)))
        .containsExactly(
            "values of shop.Totals were stored field by field and are now written whole by a"
                + " serializer registered for the class, which the stored values cannot be read"
                + " as");
  }

  @Test
  void theMessageNamesTheOperatorTheStateAndEveryProblem() {
    StateDeclaration declared = totals(new FieldType("amount", "long"));
    assertThat(StateCompatibility.message(declared, check(value("shop.Totals", TOTALS), declared)))
        .startsWith(
            "operator 'totals' state 'sum': field 'amount' changed type from java.lang.String to"
                + " long, which the stored state cannot be read as");
  }
}
