package io.koala.serialization;

import java.io.IOException;
import java.io.StringWriter;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Versions of one class, compiled from source in the test and each loaded by a class loader of its
 * own: so a test can write state with one version of a class and read it with another of the same
 * name, as an upgraded job does.
 */
public final class ClassVersions {
  private static final Map<String, Class<?>> COMPILED = new ConcurrentHashMap<>();

  private ClassVersions() {}

  /**
   * Compiles {@code source}, the source of public class {@code name}, and loads it with a loader of
   * its own (once per source: the same source gives the same class).
   */
  public static Class<?> compile(String name, String source) throws Exception {
    Class<?> done = COMPILED.get(source);
    if (done == null) {
      done = load(name, source);
      COMPILED.putIfAbsent(source, done);
    }
    return COMPILED.get(source);
  }

  private static Class<?> load(String name, String source) throws Exception {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    Path dir = Files.createTempDirectory("koala-class-version");
    try {
      Path file = dir.resolve(name.replace('.', '/') + ".java");
      Files.createDirectories(file.getParent());
      Files.writeString(file, source);
      StringWriter errors = new StringWriter();
      boolean ok =
          javac
              .getTask(
                  errors,
                  null,
                  null,
                  java.util.List.of("-d", dir.toString()),
                  null,
                  javac.getStandardFileManager(null, null, null).getJavaFileObjects(file))
              .call();
      if (!ok) {
        throw new IllegalArgumentException("cannot compile " + name + ":\n" + errors);
      }
      URLClassLoader loader =
          new URLClassLoader(new URL[] {dir.toUri().toURL()}, ClassVersions.class.getClassLoader());
      return Class.forName(name, true, loader);
    } finally {
      delete(dir);
    }
  }

  /** A new {@code type} from its constructor taking {@code args.length} arguments. */
  public static Object make(Class<?> type, Object... args) throws Exception {
    for (Constructor<?> c : type.getDeclaredConstructors()) {
      if (c.getParameterCount() == args.length) {
        c.setAccessible(true);
        return c.newInstance(args);
      }
    }
    throw new IllegalArgumentException(type + " has no constructor of " + args.length);
  }

  /** The value of field {@code name} of {@code o}. */
  public static Object get(Object o, String name) throws Exception {
    Field f = o.getClass().getDeclaredField(name);
    f.setAccessible(true);
    return f.get(o);
  }

  private static void delete(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
