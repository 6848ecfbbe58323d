package io.koala.channel;

import io.koala.protocol.ChannelSettings;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * An estimate of a value's serialized size, to bound batches by bytes below the transport's frame
 * size: exact-ish for strings, arrays and boxed primitives; records and plain objects are the sum
 * of their fields (field readers cached per class), collections and maps their size times the first
 * element's estimate. Nesting is followed three levels deep; deeper values count a flat 64 bytes.
 * Over-estimating is harmless (smaller batches); the serializer refuses anything over the frame.
 * Tasks measure the records they keep waiting with it too (their byte budget, DESIGN §4.2, D5).
 */
public final class SizeEstimate {
  static final int OBJECT = 64;
  private static final int MAX_DEPTH = 3;

  private static final ClassValue<MethodHandle[]> FIELDS =
      new ClassValue<>() {
        @Override
        protected MethodHandle[] computeValue(Class<?> type) {
          return readers(type);
        }
      };

  private SizeEstimate() {}

  /** The estimated serialized size of {@code v}, in bytes. */
  public static int of(Object v) {
    return of(v, 0);
  }

  /**
   * Why a record of class {@code type} whose estimated size is {@code estimate} cannot travel
   * between tasks, or null when it can: records are limited to {@link
   * ChannelSettings#MAX_RECORD_BYTES}.
   */
  public static String oversized(Class<?> type, int estimate) {
    if (estimate <= ChannelSettings.MAX_RECORD_BYTES) {
      return null;
    }
    return String.format(
        java.util.Locale.ROOT,
        "a %s of about %,d bytes; records are limited to %,d bytes (half of a message frame)",
        type.getName(),
        estimate,
        ChannelSettings.MAX_RECORD_BYTES);
  }

  private static int of(Object v, int depth) {
    if (v == null) {
      return 1;
    }
    if (v instanceof Number || v instanceof Boolean || v instanceof Character) {
      return 9;
    }
    if (v instanceof String s) {
      return 4 + s.length();
    }
    if (v instanceof byte[] b) {
      return 4 + b.length;
    }
    if (depth >= MAX_DEPTH) {
      return OBJECT;
    }
    if (v instanceof Collection<?> c) {
      return 4 + (c.isEmpty() ? 0 : c.size() * of(c.iterator().next(), depth + 1));
    }
    if (v instanceof Map<?, ?> m) {
      if (m.isEmpty()) {
        return 4;
      }
      Map.Entry<?, ?> e = m.entrySet().iterator().next();
      return 4 + m.size() * (of(e.getKey(), depth + 1) + of(e.getValue(), depth + 1));
    }
    if (v.getClass().isArray()) {
      return 4 + java.lang.reflect.Array.getLength(v) * 8;
    }
    MethodHandle[] fields = FIELDS.get(v.getClass());
    if (fields == null) {
      return OBJECT;
    }
    int size = 4;
    for (MethodHandle f : fields) {
      try {
        size += of(f.invoke(v), depth + 1);
      } catch (Throwable e) {
        return OBJECT;
      }
    }
    return size;
  }

  /** Readers of the instance fields of {@code type}, or {@code null} if they cannot be read. */
  private static MethodHandle[] readers(Class<?> type) {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      List<MethodHandle> out = new ArrayList<>();
      if (type.isRecord()) {
        for (RecordComponent c : type.getRecordComponents()) {
          c.getAccessor().setAccessible(true);
          out.add(lookup.unreflect(c.getAccessor()));
        }
      } else {
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
          for (Field f : c.getDeclaredFields()) {
            if (!Modifier.isStatic(f.getModifiers())) {
              f.setAccessible(true);
              out.add(lookup.unreflectGetter(f));
            }
          }
        }
      }
      return out.toArray(new MethodHandle[0]);
    } catch (RuntimeException | IllegalAccessException e) {
      return null; // e.g. JDK internals closed to reflection: a flat estimate will do
    }
  }
}
