package io.koala;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

/**
 * The DSL, the plans, the operators, the pure cores, the state API and serialization are plain
 * Java: they must not reach into Pekko or lmdbjava, so they run in a simulator and in milliseconds.
 * Only the runtime shell ({@code io.koala.runtime}) and the stores may.
 */
class LayeringTest {
  private static final String[] PURE = {
    "io.koala.dataflow..",
    "io.koala.plan..",
    "io.koala.operator..",
    "io.koala.core..",
    "io.koala.state..",
    "io.koala.serialization.."
  };

  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.koala");

  private static ArchRule noPekkoOrLmdb(String... packages) {
    return noClasses()
        .that()
        .resideInAnyPackage(packages)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("org.apache.pekko..", "org.lmdbjava..")
        .because("the pure layers must run without an actor system or a native store");
  }

  @Test
  void pureLayersDependOnNeitherPekkoNorLmdbjava() {
    noPekkoOrLmdb(PURE).check(MAIN);
  }

  @Test
  void theImportHoldsEveryPureLayer() {
    for (String layer : PURE) {
      String pkg = layer.substring(0, layer.length() - 2);
      assertThat(MAIN.stream().anyMatch(c -> c.getPackageName().startsWith(pkg)))
          .as("classes of %s imported", pkg)
          .isTrue();
    }
  }

  @Test
  void theRuleCatchesAViolation() {
    // The runtime shell is built on Pekko: the same rule applied to it must fail.
    assertThatThrownBy(() -> noPekkoOrLmdb("io.koala.runtime..").check(MAIN))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("org.apache.pekko");
  }
}
