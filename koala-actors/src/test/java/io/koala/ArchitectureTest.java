package io.koala;

import static com.tngtech.archunit.lang.conditions.ArchConditions.have;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noFields;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import io.koala.archfixture.cycle.a.CallsB;
import io.koala.archfixture.cycle.b.CallsA;
import io.koala.coordinator.JobCore;
import io.koala.coordinator.fixture.CoordinatorUsingTheTask;
import io.koala.coordinator.fixture.PartReachingThroughTheJobCore;
import io.koala.plan.fixture.PlanUsingTheDsl;
import io.koala.routing.fixture.RoutingUsingPekko;
import io.koala.task.fixture.TaskUsingTheCoordinator;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The layers of {@code docs/architecture.md}, kept so: no cycles between packages, the task and the
 * job core never import each other, the plan never imports the DSL that builds it, and the pure
 * packages import neither Pekko nor lmdbjava (they run in a simulator, in milliseconds). Each rule
 * is shown to reject a violation planted in the test tree ({@code ...fixture} packages, which the
 * checks of the main classes do not import).
 */
class ArchitectureTest {
  /** The packages that must run without an actor system or a native store. */
  private static final String[] PURE = {
    "io.koala.function..",
    "io.koala.eventtime..",
    "io.koala.window..",
    "io.koala.connector..",
    "io.koala.state..",
    "io.koala.operator..",
    "io.koala.plan..",
    "io.koala.dataflow..",
    "io.koala.serialization..",
    "io.koala.routing..",
    "io.koala.protocol..",
    "io.koala.channel..",
    "io.koala.time..",
    "io.koala.keys..",
    "io.koala.deploy..",
    "io.koala.task..",
    "io.koala.job..",
    "io.koala.coordinator..",
    "io.koala.ingest..",
    "io.koala.upgrade..",
    "io.koala.autoscaler.."
  };

  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.koala");

