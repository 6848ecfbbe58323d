/**
 * What user code is written against: the function interfaces of the DSL and the operators ({@link
 * io.koala.function.MapFunction}, {@link io.koala.function.KeyedProcessFunction}, ...), the values
 * they see and emit to ({@link io.koala.function.KeyValue}, {@link io.koala.function.Collector},
 * {@link io.koala.function.OutputTag}), and the two exceptions about user code: a dataflow defined
 * wrong ({@link io.koala.function.DataflowDefinitionException}) and a function that failed ({@link
 * io.koala.function.UserFunctionException}). Windows are in {@code io.koala.window}, event time in
 * {@code io.koala.eventtime}. Below both the DSL and the operators. Plain Java.
 *
 * <p>API (docs/api.md): no public signature here names a type of an internal package.
 */
package io.koala.function;
