/**
 * Windows: how records are assigned to them ({@link io.koala.window.WindowAssigner}: tumbling,
 * sliding, session), the window itself ({@link io.koala.window.TimeWindow}), the function a
 * window's records are given to when it fires ({@link io.koala.window.ProcessWindowFunction}) and
 * what an aggregated window emits ({@link io.koala.window.WindowResult}). Plain Java.
 *
 * <p>API (docs/api.md): no public signature here names a type of an internal package.
 */
package io.koala.window;
