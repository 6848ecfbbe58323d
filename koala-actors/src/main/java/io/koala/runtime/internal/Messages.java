package io.koala.runtime.internal;

import java.util.List;

/** Every message class of the runtime's actors, for serializer registration. */
final class Messages {
  private Messages() {}

  static final List<Class<?>> ALL =
      List.of(
          TaskActor.Start.class,
          TaskActor.Cancel.class,
          TaskActor.GetMetrics.class,
          TaskActor.TaskRef.class,
          TaskActor.Addresses.class,
          TaskActor.Wake.class,
          TaskActor.Tick.class,
          TaskActor.HolderTerminated.class,
          TaskActor.SnapshotWritten.class,
          io.koala.core.TaskEngine.Timer.class,
          Worker.DeployTasks.class,
          Worker.StopJob.class,
          Worker.StopTask.class,
          Worker.TaskStopped.class,
          Worker.Restore.class,
          Worker.StopAttemptsBefore.class,
          JobCoordinator.TasksDeployed.class,
          JobCoordinator.DeployFailed.class,
          JobCoordinator.TaskFinished.class,
          JobCoordinator.TaskFailed.class,
          JobCoordinator.ResultsDelivered.class,
          JobCoordinator.GetMetrics.class,
          JobCoordinator.GetCollected.class,
          JobCoordinator.Collected.class,
          JobCoordinator.Cancel.class,
          JobCoordinator.MetricsGathered.class,
          JobCoordinator.DeployTimeout.class,
          JobCoordinator.Reconfigure.class,
          JobCoordinator.EpochReported.class,
          JobCoordinator.EpochStalled.class,
          JobCoordinator.HolderReleased.class,
          JobCoordinator.TaskTerminated.class,
          JobCoordinator.SnapshotTaken.class,
          JobCoordinator.SnapshotUnusable.class,
          JobCoordinator.FromAttempt.class,
          JobCoordinator.Redeploy.class,
          JobCoordinator.CheckpointTick.class,
          JobCoordinator.TakeCheckpoint.class,
          JobCoordinator.CheckpointOutcome.class,
          JobCoordinator.Recovered.class,
          JobCoordinator.WatchTask.class,
          JobCoordinator.Journaled.class,
          JobCoordinator.RequestJournaled.class,
          CheckpointMetadata.class,
          io.koala.core.reconfig.LiveDeployment.Image.class,
          io.koala.core.reconfig.Retirement.Image.class,
          io.koala.core.reconfig.Retirement.OperatorImage.class,
          MetricsAggregator.Reply.class,
          MetricsAggregator.Timeout.class,
          JobListener.StatusChanged.class,
          StateServer.Serve.class,
          StateService.Read.class,
          StateService.Write.class);
}
