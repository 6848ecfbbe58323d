package io.koala.coordinator;

import static io.koala.coordinator.JobSetups.of;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.job.AutoscalerStatus;
import io.koala.job.CheckpointStats;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationProgress;
import io.koala.job.ReconfigurationReport;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.job.TaskSnapshots;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The job's metrics snapshots on their own: gathering, the released holders, the final one. */
class MetricsBookTest {
  private final List<String> told = new ArrayList<>();
  private JobStatus status = JobStatus.RUNNING;
  private final TaskRoster roster = new TaskRoster();
  private final Outbox out =
      new Outbox("count", LoggerFactory.getLogger(MetricsBookTest.class), roster, 0);
  private final JobSetup setup = JobSetups.setup(null, null, JobSetups.plan(2), List.of(), false);
  private final JobState state = JobState.initial(setup);
  private final Attempts attempts = new Attempts();
  private final MetricsBook metrics =
      new MetricsBook(
          out,
          state,
          attempts,
          roster,
          () -> status,
          new MetricsBook.Parts() {
            @Override
            public void stopNow() {
              told.add("stopNow");
            }

            @Override
            public void finished() {
              told.add("finished");
            }

            @Override
            public List<ReconfigurationReport> reports() {
              return List.of();
            }

            @Override
            public int reportsMade() {
              return 0;
            }

            @Override
            public ReconfigurationProgress progress(List<TaskMetricsSnapshot> tasks) {
              return null;
            }

            @Override
            public CheckpointStats checkpointStats() {
              return CheckpointStats.NONE;
            }

            @Override
            public AutoscalerStatus autoscalerStatus() {
              return AutoscalerStatus.OFF;
            }

            @Override
            public void autoscalerMetrics(JobMetrics m) {
              told.add("autoscalerMetrics");
            }
          });
  private final List<JobMetrics> answers = new ArrayList<>();

  MetricsBookTest() {
    for (TaskId t : state.deployment().setups().keySet()) {
      roster.deployed(new JobSetups.Address(t));
    }
  }

  private List<TaskMetricsSnapshot> snapshots() {
    return roster.ids().stream().map(t -> TaskSnapshots.of(t).build()).toList();
  }

  @Test
  void aRequestGathersEveryTasksMetricsAndKeepsAReleasedHoldersCountsOnce() {
    metrics.onGetMetrics(new JobInput.GetMetrics(answers::add));
    List<JobEffect.GatherMetrics> gathers = of(JobEffect.GatherMetrics.class, out.drain());
    assertThat(gathers)
        .singleElement()
        .satisfies(g -> assertThat(g.tasks()).hasSize(roster.ids().size()));

    TaskId holder = roster.ids().iterator().next();
    metrics.released(holder, TaskSnapshots.of(holder).load(10, 0.5).build());
    metrics.onGathered(new JobInput.MetricsGathered(gathers.get(0).request(), snapshots()));
    JobSetups.sendReplies(out.drain());
    assertThat(answers)
        .singleElement()
        .satisfies(
            m -> {
              assertThat(m.tasks()).hasSize(roster.ids().size());
              assertThat(m.tasks())
                  .filteredOn(t -> t.task().equals(holder))
                  .singleElement()
                  .satisfies(t -> assertThat(t.busyNanos()).isEqualTo(5_000_000_000L));
            });
  }

  @Test
  void onlyTheNewestReleasedHoldersAreKept() {
    int holders = MetricsBook.KEPT_RELEASED + 36;
    for (int i = 0; i < holders; i++) {
      TaskId holder = new TaskId(new OperatorId("count"), 100 + i);
      metrics.released(holder, TaskSnapshots.of(holder).build());
    }
    metrics.onGetMetrics(new JobInput.GetMetrics(answers::add));
    int request = of(JobEffect.GatherMetrics.class, out.drain()).get(0).request();
    metrics.onGathered(new JobInput.MetricsGathered(request, snapshots()));
    JobSetups.sendReplies(out.drain());
    List<Integer> released =
        answers.get(0).tasks().stream()
            .map(TaskMetricsSnapshot::task)
            .filter(t -> t.index() >= 100)
            .map(TaskId::index)
            .toList();
    assertThat(released)
        .hasSize(MetricsBook.KEPT_RELEASED)
        .startsWith(100 + holders - MetricsBook.KEPT_RELEASED)
        .endsWith(100 + holders - 1);
  }

