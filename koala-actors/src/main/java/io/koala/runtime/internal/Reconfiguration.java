package io.koala.runtime.internal;

import io.koala.core.KoalaMessage;
import io.koala.runtime.ReconfigurationException;
import io.koala.runtime.ReconfigurationReport;

/** The coordinator's answer to a reconfiguration request. */
final class Reconfiguration {
  private Reconfiguration() {}

  /** Coordinator → client: how a request ended. */
  sealed interface Outcome extends KoalaMessage permits Completed, Rejected {}

  /** The change is in place. */
  record Completed(ReconfigurationReport report) implements Outcome {}

  /** The change was not made (or the job ended before it completed), with the reason. */
  record Rejected(ReconfigurationException.Reason kind, String reason) implements Outcome {}
}
