package io.koala;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaPackage;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.koala.apifixture.LeakingApi;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Koala's API boundary holds in every module's main classes ({@link ApiBoundary}), docs/api.md says
 * which packages are API, and the rule is shown to report leaks planted in the test tree ({@code
 * io.koala.apifixture}, which the check of the main classes does not import). It runs in the
 * api-check module, whose test classpath holds every published module.
 */
class ApiBoundaryTest {
  /**
   * Every module's main classes, and the test support koala-kafka ships in its test-jar (which
   * Maven puts on the classpath as a directory or a jar, depending on the phase).
   */
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(
              location ->
                  ImportOption.Predefined.DO_NOT_INCLUDE_TESTS.includes(location)
                      || location.contains("/io/koala/kafka/testing/"))
          .importPackages("io.koala");

  @Test
  void noApiSignatureNamesAnInternalType() {
    ApiBoundary.rule().check(MAIN);
  }

  @Test
  void theCheckSeesEveryModule() {
    for (Class<?> c :
        new Class<?>[] {
          KoalaException.class, // koala-persistence
          io.koala.runtime.JobHandle.class, // koala-actors
          io.koala.cluster.KoalaCluster.class,
          io.koala.kafka.KafkaSource.class,
          io.koala.testkit.DataflowTestDriver.class
        }) {
      assertThat(MAIN.contain(c)).as("%s imported", c).isTrue();
      assertThat(ApiBoundary.API_TYPES.test(MAIN.get(c))).as("%s is API", c).isTrue();
    }
    assertThat(ApiBoundary.isInternal(MAIN.get(io.koala.task.TaskEngine.class))).isTrue();
  }

  /** The packages of the main classes, each API (true) or internal (false). */
  private static Map<String, Boolean> packages() {
    return MAIN.stream()
        .map(JavaClass::getPackage)
        .filter(p -> ApiBoundary.isKoala(p.getName()) && !p.getClasses().isEmpty())
        .distinct()
        .collect(
            Collectors.toMap(
                JavaPackage::getName, p -> !ApiBoundary.isInternal(p), (a, b) -> a, TreeMap::new));
  }

  @Test
  void aSubpackageOfAnInternalPackageIsInternal() {
    Map<String, Boolean> api = packages();
    api.forEach(
        (name, isApi) -> {
          for (String parent = name;
              parent.contains(".");
              parent = parent.substring(0, parent.lastIndexOf('.'))) {
            if (api.get(parent) == Boolean.FALSE) {
              assertThat(isApi).as("%s, under internal %s, is API", name, parent).isFalse();
            }
          }
        });
  }

  @Test
  void docsApiListsEachPackageAsItIsMarked() throws IOException {
    Pattern row =
        Pattern.compile("^\\| `(io\\.koala[\\w.]*)` \\| (API|internal) \\|", Pattern.MULTILINE);
    Matcher m = row.matcher(Files.readString(Path.of("../docs/api.md")));
    Map<String, Boolean> documented = new TreeMap<>();
    while (m.find()) {
      documented.put(m.group(1), m.group(2).equals("API"));
    }
    assertThat(documented).isEqualTo(packages());
  }

  // ------------------------------------------------------------ the rule reports a planted leak

  private static final JavaClasses PLANTED =
      new ClassFileImporter()
          .importPackages("io.koala.apifixture", "io.koala.protocol"); // the leaked types' packages

  @Test
  void aPlantedLeakFailsTheRule() {
    assertThatThrownBy(() -> ApiBoundary.rule().check(PLANTED))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining(LeakingApi.class.getName())
        .hasMessageContaining("internal type io.koala.apifixture.hidden.Hidden")
        .hasMessageContaining("internal type io.koala.protocol.ChannelSettings");
  }

  @Test
  void everyPlaceOfASignatureIsChecked() {
    String api = LeakingApi.class.getName();
    assertThat(ApiBoundary.leaks(PLANTED.get(LeakingApi.class)))
        .containsExactlyInAnyOrder(
            api + " extends internal type io.koala.apifixture.hidden.Hidden",
            api + " implements internal type io.koala.apifixture.hidden.HiddenContract",
            "field " + api + ".field internal type io.koala.apifixture.hidden.Hidden",
            api
                + ".<init>(io.koala.apifixture.hidden.Hidden) takes internal type"
                + " io.koala.apifixture.hidden.Hidden",
            api
                + ".returnsAnInternalTypeOfKoala() returns internal type"
                + " io.koala.protocol.ChannelSettings",
            api
                + ".takes(io.koala.apifixture.hidden.Hidden) takes internal type"
                + " io.koala.apifixture.hidden.Hidden",
            api
                + ".returnsATypeArgument() returns internal type"
                + " io.koala.apifixture.hidden.Hidden",
            api
                + ".hasABound(io.koala.apifixture.hidden.Hidden) type parameter internal type"
                + " io.koala.apifixture.hidden.Hidden",
            api
                + ".hasABound(io.koala.apifixture.hidden.Hidden) takes internal type"
                + " io.koala.apifixture.hidden.Hidden",
            api + ".throwsIt() throws internal type io.koala.apifixture.hidden.HiddenException",
            api + ".returnsAnArray() returns internal type" + " io.koala.apifixture.hidden.Hidden");
    assertThat(ApiBoundary.leaks(PLANTED.get(LeakingApi.Nested.class)))
        .containsExactly(
            LeakingApi.Nested.class.getName()
                + ".fromANestedType() returns internal type io.koala.apifixture.hidden.Hidden");
  }

  @Test
  void internalAndUnreachableTypesAreNotChecked() {
    JavaClass hidden = PLANTED.get(io.koala.apifixture.hidden.Hidden.class);
    assertThat(ApiBoundary.API_TYPES.test(hidden)).as("a type of an @Internal package").isFalse();
    JavaClass privateNested = PLANTED.get(LeakingApi.class.getName() + "$PrivateNested");
    assertThat(ApiBoundary.API_TYPES.test(privateNested)).as("a private nested type").isFalse();
  }
}
