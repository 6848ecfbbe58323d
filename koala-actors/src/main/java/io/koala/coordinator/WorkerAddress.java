package io.koala.coordinator;

import io.koala.protocol.KoalaMessage;

/**
 * How the host reaches a worker that joined (DESIGN §9): the job core refers to workers by index
 * and passes this on to its host untouched.
 */
public interface WorkerAddress extends KoalaMessage {}
