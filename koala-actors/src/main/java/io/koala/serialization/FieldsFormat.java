package io.koala.serialization;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Registration;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.serializers.FieldSerializer;
import com.esotericsoftware.kryo.serializers.RecordSerializer;
import io.koala.serialization.StateClassLayout.Slot;

/**
 * The evolvable encoding of state values of user classes: each field written with its name, so a
 * value is read by name into the class as it is now (a field the class gained gets its default, a
 * field it lost is skipped). Nested values of a field are written by Kryo, as messages are.
 *
 * <p>Layout, version 1: a format byte ({@link #FIELDS}, or {@link #ANY_FIELDS} / {@link #ANY_KRYO}
 * for values of {@code Object}-typed state, which carry their class as Kryo's registration id after
 * it), then the field count (varint) and per field: its name (varint length, UTF-8), a tag byte
 * naming how the value is written, and the value: primitives and their boxes fixed-width ({@code Z
 * B C S I J F D}), a {@code String} as Kryo writes it ({@code T}), {@code null} as nothing ({@code
 * N}), anything else as a varint length followed by Kryo's class and object ({@code L}). Every
 * value is self-delimiting, so a field the class lost is skipped unread.
 *
 * <p>Not thread-safe: one per task, like the {@link KryoSerde} it draws its Kryo instance from.
 */
final class FieldsFormat {
  /** A value of a class known from the state's declaration, written field by field. */
  static final byte FIELDS = 1;

  /** A value of {@code Object}-typed state, of a class written field by field. */
  static final byte ANY_FIELDS = 2;

  /**
   * A value of {@code Object}-typed state that Kryo writes whole (JDK types, custom serializers).
   */
  static final byte ANY_KRYO = 3;

  private static final byte BOOLEAN = 'Z';
  private static final byte BYTE = 'B';
  private static final byte CHAR = 'C';
  private static final byte SHORT = 'S';
  private static final byte INT = 'I';
  private static final byte LONG = 'J';
  private static final byte FLOAT = 'F';
  private static final byte DOUBLE = 'D';
  private static final byte STRING = 'T';
  private static final byte NULL = 'N';
  private static final byte OBJECT = 'L';

  private final KryoSerde serde;
  private final Output out = new Output(256, -1);
  private final Output nested = new Output(64, -1);
  private final Input input = new Input();

  FieldsFormat(KryoSerde serde) {
    this.serde = serde;
  }

  /**
   * Whether Koala writes state values of the class {@code r} registers field by field: Kryo would
   * write it with its default serializer for records or plain classes, and it is not a JDK class.
   */
  static boolean byFields(Registration r) {
    Class<?> s = r.getSerializer().getClass();
    String name = r.getType().getName();
    return (s == FieldSerializer.class || s == RecordSerializer.class)
        && !java.lang.reflect.Modifier.isAbstract(r.getType().getModifiers())
        && !name.startsWith("java.")
        && !name.startsWith("javax.")
        && !name.startsWith("jdk.");
  }

  /** {@code value} of the class {@code layout} describes, written field by field. */
  byte[] encode(Object value, StateClassLayout layout) {
    if (value.getClass() != layout.type) {
      throw new SerializationException(
          "state declared with class "
              + layout.type.getName()
              + " was given a "
              + value.getClass().getName()
              + ", which it would store as a "
              + layout.type.getSimpleName()
              + ": declare the state with the class of its values, or with Object.class");
    }
    Kryo kryo = serde.kryo();
    out.reset();
    try {
      out.writeByte(FIELDS);
      writeFields(kryo, value, layout);
    } catch (RuntimeException e) {
      throw KryoSerde.translate(e, layout.type.getName());
    }
    return out.toBytes();
  }

  /** A value written by {@link #encode}, read into the class as it is now. */
  Object decode(byte[] bytes, StateClassLayout layout) {
    Kryo kryo = serde.kryo();
    input.setBuffer(bytes);
    try {
      byte format = input.readByte();
      if (format != FIELDS) {
        throw unknownFormat(format, layout.type.getName());
      }
      return readFields(kryo, layout);
    } catch (RuntimeException e) {
      throw KryoSerde.translate(e, layout.type.getName());
    }
  }

