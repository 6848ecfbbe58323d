/**
 * Hooks for testing Koala itself — its verifiers and its own tests — not for applications: nothing
 * here is API, and anything may change. {@link io.koala.runtime.testing.TaskCrashes} crashes tasks
 * of a running job at chosen points of its life.
 */
@Internal
package io.koala.runtime.testing;

import io.koala.Internal;
