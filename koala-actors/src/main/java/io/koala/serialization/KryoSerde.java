package io.koala.serialization;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Serializes values with a Kryo instance of a {@link TypeRegistry}. Not thread-safe: one per task
 * (tasks are confined to one thread at a time). Failures become {@link SerializationException}s
 * that name the class and how to register it.
 */
public final class KryoSerde {
  private static final Pattern UNREGISTERED = Pattern.compile("Class is not registered: (\\S+)");
  private static final Pattern TOO_DEEP = Pattern.compile("Max depth exceeded: (\\d+)");
  private static final Pattern TRACE_ENTRY = Pattern.compile("(?m)^\\S+ \\(([\\w.$]+)\\)$");

  private final TypeRegistry registry;
  private final Kryo kryo;
  private final Output output = new Output(256, -1);
  private final Input input = new Input();
  private int version;

  public KryoSerde(TypeRegistry registry) {
    this.registry = registry;
    this.kryo = registry.newKryo();
    // unknown: a registration may have happened between newKryo() and now, so the first use
    // catches up (reading registry.version() here could skip it for good)
    this.version = -1;
  }

  /** The registry this serde draws its classes from. */
  public TypeRegistry registry() {
    return registry;
  }

  /** Serializes {@code value} together with its class. */
  public byte[] toBytes(Object value) {
    refresh();
    output.reset();
    try {
      kryo.writeClassAndObject(output, value);
    } catch (RuntimeException e) {
      throw translate(e, value == null ? "null" : value.getClass().getName());
    }
    return output.toBytes();
  }

  /** Deserializes a value written by {@link #toBytes(Object)}. */
  public Object fromBytes(byte[] bytes) {
    refresh();
    input.setBuffer(bytes);
    try {
      return kryo.readClassAndObject(input);
    } catch (RuntimeException e) {
      throw translate(e, "a value");
    }
  }

  /** Serializes {@code value} as an instance of exactly {@code type} (no class on the wire). */
  public <T> byte[] toBytes(T value, Class<T> type) {
    refresh();
    output.reset();
    try {
      kryo.writeObject(output, value);
    } catch (RuntimeException e) {
      throw translate(e, type.getName());
    }
    return output.toBytes();
  }

  /** Deserializes a value written by {@link #toBytes(Object, Class)}. */
  public <T> T fromBytes(byte[] bytes, Class<T> type) {
    refresh();
    input.setBuffer(bytes);
    try {
      return kryo.readObject(input, type);
    } catch (RuntimeException e) {
      throw translate(e, type.getName());
    }
  }

  /** The Kryo instance, for serializers that stream into their own buffers. */
  public Kryo kryo() {
    refresh();
    return kryo;
  }

  private void refresh() {
    if (version != registry.version()) {
      version = registry.refresh(kryo, version);
    }
  }

  /** Turns a Kryo failure into an error that says what to register. */
  public static SerializationException translate(RuntimeException e, String subject) {
    if (e instanceof SerializationException se) {
      return se;
    }
    Throwable t = e;
    while (t != null) {
      String message = String.valueOf(t.getMessage());
      Matcher m = UNREGISTERED.matcher(message);
      if (m.find()) {
        return unregistered(m.group(1), e);
      }
      Matcher deep = TOO_DEEP.matcher(message);
      if (deep.find()) {
        return tooDeep(subject, Integer.parseInt(deep.group(1)), e);
      }
      t = t.getCause();
    }
    String what = e instanceof KryoException ? "Kryo" : e.getClass().getSimpleName();
    return new SerializationException(
        "cannot serialize " + subject + " (" + what + ": " + e.getMessage() + ")", e);
  }

  /**
   * The error for a value nested deeper than the registry's {@link TypeRegistry#maxDepth()}, in
   * either direction. Kryo's own message carries a serialization trace as long as the graph is
   * deep; this one names the class and the limit only: {@code subject} when it is a class, else the
   * outermost class of the trace (a value being read is known only from there).
   */
  static SerializationException tooDeep(String subject, int limit, Throwable cause) {
    String what = subject;
    if (subject.startsWith("a ")) {
      String traced = outermostTraced(cause);
      if (traced != null) {
        what = subject + " (" + traced + ")";
      }
    }
    return new SerializationException(
        what
            + " nests objects more than "
            + limit
            + " levels deep, beyond koala.serialization.max-depth = "
            + limit
            + ", so Koala's serializer refuses it (a record, list or map inside another is one"
            + " level down; a linked chain or a tree of records nests one level per element:"
            + " flatten it into a list, or raise the limit)",
        cause);
  }

  /** The last, outermost, class of Kryo's serialization trace in {@code e}'s message, or null. */
  private static String outermostTraced(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String message = String.valueOf(t.getMessage());
      int at = message.indexOf("Serialization trace:");
      if (at >= 0) {
        String last = null;
        Matcher m = TRACE_ENTRY.matcher(message.substring(at));
        while (m.find()) {
          last = m.group(1);
        }
        if (last != null) {
          return last;
        }
      }
    }
    return null;
  }

  /** The error for a class that is not registered. */
  public static SerializationException unregistered(String className, Throwable cause) {
    return new SerializationException(
        "class "
            + className
            + " is not registered with Koala's serializer; register it with"
            + " DataflowBuilder.registerTypes("
            + className.replace('$', '.')
            + ".class) or list it in the configuration at koala.serialization.types",
        cause);
  }
}