  /** {@code value} of any registered class, written with its class. */
  byte[] encodeAny(Object value) {
    Kryo kryo = serde.kryo();
    out.reset();
    try {
      Registration r = kryo.getRegistration(value.getClass());
      if (r.getType() == value.getClass() && byFields(r)) {
        out.writeByte(ANY_FIELDS);
        kryo.writeClass(out, value.getClass());
        writeFields(kryo, value, StateClassLayout.of(r.getType()));
      } else {
        out.writeByte(ANY_KRYO);
        kryo.writeClassAndObject(out, value);
      }
    } catch (RuntimeException e) {
      throw KryoSerde.translate(e, value.getClass().getName());
    }
    return out.toBytes();
  }

  /** A value written by {@link #encodeAny}. */
  Object decodeAny(byte[] bytes) {
    Kryo kryo = serde.kryo();
    input.setBuffer(bytes);
    try {
      byte format = input.readByte();
      if (format == ANY_KRYO) {
        return kryo.readClassAndObject(input);
      }
      if (format != ANY_FIELDS) {
        throw unknownFormat(format, "a value");
      }
      Registration r = kryo.readClass(input);
      return readFields(kryo, StateClassLayout.of(r.getType()));
    } catch (RuntimeException e) {
      throw KryoSerde.translate(e, "a value");
    }
  }

  private static SerializationException unknownFormat(byte format, String what) {
    return new SerializationException(
        "stored state of "
            + what
            + " has format "
            + format
            + ", which this version of Koala does not read (it writes format "
            + FIELDS
            + " to "
            + ANY_KRYO
            + "): was the state written by a newer version of Koala, or not by Koala?");
  }

  private void writeFields(Kryo kryo, Object value, StateClassLayout layout) {
    Slot[] slots = layout.slots;
    out.writeVarInt(slots.length, true);
    try {
      for (Slot s : slots) {
        out.writeVarInt(s.nameBytes.length, true);
        out.writeBytes(s.nameBytes);
        writeValue(kryo, s.tag, s.field.get(value));
      }
    } catch (IllegalAccessException e) {
      throw new SerializationException("cannot read a field of " + layout.type.getName(), e);
    }
  }

  private void writeValue(Kryo kryo, byte primitiveTag, Object v) {
    byte tag = primitiveTag != 0 ? primitiveTag : v == null ? NULL : tagOf(v.getClass());
    out.writeByte(tag);
    switch (tag) {
      case BOOLEAN -> out.writeBoolean((Boolean) v);
      case BYTE -> out.writeByte((Byte) v);
      case CHAR -> out.writeChar((Character) v);
      case SHORT -> out.writeShort((Short) v);
      case INT -> out.writeInt((Integer) v);
      case LONG -> out.writeLong((Long) v);
      case FLOAT -> out.writeFloat((Float) v);
      case DOUBLE -> out.writeDouble((Double) v);
      case STRING -> out.writeString((String) v);
      case NULL -> {}
      default -> {
        nested.reset();
        kryo.writeClassAndObject(nested, v);
        out.writeVarInt(nested.position(), true);
        out.writeBytes(nested.getBuffer(), 0, nested.position());
      }
    }
  }

  private Object readFields(Kryo kryo, StateClassLayout layout) {
    int stored = input.readVarInt(true);
    int n = layout.slots.length;
    Object[] values = new Object[n];
    boolean[] present = new boolean[n];
    int presentCount = 0;
    for (int i = 0; i < stored; i++) {
      int length = input.readVarInt(true);
      int at = input.position();
      int slot = layout.indexOf(input.getBuffer(), at, length, i);
      input.setPosition(at + length);
      byte tag = input.readByte();
      if (slot < 0) {
        skip(tag);
        continue;
      }
      Slot s = layout.slots[slot];
      values[slot] = convert(readValue(kryo, tag), tag, s, layout);
      if (!present[slot]) {
        present[slot] = true;
        presentCount++;
      }
    }
    return layout.make(values, present, presentCount);
  }

