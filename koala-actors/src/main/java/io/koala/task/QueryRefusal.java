package io.koala.task;

import io.koala.protocol.QueryMessage;
import io.koala.task.state.KeyedStateBackend;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Why a state query can never be answered by an operator that keeps its keyed state in its tasks'
 * stores, from the operator's declarations: no state of that name, a state of another kind, or
 * classes other than those declared. A value is stored as its declared class encodes it, and a key
 * under the bytes of its class, so a read with another value class would decode the bytes as that
 * class, and one with another key class would find no state; both are refused, naming the classes.
 * A class the query or the declaration does not give (a codec, an untyped {@code keyBy}) is not
 * checked.
 */
final class QueryRefusal {
  private QueryRefusal() {}

  /**
   * Why a query of {@code state} of {@code kind} read with {@code types} cannot be answered by
   * operator {@code operator}, whose states {@code declared} holds and whose keys were declared as
   * {@code keyType} (null: not declared); null when it can.
   */
  static String of(
      String operator,
      KeyedStateBackend declared,
      String keyType,
      String state,
      QueryMessage.Kind kind,
      QueryMessage.Types types) {
    String declaredKind = declared.declaredKind(state);
    if (declaredKind == null) {
      List<String> states = declared.declaredStates();
      return "operator '"
          + operator
          + "' has no state named '"
          + state
          + "'"
          + (states.isEmpty() ? "" : " (its states: " + String.join(", ", states) + ")");
    }
    if (differ(keyType, types.key())) {
      return "operator '"
          + operator
          + "' keys its state by "
          + keyType
          + " (keyBy(selector, "
          + simpleName(keyType)
          + ".class)), not "
          + types.key()
          + ": query it with "
          + simpleName(keyType)
          + " keys";
    }
    String asked = kind.name().toLowerCase(Locale.ROOT);
    if (declaredKind.equals(KeyedStateBackend.NAMESPACED)) {
      return "state '"
          + state
          + "' of operator '"
          + operator
          + "' is kept per window, which queries do not read";
    }
    if (kind == QueryMessage.Kind.DECLARED) {
      return null;
    }
    if (!declaredKind.equals(asked)) {
      return "state '"
          + state
          + "' of operator '"
          + operator
          + "' is a "
          + declaredKind
          + " state, not a "
          + asked
          + " state: query it as a "
          + declaredKind;
    }
    String[] declaredTypes = declared.declaredTypes(state);
    if (declaredTypes == null) {
      return null; // declared with a codec
    }
    if (differ(declaredTypes[1], types.mapKey())) {
      return classes(state, operator, "keys", declaredTypes[1], types.mapKey());
    }
    if (differ(declaredTypes[0], types.value())) {
      return classes(
          state,
          operator,
          declaredKind.equals(KeyedStateBackend.LIST) ? "elements" : "values",
          declaredTypes[0],
          types.value());
    }
    return null;
  }

  private static String classes(
      String state, String operator, String what, String declared, String queried) {
    return "state '"
        + state
        + "' of operator '"
        + operator
        + "' was declared with "
        + declared
        + " "
        + what
        + ", not "
        + queried
        + ": query it with "
        + simpleName(declared)
        + ".class";
  }

  /** Whether both classes are given and differ (a primitive and its box do not). */
  private static boolean differ(String declared, String queried) {
    return declared != null && queried != null && !boxed(declared).equals(boxed(queried));
  }

  private static final Map<String, String> BOXES =
      Map.of(
          "long", Long.class.getName(),
          "int", Integer.class.getName(),
          "double", Double.class.getName(),
          "float", Float.class.getName(),
          "short", Short.class.getName(),
          "byte", Byte.class.getName(),
          "char", Character.class.getName(),
          "boolean", Boolean.class.getName());

  private static String boxed(String type) {
    return BOXES.getOrDefault(type, type);
  }

  private static String simpleName(String type) {
    String boxed = boxed(type);
    return boxed.substring(Math.max(boxed.lastIndexOf('.'), boxed.lastIndexOf('$')) + 1);
  }
}
