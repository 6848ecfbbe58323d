package io.koala;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
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
   * The coordinator's parts that still reach the others through the job core; each part narrowed
   * leaves this list (docs/architecture.md, "The coordinator's parts").
   */
  private static final String WIDE_PARTS =
      "io\\.koala\\.coordinator\\.(JobCore|EpochRunner)(\\$.*)?";

  /** A field or method of a job core, not its constants and helpers (static members). */
  private static final DescribedPredicate<JavaAccess<?>> JOB_CORE_INSTANCE_MEMBER =
      DescribedPredicate.describe(
          "an instance member of JobCore",
          a ->
              a.getTargetOwner().isEquivalentTo(JobCore.class)
                  && a.getTarget()
                      .resolveMember()
                      .map(m -> !m.getModifiers().contains(JavaModifier.STATIC))
                      .orElse(true));

  static ArchRule partsGetWhatTheyNeed() {
    return noClasses()
        .that()
        .resideInAPackage("io.koala.coordinator..")
        .and()
        .haveNameNotMatching(WIDE_PARTS)
        .should()
        .accessTargetWhere(JOB_CORE_INSTANCE_MEMBER)
        .because(
            "a coordinator part is given the collaborators it needs, and never reaches the other"
                + " parts through the job core");
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
  void coordinatorPartsDoNotReachEachOtherThroughTheJobCore() {
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
        .hasMessageContaining("JobCore.status()");
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
