/**
 * Actor shells (coordinator, worker, task), the Kryo Pekko serializer and the embedded runtime's
 * plumbing. Not API: anything here may change.
 */
@Internal
package io.koala.runtime.internal;

import io.koala.Internal;
