/**
 * The fluent DSL users define dataflows with ({@link io.koala.dataflow.Dataflow}, {@link
 * io.koala.dataflow.Stage}, {@link io.koala.dataflow.KeyedStage}), the function interfaces, and the
 * source and sink specifications. Building a dataflow runs nothing. Plain Java: imports neither
 * Pekko nor lmdbjava.
 */
package io.koala.dataflow;
