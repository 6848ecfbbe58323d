/**
 * The runtime users start and talk to: {@link io.koala.runtime.KoalaRuntime}, {@link
 * io.koala.runtime.JobHandle}, {@link io.koala.runtime.KoalaConfig} and job metrics.
 *
 * <p>API (docs/api.md): no public signature here names a type of an internal package.
 */
package io.koala.runtime;