  private Object readValue(Kryo kryo, byte tag) {
    return switch (tag) {
      case BOOLEAN -> input.readBoolean();
      case BYTE -> input.readByte();
      case CHAR -> input.readChar();
      case SHORT -> input.readShort();
      case INT -> input.readInt();
      case LONG -> input.readLong();
      case FLOAT -> input.readFloat();
      case DOUBLE -> input.readDouble();
      case STRING -> input.readString();
      case NULL -> null;
      case OBJECT -> {
        int length = input.readVarInt(true);
        int end = input.position() + length;
        Object v = kryo.readClassAndObject(input);
        if (input.position() != end) {
          throw new SerializationException(
              "a stored field's value is " + length + " bytes, but Kryo read a different length");
        }
        yield v;
      }
      default -> throw badTag(tag);
    };
  }

  private void skip(byte tag) {
    switch (tag) {
      case BOOLEAN, BYTE -> input.skip(1);
      case CHAR, SHORT -> input.skip(2);
      case INT, FLOAT -> input.skip(4);
      case LONG, DOUBLE -> input.skip(8);
      case STRING -> input.readString();
      case NULL -> {}
      case OBJECT -> input.skip(input.readVarInt(true));
      default -> throw badTag(tag);
    }
  }

  private static SerializationException badTag(byte tag) {
    return new SerializationException("stored state holds an unknown field tag " + tag);
  }

  /**
   * {@code v}, read with {@code tag}, as a value of the field {@code s}: itself when the field's
   * type takes it, widened when that is lossless ({@link StateClassLayout#readableAs}), else an
   * error (a type change that the compatibility check at open would have refused).
   */
  private static Object convert(Object v, byte tag, Slot s, StateClassLayout layout) {
    if (v == null) {
      return null;
    }
    Class<?> target = s.type.isPrimitive() ? box(s.type) : s.type;
    if (target.isInstance(v)) {
      return v;
    }
    String stored = storedTypeName(tag, v);
    if (tag != OBJECT && tag != STRING && StateClassLayout.readableAs(stored, s.type.getName())) {
      return widen(v, target);
    }
    throw new SerializationException(
        "field '"
            + s.name
            + "' of "
            + layout.type.getName()
            + " was stored as "
            + stored
            + ", which cannot be read as "
            + s.typeName);
  }

  private static Object widen(Object v, Class<?> target) {
    double d = v instanceof Character c ? c : ((Number) v).doubleValue();
    long l = v instanceof Character c ? c : ((Number) v).longValue();
    if (target == Short.class) {
      return (short) l;
    } else if (target == Integer.class) {
      return (int) l;
    } else if (target == Long.class) {
      return l;
    } else if (target == Float.class) {
      return (float) d;
    }
    return d;
  }

  private static String storedTypeName(byte tag, Object v) {
    return switch (tag) {
      case BOOLEAN -> "boolean";
      case BYTE -> "byte";
      case CHAR -> "char";
      case SHORT -> "short";
      case INT -> "int";
      case LONG -> "long";
      case FLOAT -> "float";
      case DOUBLE -> "double";
      default -> v.getClass().getName();
    };
  }

  /** The tag of values of {@code type} (a primitive, its box, or String), or {@link #OBJECT}. */
  static byte tagOf(Class<?> type) {
    if (type == int.class || type == Integer.class) {
      return INT;
    } else if (type == long.class || type == Long.class) {
      return LONG;
    } else if (type == String.class) {
      return STRING;
    } else if (type == double.class || type == Double.class) {
      return DOUBLE;
    } else if (type == boolean.class || type == Boolean.class) {
      return BOOLEAN;
    } else if (type == float.class || type == Float.class) {
      return FLOAT;
    } else if (type == short.class || type == Short.class) {
      return SHORT;
    } else if (type == byte.class || type == Byte.class) {
      return BYTE;
    } else if (type == char.class || type == Character.class) {
      return CHAR;
    }
    return OBJECT;
  }

  private static Class<?> box(Class<?> primitive) {
    return zero(primitive).getClass();
  }

  /** The default value of a primitive field. */
  static Object zero(Class<?> primitive) {
    if (primitive == boolean.class) {
      return false;
    } else if (primitive == char.class) {
      return '\0';
    } else if (primitive == byte.class) {
      return (byte) 0;
    } else if (primitive == short.class) {
      return (short) 0;
    } else if (primitive == int.class) {
      return 0;
    } else if (primitive == long.class) {
      return 0L;
    } else if (primitive == float.class) {
      return 0f;
    }
    return 0d;
  }
}
