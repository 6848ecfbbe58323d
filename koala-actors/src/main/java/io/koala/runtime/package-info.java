/**
 * The runtime users start and talk to: {@link io.koala.runtime.KoalaRuntime}, {@link
 * io.koala.runtime.JobHandle}, {@link io.koala.runtime.KoalaConfig} and job metrics.
 */
package io.koala.runtime;
