package io.koala.bench.experiment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HtmlReportTest {

  @Test
  void embedsTheChartsAndEscapesText(@TempDir Path dir) throws Exception {
    Path png = dir.resolve("chart.png");
    byte[] bytes = {(byte) 0x89, 'P', 'N', 'G', 1, 2, 3};
    Files.write(png, bytes);
    Path page = dir.resolve("index.html");
    HtmlReport.titled("a <b> & \"c\"")
        .paragraph("x < y")
        .table(List.of("run", "value"), List.of(List.of("koala", "1 & 2")))
        .chart(png)
        .write(page);
    String html = Files.readString(page, StandardCharsets.UTF_8);
    assertThat(html)
        .contains("<title>a &lt;b&gt; &amp; &quot;c&quot;</title>")
        .contains("<p>x &lt; y</p>")
        .contains("<td>koala</td><td>1 &amp; 2</td>")
        .contains("data:image/png;base64," + Base64.getEncoder().encodeToString(bytes));
  }

  @Test
  void refusesARowThatDoesNotFitTheHeader() {
    assertThatThrownBy(
            () -> HtmlReport.titled("t").table(List.of("a", "b"), List.of(List.of("only one"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1 cells, the header 2");
  }
}
