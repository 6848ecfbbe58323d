package io.koala;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every section and hazard the code cites is in the repository: {@code DESIGN §x.y} (and a bare
 * {@code §x.y}) a heading of docs/design.md, {@code hazards §x.y} a section or scenario of
 * docs/hazards.md, and a hazard code in a comment ({@code K4}, {@code C2}, {@code D5}, ...) one
 * that docs/hazards.md defines. The paper's sections ({@code the paper's §5.4}) are the paper's.
 */
class DesignReferencesTest {
  private static final Path ROOT = Path.of("..");
  private static final List<String> MODULES =
      List.of(
          "koala-persistence",
          "koala-actors",
          "koala-micrometer",
          "koala-kafka",
          "koala-cluster",
          "testkit",
          "samples");

  /** A section: who it belongs to (the word before it), and its number. */
  private static final Pattern SECTION =
      Pattern.compile("(?:(paper's|DESIGN|design|hazards|hazards\\.md)\\s+)?§(\\d+(?:\\.\\d+)?)");

  private static final Pattern CODE = Pattern.compile("\\b([CKDPW]\\d{1,2})\\b");

  /** Literal code and strings in a line: what they hold is no citation. */
  private static final Pattern LITERAL =
      Pattern.compile("\\{@code [^}]*}|\"(?:[^\"\\\\]|\\\\.)*\"");

  /** The numbers of a document's headings: "## 6. ...", "### 6.4 ...", and list items "10." */
  static Set<String> sections(Path doc, boolean numberedItems) throws IOException {
    Set<String> out = new TreeSet<>();
    Pattern heading = Pattern.compile("^#{2,4} (\\d+(?:\\.\\d+)*)\\.? ");
    Pattern item = Pattern.compile("^(\\d+)\\. ");
    String section = null;
    for (String line : Files.readAllLines(doc)) {
      Matcher h = heading.matcher(line);
      if (h.find()) {
        section = h.group(1);
        out.add(section);
        continue;
      }
      Matcher i = item.matcher(line);
      if (numberedItems && section != null && !section.contains(".") && i.find()) {
        out.add(section + "." + i.group(1));
      }
    }
    return out;
  }

  /** The hazard codes a document defines: each written {@code **K4**}. */
  static Set<String> codes(Path doc) throws IOException {
    Set<String> out = new TreeSet<>();
    Matcher m = Pattern.compile("\\*\\*([CKDPW]\\d{1,2})\\*\\*").matcher(Files.readString(doc));
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  /**
   * The citations in the sources under {@code sourceRoots} that {@code repository}'s docs/design.md
   * and docs/hazards.md do not resolve: file:line: what.
   */
  static List<String> dangling(List<Path> sourceRoots, Path repository) throws IOException {
    Set<String> design = sections(repository.resolve("docs/design.md"), false);
    Path hazardsDoc = repository.resolve("docs/hazards.md");
    Set<String> hazards = sections(hazardsDoc, true);
    Set<String> codes = codes(hazardsDoc);
    List<String> out = new ArrayList<>();
    for (Path root : sourceRoots) {
      List<Path> files;
      try (Stream<Path> walk = Files.walk(root)) {
        files = walk.filter(p -> p.toString().endsWith(".java")).sorted().toList();
      }
      for (Path f : files) {
        List<String> lines = Files.readAllLines(f);
        for (int i = 0; i < lines.size(); i++) {
          String line = LITERAL.matcher(lines.get(i)).replaceAll("");
          String where = f + ":" + (i + 1) + ": ";
          Matcher s = SECTION.matcher(line);
          while (s.find()) {
            String owner = s.group(1);
            String number = s.group(2);
            if ("paper's".equals(owner)) {
              continue;
            }
            boolean inHazards = owner != null && owner.startsWith("hazards");
            if (!(inHazards ? hazards : design).contains(number)) {
              out.add(where + (inHazards ? "hazards §" : "design §") + number);
            }
          }
          String trimmed = line.strip();
          boolean comment =
              trimmed.startsWith("*") || trimmed.startsWith("/*") || line.contains("//");
          if (comment) {
            Matcher c = CODE.matcher(line);
            while (c.find()) {
              if (!codes.contains(c.group(1))) {
                out.add(where + "hazard " + c.group(1));
              }
            }
          }
        }
      }
    }
    return out;
  }

  @Test
  void everySectionAndHazardTheCodeCitesIsInTheRepository() throws IOException {
    List<Path> roots = new ArrayList<>();
    for (String module : MODULES) {
      for (String dir : List.of("src/main/java", "src/test/java")) {
        Path p = ROOT.resolve(module).resolve(dir);
        if (Files.isDirectory(p)) {
          roots.add(p);
        }
      }
    }
    assertThat(roots).hasSizeGreaterThan(10);
    assertThat(dangling(roots, ROOT)).isEmpty();
  }

  @Test
  void aDanglingCitationIsReported(@TempDir Path repo) throws IOException {
    Files.createDirectories(repo.resolve("docs"));
    Files.writeString(
        repo.resolve("docs/design.md"), "# Design\n\n## 6. Protocol\n\n### 6.5 Drains\n");
    Files.writeString(
        repo.resolve("docs/hazards.md"),
        "# Hazards\n\n## 5. Holders\n\n- **C4** (releases)\n\n## 7. Scenarios\n\n1. a\n2. b\n");
    Path src = Files.createDirectories(repo.resolve("src/io/koala/x"));
    Files.writeString(
        src.resolve("X.java"),
        String.join(
            "\n",
            "/** Drains (DESIGN §6.5, §6, the paper's §5.4), see C4 and hazards §7.2. */",
            "/** Gone: DESIGN §6.9 and §12, hazards §7.3, K99. */",
            "class X { String s = \"W5\"; /** {@code W5} */ }"));
    assertThat(dangling(List.of(repo.resolve("src")), repo))
        .containsExactly(
            src.resolve("X.java") + ":2: design §6.9",
            src.resolve("X.java") + ":2: design §12",
            src.resolve("X.java") + ":2: hazards §7.3",
            src.resolve("X.java") + ":2: hazard K99");
  }
}
