/**
 * The fluent DSL users define dataflows with ({@link io.koala.dataflow.Dataflow}, {@link
 * io.koala.dataflow.Stage}, {@link io.koala.dataflow.KeyedStage}); the functions it takes are in
 * {@link io.koala.function}, the sources and sinks in {@link io.koala.connector}. Building a
 * dataflow runs nothing. Plain Java: imports neither Pekko nor lmdbjava.
 */
package io.koala.dataflow;
