/**
 * The operator SPI ({@link io.koala.operator.Operator}) and the built-in operators the DSL creates.
 * Plain Java: this package imports neither Pekko nor lmdbjava.
 */
package io.koala.operator;
