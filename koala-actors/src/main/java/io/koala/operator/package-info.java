/**
 * The operator SPI ({@link io.koala.operator.Operator}) and the built-in operators the DSL creates.
 * Plain Java: this package imports neither Pekko nor lmdbjava.
 *
 * <p>API (docs/api.md): no public signature here names a type of an internal package.
 */
package io.koala.operator;
