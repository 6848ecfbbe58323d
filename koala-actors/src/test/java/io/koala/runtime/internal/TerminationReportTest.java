package io.koala.runtime.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import java.lang.management.ThreadInfo;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;

/**
 * A termination report names the actor that keeps its system from terminating and shows the thread
 * it blocks with its whole stack, the lock it waits for and who holds it, and no unrelated thread.
 */
class TerminationReportTest {
  @Test
  void anActorBlockedInItsHandlerIsInTheTreeAndItsThreadInTheSummary() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch gate = new CountDownLatch(1);
    ActorSystem<Void> system =
        ActorSystem.create(
            Behaviors.<Void>setup(
                ctx -> {
                  ActorRef<String> blocker =
                      ctx.spawn(
                          Behaviors.receiveMessage(
                              m -> {
                                entered.countDown();
                                gate.await(); // never processes its stop meanwhile
                                return Behaviors.same();
                              }),
                          "blocker");
                  blocker.tell("block");
                  return Behaviors.empty();
                }),
            "report-test",
            ConfigFactory.parseString("pekko.actor.serialize-messages = off")
                .withFallback(ConfigFactory.load()));
    try {
      assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
      system.terminate();

      TerminationReport report = TerminationReport.of(system);

      assertThat(report.summary())
          .startsWith("blocked or waiting in io.koala or org.lmdbjava code: ")
          .contains("report-test-pekko.actor.default-dispatcher-")
          .contains(" WAITING in " + TerminationReportTest.class.getName() + ".lambda$");
      assertThat(report.details())
          .contains("actors still alive in report-test (pekko://report-test)")
          .contains("blocker")
          .contains("\"report-test-pekko.actor.default-dispatcher-")
          .contains("/java.util.concurrent.CountDownLatch.await(CountDownLatch.java:")
          .doesNotContain("\"" + Thread.currentThread().getName() + "\"");
    } finally {
      gate.countDown();
      system.getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aBlockedThreadShowsTheLockItWaitsForItsOwnerAndTheWholeStack() throws Exception {
    Object lock = new Object();
    Thread blocked = new Thread(() -> enter(lock), "some-system-worker-1");
    synchronized (lock) {
      blocked.start();
      awaitTrue(() -> blocked.getState() == Thread.State.BLOCKED);

      ThreadInfo[] dump = TerminationReport.dumpThreads();
      String threads = TerminationReport.threads(dump, "some-system", me());

      assertThat(threads)
          .contains(
              "\"some-system-worker-1\" #" + blocked.getId() + " BLOCKED on java.lang.Object@",
              " owned by \"" + Thread.currentThread().getName() + "\" #" + me() + "\n",
              "\t- waiting to lock java.lang.Object@",
              TerminationReportTest.class.getName() + ".enter(TerminationReportTest.java:",
              "/java.lang.Thread.run(Thread.java:");
      assertThat(TerminationReport.summary(dump, me()))
          .contains(
              "some-system-worker-1 BLOCKED in "
                  + TerminationReportTest.class.getName()
                  + ".enter");
    }
    blocked.join();
  }

  @Test
  void aThreadWaitingInKoalaCodeShowsTheMonitorsItHoldsAndAnIdleUnrelatedThreadIsLeftOut()
      throws Exception {
    Object held = new Object();
    CountDownLatch gate = new CountDownLatch(1);
    Thread holder = new Thread(() -> holdAndWait(held, gate), "not-named-after-it");
    ExecutorService unrelated = Executors.newSingleThreadExecutor(r -> new Thread(r, "unrelated"));
    try {
      unrelated.submit(() -> {}).get();
      holder.start();
      awaitTrue(() -> holder.getState() == Thread.State.WAITING);

      String threads =
          TerminationReport.threads(TerminationReport.dumpThreads(), "some-system", me());

      assertThat(threads)
          .contains("\"not-named-after-it\" #" + holder.getId() + " WAITING on ")
          .contains("\t- locked java.lang.Object@" + Integer.toHexString(held.hashCode()))
          .doesNotContain("\"unrelated\"");
    } finally {
      gate.countDown();
      holder.join();
      unrelated.shutdown();
    }
  }

  @Test
  void threadsInTheSameStateWithTheSameStackAreShownOnce() throws Exception {
    CountDownLatch gate = new CountDownLatch(1);
    Runnable waiter = () -> awaitQuietly(gate); // one lambda: the same stack on both threads
    Thread a = new Thread(waiter, "pool-system-a");
    Thread b = new Thread(waiter, "pool-system-b");
    try {
      a.start();
      b.start();
      awaitTrue(() -> a.getState() == Thread.State.WAITING && b.getState() == Thread.State.WAITING);

      String threads =
          TerminationReport.threads(TerminationReport.dumpThreads(), "pool-system", me());

      assertThat(threads).startsWith("2 threads named after pool-system");
      assertThat(threads.lines().filter(l -> l.contains("\"pool-system-"))) // one header for both
          .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
          .contains("\"pool-system-a\" #" + a.getId(), "\"pool-system-b\" #" + b.getId())
          .contains(" WAITING on java.util.concurrent.CountDownLatch$Sync@");
      assertThat(threads.split(".awaitQuietly\\(", -1)).hasSize(2);
    } finally {
      gate.countDown();
      a.join();
      b.join();
    }
  }

  private static long me() {
    return Thread.currentThread().getId();
  }

  private static void enter(Object lock) {
    synchronized (lock) {
      lock.notifyAll();
    }
  }

  private static void holdAndWait(Object held, CountDownLatch gate) {
    synchronized (held) {
      awaitQuietly(gate);
    }
  }

  private static void awaitQuietly(CountDownLatch gate) {
    try {
      gate.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void awaitTrue(BooleanSupplier condition) {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("still waiting").isLessThan(deadline);
      LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
    }
  }
}
