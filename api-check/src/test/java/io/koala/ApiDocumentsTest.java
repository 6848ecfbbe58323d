package io.koala;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sources of the API packages (docs/api.md) refer only to documents in this repository: no
 * design notes kept elsewhere ({@code DESIGN §…}, {@code PROTOCOL-HAZARDS}, bare section numbers),
 * and every {@code .md} they name exists. Internal packages may keep such notes. A package is
 * internal when its {@code package-info.java} says {@code @Internal}, as {@link ApiBoundary} reads
 * from the classes.
 */
class ApiDocumentsTest {
  private static final Path ROOT = Path.of("..");
  private static final List<String> MODULES =
      List.of("koala-persistence", "koala-actors", "koala-cluster", "koala-kafka", "testkit");

  private static final Pattern ELSEWHERE = Pattern.compile("\\bDESIGN\\b|PROTOCOL-HAZARDS|§");
  private static final Pattern DOCUMENT = Pattern.compile("[\\w./-]+\\.md\\b");

  /** What the sources of the API packages under {@code sourceRoot} refer to wrongly: file:line. */
  static List<String> badReferences(Path sourceRoot, Path repository) {
    List<String> out = new ArrayList<>();
    try (Stream<Path> dirs = Files.walk(sourceRoot)) {
      for (Path dir : dirs.filter(Files::isDirectory).toList()) {
        if (isInternal(dir)) {
          continue;
        }
        try (Stream<Path> files = Files.list(dir)) {
          for (Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
            List<String> lines = Files.readAllLines(f);
            for (int i = 0; i < lines.size(); i++) {
              String line = lines.get(i);
              if (ELSEWHERE.matcher(line).find()) {
                out.add(f + ":" + (i + 1) + ": " + line.strip());
              }
              Matcher doc = DOCUMENT.matcher(line);
              while (doc.find()) {
                if (!Files.exists(repository.resolve(doc.group()))) {
                  out.add(f + ":" + (i + 1) + ": no such document " + doc.group());
                }
              }
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private static boolean isInternal(Path dir) throws IOException {
    Path info = dir.resolve("package-info.java");
    return Files.exists(info)
        && Files.readAllLines(info).stream().anyMatch(l -> l.equals("@Internal"));
  }

  @Test
  void apiSourcesReferOnlyToDocumentsInTheRepository() {
    for (String module : MODULES) {
      Path sources = ROOT.resolve(module).resolve("src/main/java");
      assertThat(sources).isDirectory();
      assertThat(badReferences(sources, ROOT)).as(module).isEmpty();
    }
  }

  @Test
  void plantedReferencesAreReported(@TempDir Path repo) throws IOException {
    Files.createDirectories(repo.resolve("docs"));
    Files.writeString(repo.resolve("docs/api.md"), "# API\n");
    Path api = Files.createDirectories(repo.resolve("src/io/koala/pub"));
    Files.writeString(
        api.resolve("Pub.java"),
        String.join(
            "\n",
            "/** Fine: see docs/api.md. */",
            "/** Rolls back (DESIGN §8). */",
            "/** Held for a peer marker (§6.6), see PROTOCOL-HAZARDS W3. */",
            "/** See docs/design.md. */"));
    Path internal = Files.createDirectories(repo.resolve("src/io/koala/pub/hidden"));
    Files.writeString(internal.resolve("package-info.java"), "@Internal\npackage x;\n");
    Files.writeString(internal.resolve("Hidden.java"), "/** DESIGN §8, docs/design.md */\n");
    assertThat(badReferences(repo.resolve("src"), repo))
        .containsExactly(
            api.resolve("Pub.java") + ":2: /** Rolls back (DESIGN §8). */",
            api.resolve("Pub.java")
                + ":3: /** Held for a peer marker (§6.6), see PROTOCOL-HAZARDS W3. */",
            api.resolve("Pub.java") + ":4: no such document docs/design.md");
  }
}
