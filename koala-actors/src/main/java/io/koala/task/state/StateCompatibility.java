package io.koala.task.state;

import io.koala.serialization.FieldType;
import io.koala.serialization.StateClassLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Whether an operator's declaration of a state reads the state an earlier declaration, recorded
 * with it, wrote: a pure function of the two.
 *
 * <p>Allowed: the same declaration; fields added to or removed from the value class (a value
 * written without a field gets its default; a field no longer there is skipped); a field's type
 * changed to one its stored values widen to without loss ({@code int → long}, {@code float →
 * double}, a primitive and its box, ...: {@link StateClassLayout#readableAs}). Refused: the kind
 * changed (value, list, map, window), the value class changed (other than between a primitive and
 * its box), the map key class changed, a field kept with a type its stored values cannot be read
 * as, and a switch between field-by-field values and a class Kryo writes whole.
 */
public final class StateCompatibility {
  private static final Map<String, String> KINDS =
      Map.of(
          KeyedStateBackend.VALUE, "a value state",
          KeyedStateBackend.LIST, "a list state",
          KeyedStateBackend.MAP, "a map state",
          KeyedStateBackend.NAMESPACED, "a window state");

  private StateCompatibility() {}

  /**
   * The problems that keep {@code declared} from reading what {@code recorded} wrote, each a
   * sentence for a user; empty when it can.
   */
  public static List<String> check(StateDeclaration recorded, StateDeclaration declared) {
    List<String> problems = new ArrayList<>();
    if (!recorded.kind().equals(declared.kind())) {
      problems.add(
          "its kind changed from "
              + kind(recorded.kind())
              + " to "
              + kind(declared.kind())
              + ", which the stored state cannot be read as");
      return problems;
    }
    boolean sameValueClass = sameClass(recorded.valueClass(), declared.valueClass());
    if (!sameValueClass) {
      problems.add(
          "its value class changed from "
              + className(recorded.valueClass())
              + " to "
              + className(declared.valueClass())
              + ", which the stored values cannot be read as (keep the class's name, or drop the"
              + " state)");
    }
    if (!sameClass(recorded.mapKeyClass(), declared.mapKeyClass())) {
      problems.add(
          "its map key class changed from "
              + className(recorded.mapKeyClass())
              + " to "
              + className(declared.mapKeyClass())
              + ", which the stored map keys cannot be read as");
    }
    if (sameValueClass) {
      fields(recorded, declared, problems);
    }
    return problems;
  }

  /**
   * The message a task fails with at open: the operator, the state and every problem ({@link
   * #check}).
   */
  public static String message(StateDeclaration declared, List<String> problems) {
    return "operator '"
        + declared.operator()
        + "' state '"
        + declared.state()
        + "': "
        + String.join("; ", problems)
        + " (the state was restored from a snapshot; docs/upgrades.md lists the changes of state"
        + " that a restore allows)";
  }

  private static void fields(
      StateDeclaration recorded, StateDeclaration declared, List<String> problems) {
    List<FieldType> before = recorded.fields();
    List<FieldType> now = declared.fields();
    if (before == null && now == null) {
      return;
    }
    if (before == null || now == null) {
      problems.add(
          "values of "
              + declared.valueClass()
              + (before == null
                  ? " were stored whole by Kryo and are now written field by field"
                  : " were stored field by field and are now written whole by a serializer"
                      + " registered for the class")
              + ", which the stored values cannot be read as");
      return;
    }
    for (FieldType old : before) {
      for (FieldType f : now) {
        if (f.name().equals(old.name()) && !StateClassLayout.readableAs(old.type(), f.type())) {
          problems.add(
              "field '"
                  + f.name()
                  + "' changed type from "
                  + old.type()
                  + " to "
                  + f.type()
                  + ", which the stored state cannot be read as");
        }
      }
    }
  }

  private static boolean sameClass(String a, String b) {
    return a == null || b == null
        ? Objects.equals(a, b)
        : StateClassLayout.unboxed(a).equals(StateClassLayout.unboxed(b));
  }

  private static String kind(String kind) {
    return KINDS.getOrDefault(kind, kind);
  }

  private static String className(String name) {
    return name == null ? "(none: a codec of the operator's own)" : name;
  }
}
