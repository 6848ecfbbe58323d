/**
 * Keyed state and timers of a task on its state store: the handles behind {@link io.koala.state}.
 */
@Internal
package io.koala.task.state;

import io.koala.Internal;
