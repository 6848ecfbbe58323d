/**
 * What user code is written against: the function interfaces of the DSL and the operators ({@link
 * io.koala.function.MapFunction}, {@link io.koala.function.KeyedProcessFunction}, ...), the values
 * they see ({@link io.koala.function.KeyValue}, {@link io.koala.function.TimeWindow}), event time
 * and windows ({@link io.koala.function.WatermarkStrategy}, {@link
 * io.koala.function.WindowAssigner}), and {@link io.koala.function.DataflowDefinitionException}.
 * Below both the DSL and the operators. Plain Java.
 *
 * <p>API (docs/api.md): no public signature here names a type of an internal package.
 */
package io.koala.function;