  /**
   * Each package is a slice, except that a package's {@code internal} subpackages belong to it (a
   * public API and its implementation may refer to each other).
   */
  private static final SliceAssignment PACKAGES =
      new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass c) {
          String p = c.getPackageName();
          if (!p.startsWith("io.koala")) {
            return SliceIdentifier.ignore();
          }
          int internal = p.indexOf(".internal");
          return SliceIdentifier.of(internal < 0 ? p : p.substring(0, internal));
        }

        @Override
        public String getDescription() {
          return "Koala's packages (an internal package counted with its parent)";
        }
      };

  static ArchRule noPackageCycles() {
    return slices().assignedFrom(PACKAGES).should().beFreeOfCycles();
  }

  static ArchRule taskWithoutJobCore() {
    return noClasses()
        .that()
        .resideInAPackage("io.koala.task..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.koala.coordinator..")
        .because("a task is driven by messages, never by the coordinator's decisions");
  }

  static ArchRule jobCoreWithoutTask() {
    return noClasses()
        .that()
        .resideInAPackage("io.koala.coordinator..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.koala.task..")
        .because("the job core speaks to tasks only through the protocol's messages");
  }

  /**
   * The coordinator's parts: the classes that declare what they ask of the others in a nested
   * {@code Parts} interface, and the core and the wiring that hold them all.
   */
  private static final Set<String> COORDINATOR_PARTS = coordinatorParts();

  private static Set<String> coordinatorParts() {
    Set<String> parts =
        new TreeSet<>(Set.of(JobCore.class.getName(), "io.koala.coordinator.JobParts"));
    for (JavaClass c : MAIN) {
      if (c.getPackageName().equals("io.koala.coordinator")
          && c.getSimpleName().equals("Parts")
          && c.getEnclosingClass().isPresent()) {
        parts.add(c.getEnclosingClass().get().getName());
      }
    }
    return parts;
  }

  /**
   * A part's field holding another part (or the core, or the wiring). The one exception: the epoch
   * runner is given the request queue it takes its requests from.
   */
  private static final DescribedPredicate<JavaField> HOLDS_ANOTHER_PART =
      DescribedPredicate.describe(
          "the type of another coordinator part",
          f ->
              COORDINATOR_PARTS.contains(f.getRawType().getName())
                  && !(f.getOwner().getSimpleName().equals("EpochRunner")
                      && f.getRawType().getSimpleName().equals("RequestQueue")));

  static ArchRule partsGetWhatTheyNeed() {
    return noFields()
        .that()
        .areDeclaredInClassesThat()
        .resideInAPackage("io.koala.coordinator..")
        .and()
        .areDeclaredInClassesThat()
        .haveNameNotMatching("io\\.koala\\.coordinator\\.(JobCore|JobParts)(\\$.*)?")
        .should(have(HOLDS_ANOTHER_PART))
        .because(
            "a coordinator part is given the collaborators it needs and tells the others through"
                + " its Parts interface; only JobParts links them (docs/architecture.md)");
  }

  static ArchRule planWithoutDsl() {
    return noClasses()
        .that()
        .resideInAPackage("io.koala.plan..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.koala.dataflow..")
        .because("the DSL builds the plan; the plan knows nothing of the DSL");
  }

  static ArchRule pureWithoutPekkoOrLmdb() {
    return noClasses()
        .that()
        .resideInAnyPackage(PURE)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("org.apache.pekko..", "org.lmdbjava..")
        .because("the pure layers must run without an actor system or a native store");
  }

  @Test
  void packagesHaveNoCycles() {
    noPackageCycles().check(MAIN);
  }

  @Test
  void tasksDoNotImportTheJobCore() {
    taskWithoutJobCore().check(MAIN);
  }

  @Test
  void theJobCoreDoesNotImportTasks() {
    jobCoreWithoutTask().check(MAIN);
  }

  @Test
  void coordinatorPartsDoNotHoldEachOther() {
    assertThat(COORDINATOR_PARTS).as("the parts found").hasSizeGreaterThan(12);
    partsGetWhatTheyNeed().check(MAIN);
  }

  @Test
  void thePlanDoesNotImportTheDsl() {
    planWithoutDsl().check(MAIN);
  }

  @Test
  void pureLayersDependOnNeitherPekkoNorLmdbjava() {
    pureWithoutPekkoOrLmdb().check(MAIN);
  }

  @Test
  void theImportHoldsEveryLayer() {
    for (String layer : PURE) {
      String pkg = layer.substring(0, layer.length() - 2);
      assertThat(MAIN.stream().anyMatch(c -> c.getPackageName().startsWith(pkg)))
          .as("classes of %s imported", pkg)
          .isTrue();
    }
  }

  // ------------------------------------------------------------ each rule rejects a violation

  private static JavaClasses planted(Class<?>... fixtures) {
    return new ClassFileImporter().importClasses(fixtures);
  }

  @Test
  void aPlantedPackageCycleIsRejected() {
    assertThatThrownBy(() -> noPackageCycles().check(planted(CallsA.class, CallsB.class)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("io.koala.archfixture.cycle.a")
        .hasMessageContaining("io.koala.archfixture.cycle.b");
  }

  @Test
  void aPlantedTaskImportingTheJobCoreIsRejected() {
    assertThatThrownBy(() -> taskWithoutJobCore().check(planted(TaskUsingTheCoordinator.class)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("io.koala.coordinator.JobCore");
  }

  @Test
  void aPlantedJobCoreImportingATaskIsRejected() {
    assertThatThrownBy(() -> jobCoreWithoutTask().check(planted(CoordinatorUsingTheTask.class)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("io.koala.task.TaskEngine");
  }

  @Test
  void aPlantedPartReachingThroughTheJobCoreIsRejected() {
    assertThatThrownBy(
            () -> partsGetWhatTheyNeed().check(planted(PartReachingThroughTheJobCore.class)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("PartReachingThroughTheJobCore.job");
  }

  @Test
  void aPlantedPlanImportingTheDslIsRejected() {
    assertThatThrownBy(() -> planWithoutDsl().check(planted(PlanUsingTheDsl.class)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("io.koala.dataflow.Dataflow");
  }

  @Test
  void aPlantedPureClassImportingPekkoIsRejected() {
    assertThatThrownBy(() -> pureWithoutPekkoOrLmdb().check(planted(RoutingUsingPekko.class)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("org.apache.pekko");
  }
}
