package io.koala.connector;

import java.lang.reflect.RecordComponent;
import java.util.Collection;
import java.util.Map;

/**
 * A small JSON encoder for sink output: records become objects of their components, maps objects,
 * collections and arrays lists; strings, numbers, booleans and null are JSON values; anything else
 * becomes its {@code toString()} as a JSON string.
 */
public final class Json {
  private Json() {}

  /** The JSON text of {@code value}. */
  public static String encode(Object value) {
    StringBuilder sb = new StringBuilder();
    append(sb, value);
    return sb.toString();
  }

  /** Appends the JSON text of {@code value} to {@code sb}. */
  public static void append(StringBuilder sb, Object value) {
    if (value == null) {
      sb.append("null");
    } else if (value instanceof String s) {
      string(sb, s);
    } else if (value instanceof Double d && (d.isNaN() || d.isInfinite())) {
      string(sb, d.toString());
    } else if (value instanceof Float f && (f.isNaN() || f.isInfinite())) {
      string(sb, f.toString());
    } else if (value instanceof Number || value instanceof Boolean) {
      sb.append(value);
    } else if (value instanceof Enum<?> e) {
      string(sb, e.name());
    } else if (value instanceof Record r) {
      record(sb, r);
    } else if (value instanceof Map<?, ?> m) {
      sb.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (!first) {
          sb.append(',');
        }
        first = false;
        string(sb, String.valueOf(e.getKey()));
        sb.append(':');
        append(sb, e.getValue());
      }
      sb.append('}');
    } else if (value instanceof Collection<?> c) {
      sb.append('[');
      boolean first = true;
      for (Object o : c) {
        if (!first) {
          sb.append(',');
        }
        first = false;
        append(sb, o);
      }
      sb.append(']');
    } else if (value instanceof Object[] a) {
      append(sb, java.util.Arrays.asList(a));
    } else {
      string(sb, value.toString());
    }
  }

  private static void record(StringBuilder sb, Record r) {
    sb.append('{');
    RecordComponent[] components = r.getClass().getRecordComponents();
    for (int i = 0; i < components.length; i++) {
      if (i > 0) {
        sb.append(',');
      }
      string(sb, components[i].getName());
      sb.append(':');
      try {
        components[i].getAccessor().setAccessible(true);
        append(sb, components[i].getAccessor().invoke(r));
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(
            "cannot read component " + components[i].getName() + " of " + r.getClass(), e);
      }
    }
    sb.append('}');
  }

  private static void string(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    sb.append('"');
  }
}
