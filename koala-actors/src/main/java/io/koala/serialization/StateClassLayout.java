package io.koala.serialization;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The fields of a state class that {@link FieldsFormat} writes by name: a record's components, or
 * an ordinary class's non-static, non-transient fields (its superclasses' included). Built once per
 * class by reflection and cached ({@link #of}); the per-value work touches only what is cached
 * here.
 *
 * <p>A record that declares a static no-argument method named {@value #DEFAULTS_METHOD} returning
 * the record gets, for a component its stored value lacks, that component of the instance the
 * method returns; otherwise such a component gets {@code null}, 0 or {@code false}. An ordinary
 * class is made with its no-argument constructor, so a field the stored value lacks keeps what the
 * constructor gave it.
 */
public final class StateClassLayout {
  /** The name of a record's optional static method giving the defaults of components added. */
  public static final String DEFAULTS_METHOD = "stateDefaults";

  private static final ClassValue<StateClassLayout> LAYOUTS =
      new ClassValue<>() {
        @Override
        protected StateClassLayout computeValue(Class<?> type) {
          return new StateClassLayout(type);
        }
      };

  /** Lossless widenings of a field's type the stored state may be read as (primitive names). */
  private static final Map<String, Set<String>> WIDENINGS =
      Map.of(
          "byte", Set.of("short", "int", "long", "float", "double"),
          "short", Set.of("int", "long", "float", "double"),
          "char", Set.of("int", "long", "float", "double"),
          "int", Set.of("long", "double"),
          "float", Set.of("double"));

  private static final Map<String, String> UNBOXED =
      Map.of(
          "java.lang.Boolean", "boolean",
          "java.lang.Byte", "byte",
          "java.lang.Character", "char",
          "java.lang.Short", "short",
          "java.lang.Integer", "int",
          "java.lang.Long", "long",
          "java.lang.Float", "float",
          "java.lang.Double", "double");

  /** One field: its name, how it is reached, and its type. */
  static final class Slot {
    final String name;
    final byte[] nameBytes; // UTF-8
    final Field field;
    final Class<?> type;
    final String typeName; // generic, as in the schema
    final byte tag; // FieldsFormat's tag of a primitive field, else 0

    Slot(String name, Field field) {
      this.name = name;
      this.nameBytes = name.getBytes(StandardCharsets.UTF_8);
      this.field = field;
      this.type = field.getType();
      this.typeName = field.getGenericType().getTypeName();
      this.tag = type.isPrimitive() ? FieldsFormat.tagOf(type) : 0;
    }
  }

  final Class<?> type;
  final boolean record;
  final Slot[] slots;
  private final Map<String, Integer> byName = new HashMap<>();
  private final Constructor<?> constructor; // canonical for a record, else no-argument
  private final Method defaults; // a record's stateDefaults(), or null
  private final List<FieldType> schema;

  private StateClassLayout(Class<?> type) {
    this.type = type;
    this.record = type.isRecord();
    List<Slot> found = new ArrayList<>();
    try {
      if (record) {
        RecordComponent[] components = type.getRecordComponents();
        Class<?>[] types = new Class<?>[components.length];
        for (int i = 0; i < components.length; i++) {
          found.add(new Slot(components[i].getName(), accessible(components[i].getName())));
          types[i] = components[i].getType();
        }
        constructor = type.getDeclaredConstructor(types);
        defaults = defaultsMethod(type);
      } else {
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
          List<Slot> own = new ArrayList<>();
          for (Field f : c.getDeclaredFields()) {
            int m = f.getModifiers();
            if (!Modifier.isStatic(m) && !Modifier.isTransient(m) && !f.isSynthetic()) {
              f.setAccessible(true);
              own.add(new Slot(f.getName(), f));
            }
          }
          found.addAll(0, own);
        }
        constructor = type.getDeclaredConstructor();
        defaults = null;
      }
      constructor.setAccessible(true);
    } catch (NoSuchMethodException e) {
      throw new SerializationException(
          "state class "
              + type.getName()
              + " has no no-argument constructor; Koala writes the state of a class that is not"
              + " a record field by field and makes its values with that constructor: add one",
          e);
    } catch (NoSuchFieldException | RuntimeException e) {
      throw new SerializationException(
          "cannot read the fields of state class " + type.getName() + ": " + e, e);
    }
    this.slots = found.toArray(new Slot[0]);
    List<FieldType> s = new ArrayList<>(slots.length);
    for (int i = 0; i < slots.length; i++) {
      Integer other = byName.put(slots[i].name, i);
      if (other != null) {
        throw new SerializationException(
            "state class "
                + type.getName()
                + " has two fields named '"
                + slots[i].name
                + "' (one in a superclass); Koala writes state field by field, by name: rename"
                + " one");
      }
      s.add(new FieldType(slots[i].name, slots[i].typeName));
    }
    this.schema = List.copyOf(s);
  }

  private Field accessible(String name) throws NoSuchFieldException {
    Field f = type.getDeclaredField(name);
    f.setAccessible(true);
    return f;
  }

  private static Method defaultsMethod(Class<?> type) {
    Method m;
    try {
      m = type.getDeclaredMethod(DEFAULTS_METHOD);
    } catch (NoSuchMethodException e) {
      return null;
    }
    if (!Modifier.isStatic(m.getModifiers()) || m.getReturnType() != type) {
      throw new SerializationException(
          "state class "
              + type.getName()
              + " declares "
              + DEFAULTS_METHOD
              + "() but it is not static or does not return "
              + type.getSimpleName()
              + ": Koala takes the defaults of components added to a state record from a static"
              + " no-argument method of that name returning the record");
    }
    m.setAccessible(true);
    return m;
  }

  /** The layout of {@code type}, built once. */
  public static StateClassLayout of(Class<?> type) {
    return LAYOUTS.get(type);
  }

  /** The fields, by name and (generic) type name, in declaration order. */
  public List<FieldType> schema() {
    return schema;
  }

  /** The index of the field named by {@code length} UTF-8 bytes of {@code buf} at {@code at}. */
  int indexOf(byte[] buf, int at, int length, int expected) {
    if (expected < slots.length
        && java.util.Arrays.equals(
            buf, at, at + length, slots[expected].nameBytes, 0, slots[expected].nameBytes.length)) {
      return expected;
    }
    Integer i = byName.get(new String(buf, at, length, StandardCharsets.UTF_8));
    return i == null ? -1 : i;
  }

  /**
   * A value made of {@code values} (by slot; {@code present[i]} when the stored value had field
   * {@code i}): a record gets defaults for the rest, an ordinary class keeps its constructor's.
   */
  Object make(Object[] values, boolean[] present, int presentCount) {
    try {
      if (record) {
        if (presentCount < slots.length) {
          Object dflt = defaults == null ? null : defaults.invoke(null);
          for (int i = 0; i < slots.length; i++) {
            if (!present[i] && dflt != null) {
              values[i] = slots[i].field.get(dflt);
            }
          }
        }
        for (int i = 0; i < slots.length; i++) {
          if (values[i] == null && slots[i].type.isPrimitive()) {
            values[i] = FieldsFormat.zero(slots[i].type);
          }
        }
        return constructor.newInstance(values);
      }
      Object o = constructor.newInstance();
      for (int i = 0; i < slots.length; i++) {
        if (present[i] && (values[i] != null || !slots[i].type.isPrimitive())) {
          slots[i].field.set(o, values[i]);
        }
      }
      return o;
    } catch (InvocationTargetException e) {
      throw new SerializationException(
          "cannot make a " + type.getName() + " from its stored state: " + e.getCause(),
          e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new SerializationException(
          "cannot make a " + type.getName() + " from its stored state: " + e, e);
    }
  }

  /**
   * Whether a field stored as type {@code from} can be read as type {@code to} (generic type
   * names): the same type, a primitive and its box either way, or a lossless widening ({@code byte
   * → short → int → long}, {@code char → int}, {@code int → double}, {@code float → double}, and
   * the like; never {@code long → double}). A class of Koala's that moved reads under its former
   * name.
   */
  public static boolean readableAs(String from, String to) {
    String f = unboxed(from);
    String t = unboxed(to);
    return f.equals(t) || WIDENINGS.getOrDefault(f, Set.of()).contains(t);
  }

  /**
   * The primitive type name of a box's name ({@code java.lang.Long → long}), else the name, with a
   * moved class of Koala's under its current name: the name two recorded types compare by.
   */
  public static String unboxed(String typeName) {
    String current = MovedClasses.current(typeName);
    return UNBOXED.getOrDefault(current, current);
  }
}
