package io.koala.bench.upgrade;

import io.koala.function.KeyedProcessFunction;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * The two versions of the upgrade experiment's state class {@code
 * io.koala.samples.upgrade.state.Totals} and of the keyed function that keeps it: one class name,
 * two definitions, as an upgraded job has. Each version is compiled from source when the experiment
 * runs and loaded by a class loader of its own, so both live in one process.
 *
 * <ul>
 *   <li>Version 1: {@code record Totals(long count, long sum, String lastRegion)}.
 *   <li>Version 2: {@code record Totals(long count, long sum, long maxAmount)}: {@code maxAmount}
 *       added (0 in state version 1 wrote), {@code lastRegion} removed.
 * </ul>
 */
public final class StateClassVersions {
  /** The state class's name in both versions. */
  public static final String TOTALS = "io.koala.samples.upgrade.state.Totals";

  private static final String FUNCTION = "io.koala.samples.upgrade.state.TotalsFunction";

  private static final String FUNCTION_SOURCE =
      """
      package io.koala.samples.upgrade.state;

      import io.koala.function.Collector;
      import io.koala.function.KeyedProcessFunction;
      import io.koala.bench.upgrade.OrderTotals.Order;
      import io.koala.bench.upgrade.OrderTotals.Total;
      import io.koala.state.KeyedStateContext;
      import io.koala.state.ValueState;

      public final class TotalsFunction extends KeyedProcessFunction<Long, Order, Total> {
        private ValueState<Totals> totals;

        @Override
        public void open(KeyedStateContext ctx) {
          totals = ctx.valueState("totals", Totals.class);
        }

        @Override
        public void process(Order o, Context<Long> ctx, Collector<Total> out) {
          Totals t = totals.value();
          Totals next = %s;
          totals.update(next);
          out.collect(new Total(o.customer(), next.count(), next.sum()));
        }
      }
      """;

  private static final Map<Integer, List<String>> VERSIONS =
      Map.of(
          1,
          List.of(
              "package io.koala.samples.upgrade.state;\n"
                  + "public record Totals(long count, long sum, String lastRegion) {}\n",
              FUNCTION_SOURCE.formatted(
                  "t == null ? new Totals(1, o.amount(), o.region())"
                      + " : new Totals(t.count() + 1, t.sum() + o.amount(), o.region())")),
          2,
          List.of(
              "package io.koala.samples.upgrade.state;\n"
                  + "public record Totals(long count, long sum, long maxAmount) {}\n",
              FUNCTION_SOURCE.formatted(
                  "t == null ? new Totals(1, o.amount(), o.amount())"
                      + " : new Totals(t.count() + 1, t.sum() + o.amount(),"
                      + " Math.max(t.maxAmount(), o.amount()))")));

  private final Class<?> totals;
  private final Class<?> function;

  private StateClassVersions(ClassLoader loader) throws ClassNotFoundException {
    this.totals = Class.forName(TOTALS, true, loader);
    this.function = Class.forName(FUNCTION, true, loader);
  }

  /**
   * Version {@code version} (1 or 2), compiled into {@code dir} (which must stay until the job
   * ends: the loader reads its classes from there).
   */
  public static StateClassVersions compile(int version, Path dir) {
    List<String> sources = VERSIONS.get(version);
    if (sources == null) {
      throw new IllegalArgumentException("no version " + version + " of the state class");
    }
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    if (javac == null) {
      throw new IllegalStateException(
          "the upgrade experiment compiles its two versions of the state class when it runs, and"
              + " this Java runtime has no compiler: run it with a JDK");
    }
    try {
      List<Path> files = new ArrayList<>();
      for (String source : sources) {
        String simple = source.contains("record Totals") ? "Totals" : "TotalsFunction";
        Path file = dir.resolve("io/koala/samples/upgrade/state/" + simple + ".java");
        Files.createDirectories(file.getParent());
        Files.writeString(file, source);
        files.add(file);
      }
      StringWriter errors = new StringWriter();
      boolean ok =
          javac
              .getTask(
                  errors,
                  null,
                  null,
                  List.of(
                      "-d", dir.toString(), "-classpath", System.getProperty("java.class.path")),
                  null,
                  javac
                      .getStandardFileManager(null, null, null)
                      .getJavaFileObjects(files.toArray(Path[]::new)))
              .call();
      if (!ok) {
        throw new IllegalStateException("cannot compile version " + version + ":\n" + errors);
      }
      return new StateClassVersions(
          new URLClassLoader(
              new URL[] {dir.toUri().toURL()}, StateClassVersions.class.getClassLoader()));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot compile version " + version + " into " + dir, e);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException("version " + version + " compiled without " + e, e);
    }
  }

  /** This version's state class, to register. */
  public Class<?> totals() {
    return totals;
  }

  /** A fresh keyed function of this version, per task. */
  @SuppressWarnings("unchecked")
  public Supplier<KeyedProcessFunction<Long, OrderTotals.Order, OrderTotals.Total>> function() {
    return () -> {
      try {
        return (KeyedProcessFunction<Long, OrderTotals.Order, OrderTotals.Total>)
            function.getConstructor().newInstance();
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("cannot make " + FUNCTION, e);
      }
    };
  }
}