  @Test
  void aHolderReleasedWithoutAnAnswerKeepsItsLastGatheredCounts() {
    TaskId holder = roster.ids().iterator().next();
    metrics.onGetMetrics(new JobInput.GetMetrics(answers::add));
    int first = of(JobEffect.GatherMetrics.class, out.drain()).get(0).request();
    List<TaskMetricsSnapshot> gathered = new ArrayList<>(snapshots());
    gathered.replaceAll(
        t -> t.task().equals(holder) ? TaskSnapshots.of(holder).load(10, 0.25).build() : t);
    metrics.onGathered(new JobInput.MetricsGathered(first, gathered));
    out.drain();

    // the holder handed everything over and stopped (it crashed) before it was asked
    metrics.released(holder, null);
    metrics.onGetMetrics(new JobInput.GetMetrics(answers::add));
    int second = of(JobEffect.GatherMetrics.class, out.drain()).get(0).request();
    List<TaskMetricsSnapshot> live = new ArrayList<>(snapshots());
    live.removeIf(t -> t.task().equals(holder));
    metrics.onGathered(new JobInput.MetricsGathered(second, live));
    JobSetups.sendReplies(out.drain());

    assertThat(answers.get(answers.size() - 1).tasks())
        .filteredOn(t -> t.task().equals(holder))
        .singleElement()
        .satisfies(
            t -> {
              assertThat(t.status()).isEqualTo(TaskMetricsSnapshot.RELEASED);
              assertThat(t.busyNanos()).as("as last gathered").isEqualTo(2_500_000_000L);
            });
  }

  @Test
  void betweenTwoAttemptsTheJobsNumbersAreCurrentAndItsTasksAsLastGathered() {
    metrics.onGetMetrics(new JobInput.GetMetrics(answers::add));
    JobEffect.GatherMetrics gather = of(JobEffect.GatherMetrics.class, out.drain()).get(0);
    metrics.onGathered(new JobInput.MetricsGathered(gather.request(), snapshots()));
    int tasks = snapshots().size();
    answers.clear();
    out.drain();

    // the job rolls back twice; no task of a new attempt is deployed yet
    roster.clear();
    attempts.rollingBack();
    attempts.rollingBack();
    metrics.onGetMetrics(new JobInput.GetMetrics(answers::add));
    List<JobEffect> effects = out.drain();
    assertThat(of(JobEffect.GatherMetrics.class, effects)).as("no task to ask").isEmpty();
    JobSetups.sendReplies(effects);
    assertThat(answers).hasSize(1);
    assertThat(answers.get(0).rollbacks()).isEqualTo(2);
    assertThat(answers.get(0).tasks()).as("as last gathered").hasSize(tasks).isNotEmpty();
  }

  @Test
  void aTaskTheDeploymentNoLongerHasIsReportedRetired() {
    TaskId gone = new TaskId(new OperatorId("count"), 7);
    metrics.onGetMetrics(new JobInput.GetMetrics(answers::add));
    int request = of(JobEffect.GatherMetrics.class, out.drain()).get(0).request();
    List<TaskMetricsSnapshot> tasks = new ArrayList<>(snapshots());
    tasks.add(TaskSnapshots.of(gone).build());
    metrics.onGathered(new JobInput.MetricsGathered(request, tasks));
    JobSetups.sendReplies(out.drain());
    assertThat(answers.get(0).tasks())
        .filteredOn(t -> t.task().equals(gone))
        .singleElement()
        .satisfies(t -> assertThat(t.current()).isFalse());
  }

  @Test
  void theFinalMetricsEndTheJobAndAreWhatALaterRequestGets() {
    metrics.requestFinal();
    int request = of(JobEffect.GatherMetrics.class, out.drain()).get(0).request();
    metrics.onGathered(new JobInput.MetricsGathered(request, snapshots()));
    assertThat(told).containsExactly("finished");
    status = JobStatus.FINISHED;
    metrics.onGetMetrics(new JobInput.GetMetrics(answers::add));
    List<JobEffect> effects = out.drain();
    assertThat(of(JobEffect.GatherMetrics.class, effects)).isEmpty();
    JobSetups.sendReplies(effects);
    assertThat(answers)
        .singleElement()
        .satisfies(
            m -> {
              assertThat(m.status()).isEqualTo(JobStatus.FINISHED);
              assertThat(m.tasks()).hasSize(roster.ids().size());
            });
  }
}
