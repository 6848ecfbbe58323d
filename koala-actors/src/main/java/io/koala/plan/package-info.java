/**
 * The immutable plan of a dataflow: the validated logical graph ({@link io.koala.plan.LogicalPlan})
 * and its cut into chained vertices ({@link io.koala.plan.ExecutionPlan}). Plain Java: imports
 * neither Pekko nor lmdbjava.
 *
 * <p>API (docs/api.md): no public signature here names a type of an internal package.
 */
package io.koala.plan;
