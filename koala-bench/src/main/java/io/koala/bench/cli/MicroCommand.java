package io.koala.bench.cli;

import io.koala.bench.experiment.Charts;
import io.koala.bench.klt.KltBench;
import io.koala.connector.Json;
import io.koala.keys.MembershipFilter;
import io.koala.routing.Buckets;
import io.koala.serialization.KeyEncoder;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.TypeRegistry;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.openjdk.jmh.runner.options.TimeValue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code koala experiment micro} (the paper's §5.4): what the key lookup table costs. Its memory:
 * the per-bucket membership filters of tasks holding N keys between them, grown as a task grows
 * them; and the lookup's time per batch, by the JMH benchmark of {@code koala bench klt}. That the
 * state moved stays flat as the total state grows is {@code experiment sweep}.
 */
@Command(
    name = "micro",
    mixinStandardHelpOptions = true,
    description = {
      "Measures the key lookup table: the membership filter's bytes and false-positive rate for"
          + " each key count of --keys-list (keys added one by one, as a task adds them), and the"
          + " lookup time per 1,000-record batch (JMH, as bench klt).",
      "Writes micro.csv and klt-memory.png into --out; the last stdout line is the JSON"
          + " summary."
    })
final class MicroCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin OutputOptions output;

  @Option(
      names = "--keys-list",
      split = ",",
      defaultValue = "1000000,10000000,40000000",
      description = "Key counts to size the filter for (default ${DEFAULT-VALUE}).")
  List<Long> keysList;

  @Option(
      names = "--iterations",
      defaultValue = "3",
      description = "JMH warm-up and measured iterations of 1 s (default ${DEFAULT-VALUE}).")
  int iterations;

  /**
   * A smoke run for tests (hidden): the JMH benchmark in this JVM, with iterations of 100 ms, so
   * that the command runs end to end in seconds; its lookup times mean little.
   */
  @Option(names = "--smoke", hidden = true)
  boolean smoke;

  /** Keys not in a filter probed for its false-positive rate. */
  static final int PROBES = 1_000_000;

  @Override
  public Integer call() throws Exception {
    Path dir = output.dir("micro");
    Files.createDirectories(dir);
    PrintWriter stdout = spec.commandLine().getOut();
    KeyEncoder encoder = new KeyEncoder(new KryoSerde(TypeRegistry.withDefaults()));
    List<String> csv = new ArrayList<>(List.of("keys,filterBytes,bitsPerKey,falsePositiveRate"));
    List<Map<String, Object>> memory = new ArrayList<>();
    List<double[]> points = new ArrayList<>();
    for (long n : keysList) {
      MembershipFilter[] filters = filters(n, encoder);
      long bytes = 0;
      for (MembershipFilter f : filters) {
        bytes += f.bytes();
      }
      long falsePositives = 0;
      for (long k = n; k < n + PROBES; k++) {
        byte[] key = encoder.encode(k);
        if (filters[Buckets.bucketOf(key, filters.length)].mightContain(key)) {
          falsePositives++;
        }
      }
      double fpr = (double) falsePositives / PROBES;
      System.err.printf(
          Locale.ROOT,
          "%,d keys: filter %,d bytes (%.1f bits per key), false positives %.3f%%%n",
          n,
          bytes,
          8.0 * bytes / n,
          100 * fpr);
      csv.add(String.format(Locale.ROOT, "%d,%d,%.3f,%.6f", n, bytes, 8.0 * bytes / n, fpr));
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("keys", n);
      row.put("filterBytes", bytes);
      row.put("falsePositiveRate", fpr);
      memory.add(row);
      points.add(new double[] {n / 1e6, bytes / 1e6});
    }
    Files.write(dir.resolve("micro.csv"), csv, StandardCharsets.UTF_8);
    Charts.xy(
        dir.resolve("klt-memory.png"),
        "Membership filter of the key lookup table",
        "keys held by the task (millions)",
        "MB",
        Map.of("filter", points));
    KltBench.Result lookup;
    if (smoke) {
      System.err.println(
          "lookup time: JMH smoke run in this JVM, " + iterations + " iterations of 100 ms");
      lookup = KltBench.run(iterations, TimeValue.milliseconds(100), 0);
    } else {
      System.err.println("lookup time: JMH, " + iterations + " iterations of 1 s per benchmark");
      lookup = KltBench.run(iterations);
    }
    System.err.print(lookup.toText());
    Map<String, Object> summary = new LinkedHashMap<>();
    summary.put("summary", "micro");
    summary.put("kltMemory", memory);
    summary.put("lookupUsPerBatch", lookup.resolveUs());
    summary.put("stateUpdateUsPerBatch", lookup.stateUpdateUs());
    summary.put("lookupShareMovedTouched", lookup.share("moved-touched"));
    summary.put("cores", Runtime.getRuntime().availableProcessors());
    stdout.println(Json.encode(summary));
    stdout.flush();
    return 0;
  }

  /**
   * The filters of local keys of a task that wrote the keys {@code 0 .. n-1}, one per bucket, as
   * the task's lookup table grows them: each starts with room for {@link
   * MembershipFilter#MIN_CAPACITY} keys and is rebuilt for its present keys ({@link
   * MembershipFilter#forKeys}) whenever it is full; the sizes follow that rule, then the keys are
   * added to the filters of their final size.
   */
  private static MembershipFilter[] filters(long n, KeyEncoder encoder) {
    long[] count = new long[Buckets.DEFAULT_BUCKETS];
    for (long k = 0; k < n; k++) {
      count[Buckets.bucketOf(encoder.encode(k), count.length)]++;
    }
    MembershipFilter[] filters = new MembershipFilter[count.length];
    for (int b = 0; b < count.length; b++) {
      long capacity = MembershipFilter.MIN_CAPACITY;
      while (count[b] > capacity) { // full past its capacity: rebuilt for the keys present then
        capacity = MembershipFilter.forKeys(capacity + 1).capacity();
      }
      filters[b] = new MembershipFilter(capacity);
    }
    for (long k = 0; k < n; k++) {
      byte[] key = encoder.encode(k);
      filters[Buckets.bucketOf(key, filters.length)].add(key);
    }
    return filters;
  }
}
