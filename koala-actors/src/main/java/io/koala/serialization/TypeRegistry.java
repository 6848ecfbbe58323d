package io.koala.serialization;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Registration;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.serializers.DefaultSerializers;
import com.esotericsoftware.kryo.serializers.ImmutableCollectionsSerializers;
import com.esotericsoftware.kryo.util.DefaultClassResolver;
import io.koala.function.KeyValue;
import io.koala.routing.Murmur3;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The classes Koala's Kryo serialization accepts (registration is required: an unknown class is an
 * error, never a class name on the wire). A class's id is derived from its name ({@code 1000 +
 * murmur3(name) mod 2^24}), so every node that registers the same class agrees on its id whatever
 * the order of registration; two names with the same id are rejected at registration.
 *
 * <p>Thread-safe. Kryo instances made by {@link #newKryo()} pick up later registrations through
 * {@link #refresh(Kryo, int)}.
 */
public final class TypeRegistry {
  private static final int FIRST_ID = 1000;
  private static final int ID_SPACE = 1 << 24;

  /**
   * The deepest object graph a registry's Kryo instances write or read unless told otherwise, as
   * {@code koala.serialization.max-depth} documents it.
   */
  public static final int DEFAULT_MAX_DEPTH = 64;

  /** The least {@link #setMaxDepth} allows: Koala's own messages nest up to 10 levels. */
  public static final int MIN_MAX_DEPTH = 16;

  /** The most {@link #setMaxDepth} allows: deeper recursion risks a task thread's stack. */
  public static final int MAX_MAX_DEPTH = 1024;

  private final Map<Class<?>, Integer> ids = new ConcurrentHashMap<>();
  private final Map<Integer, Class<?>> classes = new ConcurrentHashMap<>();
  private final Map<Class<?>, Function<TypeRegistry, Serializer<?>>> serializers =
      new ConcurrentHashMap<>();
  private final Map<Class<?>, Class<?>> aliases = new ConcurrentHashMap<>();
  private volatile int maxDepth = DEFAULT_MAX_DEPTH;
  private volatile int version;
  private Kryo template; // guarded by this
  private int templateVersion; // guarded by this

  private TypeRegistry() {}

  /** A registry holding the JDK types records commonly use and Koala's own value types. */
  public static TypeRegistry withDefaults() {
    TypeRegistry r = new TypeRegistry();
    r.register(
        byte[].class,
        int[].class,
        long[].class,
        double[].class,
        float[].class,
        boolean[].class,
        char[].class,
        short[].class,
        Object[].class,
        String[].class,
        BigInteger.class,
        BigDecimal.class,
        ArrayList.class,
        LinkedList.class,
        ArrayDeque.class,
        HashMap.class,
        LinkedHashMap.class,
        TreeMap.class,
        HashSet.class,
        LinkedHashSet.class,
        TreeSet.class,
        java.time.Instant.class,
        java.time.Duration.class,
        java.time.LocalDate.class,
        java.time.LocalDateTime.class,
        KeyValue.class,
        io.koala.window.WindowResult.class,
        io.koala.window.TimeWindow.class);
    r.register(UUID.class, x -> new DefaultSerializers.UUIDSerializer());
    // Kryo has default serializers for these JDK classes; they only need registering.
    r.register(
        Collections.emptyList().getClass(),
        Collections.emptySet().getClass(),
        Collections.emptyMap().getClass(),
        Collections.singletonList(0).getClass(),
        Collections.singleton(0).getClass(),
        Collections.singletonMap(0, 0).getClass());
    return r;
  }

  /** The id a class gets from its name (its former name, for a class of Koala's that moved). */
  public static int idOf(Class<?> type) {
    byte[] name = MovedClasses.idName(type).getBytes(StandardCharsets.UTF_8);
    return FIRST_ID + (Murmur3.hash32(name) & (ID_SPACE - 1));
  }

  /**
   * Registers classes with Kryo's default serializer for them (records, enums and plain classes
   * with fields of registered types all work).
   *
   * @throws SerializationException when two different class names map to the same id
   */
  public void register(Class<?>... types) {
    for (Class<?> t : types) {
      add(t, null);
    }
  }

  /** Registers a class with its own Kryo serializer, built for each Kryo instance. */
  public <T> void register(Class<T> type, Function<TypeRegistry, Serializer<?>> serializer) {
    add(type, serializer);
  }

  /**
   * Makes every subclass of {@code base} serialize as {@code base} (for interface-typed values such
   * as actor references, whose implementation classes are internal).
   */
  public void alias(Class<?> base) {
    if (!ids.containsKey(base)) {
      throw new IllegalStateException(base.getName() + " must be registered before aliasing");
    }
    aliases.put(base, base);
    synchronized (this) {
      version++;
    }
  }

  private synchronized void add(Class<?> type, Function<TypeRegistry, Serializer<?>> serializer) {
    if (type.isPrimitive()) {
      return;
    }
    Integer existing = ids.get(type);
    if (existing != null) {
      if (serializer != null) {
        serializers.put(type, serializer);
        version++;
      }
      return;
    }
    int id = idOf(type);
    Class<?> other = classes.get(id);
    if (other != null) {
      throw new SerializationException(
          "classes "
              + other.getName()
              + " and "
              + type.getName()
              + " have the same serialization id "
              + id
              + "; rename one of them");
    }
    ids.put(type, id);
    classes.put(id, type);
    if (serializer != null) {
      serializers.put(type, serializer);
    }
    version++;
  }

  /**
   * Whether values of exactly this class can be serialized: asks a Kryo instance configured like
   * every other, so the answer never promises what serialization then refuses.
   */
  public synchronized boolean isRegistered(Class<?> type) {
    if (type.isPrimitive()) {
      return true;
    }
    if (template == null) {
      template = newKryo();
      templateVersion = version;
    }
    templateVersion = refresh(template, templateVersion);
    try {
      template.getRegistration(type);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /**
   * Bounds the object graphs this registry's Kryo instances write and read to {@code depth} levels
   * (Kryo counts one for every object written inside another); a deeper value fails with a {@link
   * SerializationException} naming its class and the limit, and a deeper message received is
   * refused before it can exhaust the stack. Instances made before pick it up with their next
   * {@link #refresh(Kryo, int)}.
   *
   * @throws IllegalArgumentException when {@code depth} is outside [{@link #MIN_MAX_DEPTH}, {@link
   *     #MAX_MAX_DEPTH}]
   */
  public synchronized void setMaxDepth(int depth) {
    if (depth < MIN_MAX_DEPTH || depth > MAX_MAX_DEPTH) {
      throw new IllegalArgumentException(
          "max depth "
              + depth
              + " is out of range; allowed: ["
              + MIN_MAX_DEPTH
              + ", "
              + MAX_MAX_DEPTH
              + "]");
    }
    if (depth != maxDepth) {
      maxDepth = depth;
      version++;
    }
  }

  /** The deepest object graph this registry's Kryo instances write or read. */
  public int maxDepth() {
    return maxDepth;
  }

  /** Registration version; grows with every change. */
  public int version() {
    return version;
  }

  /** A Kryo instance with every class registered so far; not thread-safe. */
  public Kryo newKryo() {
    Kryo kryo = new Kryo(new AliasingClassResolver(), null);
    kryo.setRegistrationRequired(true);
    kryo.setReferences(false);
    ImmutableCollectionsSerializers.addDefaultSerializers(kryo);
    ImmutableCollectionsSerializers.registerSerializers(kryo);
    refresh(kryo, -1);
    return kryo;
  }

  /**
   * Registers with {@code kryo} everything added since {@code knownVersion}.
   *
   * @return the version {@code kryo} is now at
   */
  public synchronized int refresh(Kryo kryo, int knownVersion) {
    if (knownVersion == version) {
      return version;
    }
    kryo.setMaxDepth(maxDepth);
    ((AliasingClassResolver) kryo.getClassResolver()).aliases = Map.copyOf(aliases);
    for (Map.Entry<Class<?>, Integer> e : ids.entrySet()) {
      Registration current = kryo.getClassResolver().getRegistration(e.getKey());
      Function<TypeRegistry, Serializer<?>> custom = serializers.get(e.getKey());
      if (current != null && custom == null) {
        continue;
      }
      if (custom != null) {
        kryo.register(e.getKey(), custom.apply(this), e.getValue());
      } else {
        kryo.register(e.getKey(), e.getValue());
      }
    }
    return version;
  }

  /** Resolves subclasses of aliased base types to the base type's registration. */
  private static final class AliasingClassResolver extends DefaultClassResolver {
    volatile Map<Class<?>, Class<?>> aliases = Map.of();

    @Override
    @SuppressWarnings("rawtypes")
    public Registration getRegistration(Class type) {
      Registration r = super.getRegistration(type);
      if (r == null) {
        for (Class<?> base : aliases.keySet()) {
          if (base.isAssignableFrom(type)) {
            return super.getRegistration(base);
          }
        }
      }
      return r;
    }
  }
}
