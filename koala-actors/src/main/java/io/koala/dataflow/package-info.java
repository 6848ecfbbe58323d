/**
 * The fluent DSL users define dataflows with ({@link io.koala.dataflow.Dataflow}, {@link
 * io.koala.dataflow.Stage}, {@link io.koala.dataflow.KeyedStage}); the functions it takes are in
 * {@link io.koala.function}, the sources and sinks in {@link io.koala.connector}. Building a
 * dataflow runs nothing. Plain Java: imports neither Pekko nor lmdbjava.
 *
 * <p>API (docs/api.md): no public signature here names a type of an internal package.
 */
package io.koala.dataflow;
