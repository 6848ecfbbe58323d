package io.koala.bench.experiment;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * A self-contained HTML page: a title, paragraphs, a table and PNG charts embedded as data URIs, so
 * the one file can be opened, mailed or archived without the images next to it. Text is escaped.
 *
 * <pre>{@code
 * HtmlReport.titled("Koala demo").paragraph("...").table(header, rows).chart(png).write(file);
 * }</pre>
 */
public final class HtmlReport {
  private final String title;
  private final StringBuilder body = new StringBuilder();

  private HtmlReport(String title) {
    this.title = title;
  }

  /** An empty report with {@code title}. */
  public static HtmlReport titled(String title) {
    return new HtmlReport(title);
  }

  /** Adds a section heading. */
  public HtmlReport heading(String text) {
    body.append("<h2>").append(escape(text)).append("</h2>\n");
    return this;
  }

  /** Adds a paragraph. */
  public HtmlReport paragraph(String text) {
    body.append("<p>").append(escape(text)).append("</p>\n");
    return this;
  }

  /** Adds a table; every row has as many cells as {@code header}. */
  public HtmlReport table(List<String> header, List<List<String>> rows) {
    body.append("<table>\n<tr>");
    for (String h : header) {
      body.append("<th>").append(escape(h)).append("</th>");
    }
    body.append("</tr>\n");
    for (List<String> row : rows) {
      if (row.size() != header.size()) {
        throw new IllegalArgumentException(
            "a row has " + row.size() + " cells, the header " + header.size() + ": " + row);
      }
      body.append("<tr>");
      for (String cell : row) {
        body.append("<td>").append(escape(cell)).append("</td>");
      }
      body.append("</tr>\n");
    }
    body.append("</table>\n");
    return this;
  }

  /**
   * Embeds the PNG {@code png} as an image.
   *
   * @throws IOException when it cannot be read
   */
  public HtmlReport chart(Path png) throws IOException {
    body.append("<figure><img alt=\"")
        .append(escape(png.getFileName().toString()))
        .append("\" src=\"data:image/png;base64,")
        .append(Base64.getEncoder().encodeToString(Files.readAllBytes(png)))
        .append("\"></figure>\n");
    return this;
  }

  /**
   * Writes the page to {@code file}.
   *
   * @throws IOException when it cannot be written
   */
  public void write(Path file) throws IOException {
    List<String> page = new ArrayList<>();
    page.add("<!DOCTYPE html>");
    page.add(
        "<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + escape(title) + "</title>");
    page.add(
        "<style>body{font-family:sans-serif;max-width:1040px;margin:2em auto;color:#222}"
            + "table{border-collapse:collapse;margin:1em 0}"
            + "th,td{border:1px solid #bbb;padding:4px 10px;text-align:right}"
            + "th:first-child,td:first-child{text-align:left}"
            + "img{max-width:100%}figure{margin:1em 0}</style>");
    page.add("</head><body>");
    page.add("<h1>" + escape(title) + "</h1>");
    page.add(body.toString());
    page.add("</body></html>");
    Files.write(file, page, StandardCharsets.UTF_8);
  }

  static String escape(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (char c : s.toCharArray()) {
      switch (c) {
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '&' -> b.append("&amp;");
        case '"' -> b.append("&quot;");
        default -> b.append(c);
      }
    }
    return b.toString();
  }
}
