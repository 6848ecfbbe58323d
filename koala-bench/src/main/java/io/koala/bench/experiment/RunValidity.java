package io.koala.bench.experiment;

/**
 * Whether a rescale run can mean anything, decided before its recovery figures are reported: the
 * job must have kept up with its input before the doubling, and there must be a backlog to recover
 * from at the rescale. A run that fails a check reports why in its {@code error}, and its recovery
 * figures are not summarised (a recovery "after 0.0 s" from a backlog that was never there, or
 * measured against a level the warm-up inflated, says nothing about a protocol).
 */
final class RunValidity {
  private RunValidity() {}

  /**
   * What the checks look at.
   *
   * @param lagLevel the highest source lag in the seconds before the doubling (the recovery level)
   * @param backlogAtLevelStart the end-to-end backlog at the first second of that window
   * @param backlogAtLevelEnd the end-to-end backlog at the doubling
   * @param backlogAtRescale the end-to-end backlog when the rescale was requested
   * @param backlogThreshold the end-to-end backlog under which the run counts as recovered
   */
  record Facts(
      long lagLevel,
      long backlogAtLevelStart,
      long backlogAtLevelEnd,
      long backlogAtRescale,
      long backlogThreshold) {}

  /**
   * Whether a job kept up with its input before the doubling: its highest source lag then, {@code
   * lagLevel}, was at most a second of the input rate {@code rate}.
   */
  static boolean keptUp(long lagLevel, double rate) {
    return lagLevel <= rate;
  }

  /**
   * Why a run of {@code s} cannot mean anything, or null when it can. {@code scaleOut}: the run is
   * one rescale that adds capacity, whose backlog must be there at the rescale.
   */
  static String check(RescaleSettings s, Facts f, boolean scaleOut) {
    if (!keptUp(f.lagLevel(), s.rate())) {
      // recovery is measured back to the lag before the doubling: meaningless if the job was
      // still working off the warm-up then
      return "the job had not caught up with its input before the doubling (source lag "
          + f.lagLevel()
          + " records, more than a second of input): this machine was too slow or busy for the"
          + " scenario, so the recovery figures mean nothing";
    }
    if (!scaleOut) {
      return null;
    }
    if (f.backlogAtLevelStart() > s.rate() / 2
        && f.backlogAtLevelStart() > 2 * f.backlogAtLevelEnd()) {
      return "the job was still working off its warm-up before the doubling (end-to-end backlog "
          + f.backlogAtLevelStart()
          + " records falling to "
          + f.backlogAtLevelEnd()
          + "): the level recovery is measured against is not a steady one, so the recovery"
          + " figures mean nothing";
    }
    if (f.backlogAtRescale() <= f.backlogThreshold()) {
      // the end-to-end backlog, not the source lag: at a small scale the sources read the whole
      // backlog into the channels' credit windows, and their lag says nothing
      return "at the rescale the end-to-end backlog ("
          + f.backlogAtRescale()
          + " records) was already under its recovery level ("
          + f.backlogThreshold()
          + "): there was nothing to recover from, so the recovery figures mean nothing";
    }
    return null;
  }
}
