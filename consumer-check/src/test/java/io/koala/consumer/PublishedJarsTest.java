package io.koala.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.module.Configuration;
import java.lang.module.ModuleFinder;
import java.lang.module.ResolvedModule;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The Koala jars a user's build resolves (their files come from the dependency plugin, see
 * pom.xml): each names its module in its manifest ({@code Automatic-Module-Name}), and together
 * they resolve on the module path, so no package is split between two of them. In a build that
 * stops before {@code package} the reactor gives class directories, not jars: the tests are then
 * skipped, as there is no jar to check.
 */
class PublishedJarsTest {
  /** Every published jar's module name (its artifact: koala-persistence, koala-actors, ...). */
  private static final List<String> MODULES =
      List.of(
          "io.koala.persistence",
          "io.koala.actors",
          "io.koala.micrometer",
          "io.koala.kafka",
          "io.koala.cluster",
          "io.koala.testkit");

  private static Map<String, Path> jars() {
    Map<String, Path> jars = new LinkedHashMap<>();
    for (String module : MODULES) {
      String file = System.getProperty("koala.jar." + module);
      assertNotNull(file, "pom.xml passes no koala.jar." + module);
      assertFalse(file.startsWith("${"), "the dependency plugin resolved no file: " + file);
      Path path = Path.of(file);
      assumeTrue(Files.isRegularFile(path), "not packaged yet (class directory): " + path);
      jars.put(module, path);
    }
    return jars;
  }

  @Test
  void everyPublishedJarNamesItsModule() throws IOException {
    for (Map.Entry<String, Path> e : jars().entrySet()) {
      try (JarFile jar = new JarFile(e.getValue().toFile())) {
        assertNotNull(jar.getManifest(), e.getValue() + " has no manifest");
        assertEquals(
            e.getKey(),
            jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name"),
            e.getValue() + ": Automatic-Module-Name");
      }
    }
  }

  @Test
  void theJarsResolveTogetherOnTheModulePath() {
    ModuleFinder finder = ModuleFinder.of(jars().values().toArray(Path[]::new));
    Configuration resolved =
        ModuleLayer.boot().configuration().resolve(finder, ModuleFinder.of(), MODULES);
    assertEquals(
        Set.copyOf(MODULES),
        resolved.modules().stream().map(ResolvedModule::name).collect(Collectors.toSet()));
  }
}
