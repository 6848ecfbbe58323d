package io.koala;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaPackage;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.domain.ThrowsDeclaration;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.lang.syntax.ArchRuleDefinition;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Koala's API boundary (docs/api.md), as an ArchUnit rule: a package under {@code io.koala} is
 * internal when its {@code package-info} carries {@link Internal}, and API otherwise (the
 * applications, the samples and the two command lines, are neither); no public or protected
 * signature of a type an application can reach in an API package names a type of an internal
 * package — not as a return, parameter, thrown or field type, a type argument or bound, a
 * superclass or an interface.
 */
final class ApiBoundary {
  /** The applications' packages, built on the library: not the library's API. */
  private static final List<String> APPLICATIONS =
      List.of("io.koala.samples", "io.koala.cli", "io.koala.bench");

  private ApiBoundary() {}

  static boolean isKoala(String packageName) {
    return (packageName.equals("io.koala") || packageName.startsWith("io.koala."))
        && APPLICATIONS.stream()
            .noneMatch(a -> packageName.equals(a) || packageName.startsWith(a + "."));
  }

  /** Whether {@code p}'s {@code package-info} marks it {@link Internal}. */
  static boolean isInternal(JavaPackage p) {
    return p.isAnnotatedWith(Internal.class);
  }

  /** A Koala type in an internal package. */
  static boolean isInternal(JavaClass c) {
    JavaClass t = c;
    while (t.isArray()) {
      t = t.getComponentType();
    }
    return isKoala(t.getPackageName()) && isInternal(t.getPackage());
  }

  /** Public or protected, and so are the types that enclose it: an application can name it. */
  static boolean isReachable(JavaClass c) {
    for (JavaClass t = c; t != null; t = t.getEnclosingClass().orElse(null)) {
      if (t.isAnonymousClass() || t.isLocalClass() || !isVisible(t.getModifiers())) {
        return false;
      }
    }
    return true;
  }

  private static boolean isVisible(Set<JavaModifier> m) {
    return (m.contains(JavaModifier.PUBLIC) || m.contains(JavaModifier.PROTECTED))
        && !m.contains(JavaModifier.SYNTHETIC)
        && !m.contains(JavaModifier.BRIDGE);
  }

  static final DescribedPredicate<JavaClass> API_TYPES =
      DescribedPredicate.describe(
          "are reachable types of Koala's API packages",
          c ->
              isKoala(c.getPackageName())
                  && !isInternal(c.getPackage())
                  && !c.getSimpleName().equals("package-info")
                  && isReachable(c));

  static final ArchCondition<JavaClass> NAME_NO_INTERNAL_TYPE =
      new ArchCondition<>(
          "name no type of an internal package in a public or protected signature") {
        @Override
        public void check(JavaClass c, ConditionEvents events) {
          for (String leak : leaks(c)) {
            events.add(SimpleConditionEvent.violated(c, leak));
          }
        }
      };

  /** The rule: API types keep internal types out of what applications see of them. */
  static ArchRule rule() {
    return ArchRuleDefinition.classes()
        .that(API_TYPES)
        .should(NAME_NO_INTERNAL_TYPE)
        .because("applications compile against the API packages only (docs/api.md)");
  }

  /** Each place where {@code c}'s visible signature names an internal type, described. */
  static Set<String> leaks(JavaClass c) {
    Set<String> out = new TreeSet<>();
    c.getSuperclass().ifPresent(s -> check(out, c.getName() + " extends", s));
    for (JavaType i : c.getInterfaces()) {
      check(out, c.getName() + " implements", i);
    }
    for (JavaType v : c.getTypeParameters()) {
      check(out, c.getName() + " type parameter", v);
    }
    for (JavaField f : c.getFields()) {
      if (isVisible(f.getModifiers())) {
        check(out, "field " + f.getFullName(), f.getType());
      }
    }
    for (JavaCodeUnit u : c.getCodeUnits()) {
      if (!isVisible(u.getModifiers())) { // a static initializer is neither public nor protected
        continue;
      }
      String where = u.getFullName();
      check(out, where + " returns", u.getReturnType());
      for (JavaType p : u.getParameterTypes()) {
        check(out, where + " takes", p);
      }
      for (JavaType v : u.getTypeParameters()) {
        check(out, where + " type parameter", v);
      }
      for (ThrowsDeclaration<?> t : u.getThrowsClause()) {
        check(out, where + " throws", t.getRawType());
      }
    }
    return out;
  }

  private static void check(Set<String> out, String where, JavaType type) {
    for (JavaClass t : type.getAllInvolvedRawTypes()) {
      if (isInternal(t)) {
        out.add(where + " internal type " + t.getName());
      }
    }
  }
}
