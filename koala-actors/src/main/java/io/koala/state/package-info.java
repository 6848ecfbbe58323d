/**
 * The keyed state API of user functions: {@link io.koala.state.ValueState}, {@link
 * io.koala.state.ListState}, {@link io.koala.state.MapState}, obtained from a {@link
 * io.koala.state.KeyedStateContext}. Plain Java.
 *
 * <p>API (docs/api.md): no public signature here names a type of an internal package.
 */
package io.koala.state;
