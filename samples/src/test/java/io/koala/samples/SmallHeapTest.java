package io.koala.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A fast source into a slow sink runs in a 64 MiB heap: backpressure holds what is buffered to the
 * credit windows, although the source could produce gigabytes in the same time.
 */
class SmallHeapTest {

  @Test
  void fastSourceIntoSlowSinkFitsInASmallHeap() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p =
        new ProcessBuilder(
                List.of(
                    java,
                    "-Xmx64m",
                    "-XX:+ExitOnOutOfMemoryError",
                    "-cp",
                    System.getProperty("java.class.path"),
                    SlowSinkMain.class.getName(),
                    "6"))
            .redirectError(new File("target/small-heap-stderr.log"))
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("child exited").isTrue();
    assertThat(p.exitValue())
        .as("child exit code (stderr in target/small-heap-stderr.log)")
        .isZero();
    Matcher m = Pattern.compile("read=(\\d+) written=(\\d+)").matcher(out);
    assertThat(m.find()).as("child output: " + out).isTrue();
    long read = Long.parseLong(m.group(1));
    long written = Long.parseLong(m.group(2));
    assertThat(written).isPositive();
    // everything read but not written is in flight; bounded by the credit windows
    assertThat(read - written).isLessThan(100_000);
  }
}
