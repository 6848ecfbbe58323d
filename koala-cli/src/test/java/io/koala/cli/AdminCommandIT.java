package io.koala.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.koala.cluster.KoalaCluster;
import io.koala.cluster.LocalCluster;
import io.koala.connector.RateSchedule;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.job.JobStatus;
import io.koala.runtime.JobHandle;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code koala admin} against a running node: lists and shows its job, rescales it, reports a
 * refusal (exit 1) and an unreachable node (exit 2) on stderr, and stops the job with a savepoint.
 */
class AdminCommandIT {
  private static final String TOKEN = "admin-command-test-token";

  private record Run(int code, String out, String err) {}

  private static Run admin(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = KoalaCli.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    String[] all = new String[args.length + 1];
    all[0] = "admin";
    System.arraycopy(args, 0, all, 1, args.length);
    int code = cli.execute(all);
    return new Run(code, out.toString(), err.toString());
  }

  private static Dataflow counting() {
    DataflowBuilder b = Dataflow.builder("admin-demo").parallelism(2);
    b.source(
            SourceSpec.generator("n", (i, seed) -> i % 100)
                .count(20_000)
                .rate(RateSchedule.constant(2_000)))
        .keyBy(x -> x)
        .count("count")
        .sink(SinkSpec.discarding("out"));
    return b.build();
  }

  @Test
  void listsShowsRescalesAndReportsErrors(@TempDir Path dir) {
    Config settings =
        ConfigFactory.parseString(
            "koala.node.http.port = 0\nkoala.node.http.admin-token = \""
                + TOKEN
                + "\"\nkoala.checkpoint.interval = 1 h\n"); // checkpoints: those asked for
    try (LocalCluster cluster = LocalCluster.start(1, dir, settings, counting())) {
      KoalaCluster node = cluster.node(0);
      String url = "http://127.0.0.1:" + node.httpPort();
      JobHandle job = node.submit(counting());
      await(() -> job.status() == JobStatus.RUNNING);

      assertThat(admin("--url", url, "get", "health").out()).contains("\"status\":\"UP\"");
      Run jobs = admin("--url", url, "jobs");
      assertThat(jobs.code()).isZero();
      assertThat(jobs.out()).contains("\"id\":\"admin-demo\"");
      assertThat(admin("--url", url, "job", "admin-demo").out()).contains("\"task\":\"count#1\"");

      Run rescaled =
          admin(
              "--url",
              url,
              "--token",
              TOKEN,
              "rescale",
              "admin-demo",
              "count",
              "3",
              "--wait",
              "60");
      assertThat(rescaled.code()).as(rescaled.err()).isZero();
      assertThat(rescaled.out()).contains("\"kind\":\"rescale\"");
      assertThat(admin("--url", url, "job", "admin-demo").out()).contains("\"task\":\"count#2\"");
      Run state =
          admin(
              "--url",
              url,
              "state",
              "admin-demo",
              "count",
              "accumulator",
              "7",
              "--key-type",
              "long");
      assertThat(state.code()).as(state.err()).isZero();
      assertThat(state.out()).contains("\"key\":7").contains("\"found\":true");

      Run refused = admin("--url", url, "--token", TOKEN, "rescale", "admin-demo", "nothing", "2");
      assertThat(refused.code()).isEqualTo(1);
      assertThat(refused.err()).startsWith("koala: 409").contains("nothing");
      Run noToken = admin("--url", url, "checkpoint", "admin-demo");
      assertThat(noToken.code()).isEqualTo(1);
      assertThat(noToken.err()).startsWith("koala: 401");
      Run unreachable = admin("--url", "http://127.0.0.1:1", "jobs");
      assertThat(unreachable.code()).isEqualTo(2);
      assertThat(unreachable.err()).startsWith("koala: cannot reach http://127.0.0.1:1/jobs");

      Path savepoint = dir.resolve("savepoints").resolve("admin-demo").resolve("last");
      Run stopped =
          admin(
              "--url",
              url,
              "--token",
              TOKEN,
              "savepoint",
              "admin-demo",
              savepoint.toString(),
              "--stop",
              "--wait",
              "60");
      assertThat(stopped.code()).as(stopped.err()).isZero();
      assertThat(stopped.out()).contains("\"stopped\":true").containsPattern("\"checkpoint\":\\d");
      assertThat(savepoint.resolve("_metadata")).exists();
      assertThat(job.await(Duration.ofSeconds(90))).isEqualTo(JobStatus.STOPPED);
    }
  }

  private static void await(java.util.function.BooleanSupplier condition) {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waited 60 s").isLessThan(deadline);
      LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
    }
  }
}
