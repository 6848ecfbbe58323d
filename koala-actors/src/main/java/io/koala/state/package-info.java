/**
 * The keyed state API of user functions: {@link io.koala.state.ValueState}, {@link
 * io.koala.state.ListState}, {@link io.koala.state.MapState}, obtained from a {@link
 * io.koala.state.KeyedStateContext}. Plain Java.
 */
package io.koala.state;
