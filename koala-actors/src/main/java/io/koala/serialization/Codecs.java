package io.koala.serialization;

import io.koala.state.Codec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Codecs for state values: fixed binary forms for common JDK types; records and plain classes field
 * by field, by name, so that their classes can gain and lose fields ({@link FieldsFormat}); Kryo
 * for everything else ({@code Object.class} means "any registered class", written with its class).
 * Messages between tasks do not use these codecs: they stay in Kryo's compact form.
 */
public final class Codecs {
  private Codecs() {}

  /** The codec of {@code type}, backed by {@code serde} when it is not a built-in type. */
  @SuppressWarnings("unchecked")
  public static <T> Codec<T> forClass(Class<T> type, KryoSerde serde) {
    if (type == Long.class || type == long.class) {
      return (Codec<T>) LONG;
    }
    if (type == Integer.class || type == int.class) {
      return (Codec<T>) INT;
    }
    if (type == Double.class || type == double.class) {
      return (Codec<T>) DOUBLE;
    }
    if (type == String.class) {
      return (Codec<T>) STRING;
    }
    if (type == byte[].class) {
      return (Codec<T>) BYTES;
    }
    if (type == Boolean.class || type == boolean.class) {
      return (Codec<T>) BOOLEAN;
    }
    if (type == Object.class) {
      FieldsFormat format = new FieldsFormat(serde);
      return new Codec<>() {
        @Override
        public byte[] encode(T value) {
          return format.encodeAny(value);
        }

        @Override
        public T decode(byte[] bytes) {
          return (T) format.decodeAny(bytes);
        }
      };
    }
    if (!serde.registry().isRegistered(type)) {
      throw KryoSerde.unregistered(type.getName(), null);
    }
    if (FieldsFormat.byFields(serde.kryo().getRegistration(type))) {
      StateClassLayout layout = StateClassLayout.of(type);
      FieldsFormat format = new FieldsFormat(serde);
      return new Codec<>() {
        @Override
        public byte[] encode(T value) {
          return format.encode(value, layout);
        }

        @Override
        public T decode(byte[] bytes) {
          return type.cast(format.decode(bytes, layout));
        }
      };
    }
    return new Codec<>() {
      @Override
      public byte[] encode(T value) {
        return serde.toBytes(value, type);
      }

      @Override
      public T decode(byte[] bytes) {
        return serde.fromBytes(bytes, type);
      }
    };
  }

  /**
   * The fields of {@code type} as its state values record them, when {@link #forClass} writes them
   * field by field (records and plain classes that Kryo's default serializers would write); else
   * {@code null} (built-in, JDK, enum and array types, classes with a serializer of their own, and
   * {@code Object}).
   */
  public static List<FieldType> schemaOf(Class<?> type, KryoSerde serde) {
    if (type.isPrimitive() || type == Object.class || !serde.registry().isRegistered(type)) {
      return null;
    }
    return FieldsFormat.byFields(serde.kryo().getRegistration(type))
        ? StateClassLayout.of(type).schema()
        : null;
  }

  static final Codec<Long> LONG =
      new Codec<>() {
        @Override
        public byte[] encode(Long v) {
          long x = v;
          return new byte[] {
            (byte) (x >>> 56),
            (byte) (x >>> 48),
            (byte) (x >>> 40),
            (byte) (x >>> 32),
            (byte) (x >>> 24),
            (byte) (x >>> 16),
            (byte) (x >>> 8),
            (byte) x
          };
        }

        @Override
        public Long decode(byte[] b) {
          return ByteBuffer.wrap(b).getLong();
        }
      };

  static final Codec<Integer> INT =
      new Codec<>() {
        @Override
        public byte[] encode(Integer v) {
          return ByteBuffer.allocate(4).putInt(v).array();
        }

        @Override
        public Integer decode(byte[] b) {
          return ByteBuffer.wrap(b).getInt();
        }
      };

  static final Codec<Double> DOUBLE =
      new Codec<>() {
        @Override
        public byte[] encode(Double v) {
          return ByteBuffer.allocate(8).putDouble(v).array();
        }

        @Override
        public Double decode(byte[] b) {
          return ByteBuffer.wrap(b).getDouble();
        }
      };

  static final Codec<String> STRING =
      new Codec<>() {
        @Override
        public byte[] encode(String v) {
          return v.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String decode(byte[] b) {
          return new String(b, StandardCharsets.UTF_8);
        }
      };

  static final Codec<byte[]> BYTES =
      new Codec<>() {
        @Override
        public byte[] encode(byte[] v) {
          return v.clone();
        }

        @Override
        public byte[] decode(byte[] b) {
          return b;
        }
      };

  static final Codec<Boolean> BOOLEAN =
      new Codec<>() {
        @Override
        public byte[] encode(Boolean v) {
          return new byte[] {(byte) (v ? 1 : 0)};
        }

        @Override
        public Boolean decode(byte[] b) {
          return b[0] != 0;
        }
      };
}
