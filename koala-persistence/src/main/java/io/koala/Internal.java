package io.koala;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a package, in its {@code package-info.java}, as internal to Koala: its types are no API,
 * may change in any release, and are not to be used by applications, even where Java lets them
 * (they are public so that Koala's other packages and modules can use them). Every other package
 * under {@code io.koala} is API, and no public or protected signature of an API type names a type
 * of an internal package; an architecture test checks that (docs/api.md). A package is internal or
 * API as a whole: its subpackages say for themselves.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PACKAGE)
public @interface Internal {}
