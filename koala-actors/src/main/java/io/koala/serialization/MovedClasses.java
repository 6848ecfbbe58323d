package io.koala.serialization;

import java.util.Map;
import java.util.regex.Pattern;

/**
 * Koala's own classes that are serialized and have moved to another package: what was written under
 * the former name still reads. A class keeps the id of its former name ({@link TypeRegistry#idOf}),
 * and a state schema that recorded a field or value of the former name reads as one of the current
 * name ({@link StateClassLayout#readableAs}).
 */
final class MovedClasses {
  private MovedClasses() {}

  /** Current name → former name. */
  private static final Map<String, String> FORMER =
      Map.of(
          "io.koala.window.TimeWindow", "io.koala.function.TimeWindow",
          "io.koala.window.WindowResult", "io.koala.function.WindowResult");

  /** The name whose hash is {@code type}'s id: its former name if it moved, else its name. */
  static String idName(Class<?> type) {
    return FORMER.getOrDefault(type.getName(), type.getName());
  }

  /**
   * {@code typeName} (a generic type name, as a schema records it) with every former name in it
   * replaced by the current one.
   */
  static String current(String typeName) {
    if (typeName == null || !typeName.contains("io.koala.function.")) {
      return typeName;
    }
    String out = typeName;
    for (Map.Entry<String, String> e : FORMER.entrySet()) {
      out = out.replaceAll("\\b" + Pattern.quote(e.getValue()) + "\\b", e.getKey());
    }
    return out;
  }
}
