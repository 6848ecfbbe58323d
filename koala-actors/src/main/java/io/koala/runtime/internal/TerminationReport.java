package io.koala.runtime.internal;

import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.MonitorInfo;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;

/**
 * What holds up an ActorSystem that has not terminated in time, for whoever gave up waiting to log:
 * the actors still alive in it, and the stacks of the JVM's threads that may keep them from
 * stopping. Pekko terminates a system by stopping its guardians, and a guardian stops only after
 * its children have; an actor blocked in a message handler (on a lock, a future, LMDB) never
 * processes its stop, so {@code whenTerminated} never completes and nothing says why.
 *
 * <p>The threads shown are those named after the system (Pekko names its dispatchers' and
 * scheduler's threads {@code <system>-...}; nodes of one cluster share the name, so one JVM's nodes
 * all show) and any other thread blocked or waiting in Koala's or lmdbjava's code, each with its
 * whole stack, the monitors it holds and the ownable synchronizers it holds; threads with the same
 * state and stack (a pool's idle workers) are shown once. Not the thread that asks.
 */
public record TerminationReport(String summary, String details) {
  /** Where a thread blocked or waiting may hold up an actor's stop. */
  private static final List<String> WATCHED_CODE = List.of("io.koala.", "org.lmdbjava.");

  /**
   * The report on {@code system} now, from one thread dump.
   *
   * @return {@code summary}: one line naming the threads blocked or waiting in Koala's or
   *     lmdbjava's code, with the innermost such frame of each, for an exception's message; {@code
   *     details}: the system's actor tree, then the threads described above, for a log
   */
  public static TerminationReport of(ActorSystem<?> system) {
    ThreadInfo[] dump = dumpThreads();
    long asker = Thread.currentThread().getId();
    return new TerminationReport(
        summary(dump, asker),
        "actors still alive in "
            + system.name()
            + " ("
            + system.address()
            + "):\n"
            + actorTree(system)
            + "\n"
            + threads(dump, system.name(), asker));
  }

  /** Every live thread of this JVM, with the monitors and synchronizers it holds when supported. */
  static ThreadInfo[] dumpThreads() {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    return mx.dumpAllThreads(mx.isObjectMonitorUsageSupported(), mx.isSynchronizerUsageSupported());
  }

  /**
   * Pekko's own rendering of {@code system}'s actor tree (each actor's mailbox status, and what a
   * terminating actor still waits for under {@code toDie}), or why there is none.
   */
  static String actorTree(ActorSystem<?> system) {
    try {
      if (Adapter.toClassic(system) instanceof org.apache.pekko.actor.ActorSystemImpl impl) {
        return impl.printTree();
      }
      return "(no actor tree: " + Adapter.toClassic(system).getClass().getName() + ")";
    } catch (RuntimeException e) { // an internal API, read while actors change
      return "(no actor tree: " + e + ")";
    }
  }

  /**
   * The threads of {@code dump}, but thread {@code asker}, that are named after {@code systemName}
   * or blocked or waiting in Koala's or lmdbjava's code, grouped by state and stack.
   */
  static String threads(ThreadInfo[] dump, String systemName, long asker) {
    Map<String, List<ThreadInfo>> byStack = new LinkedHashMap<>();
    for (ThreadInfo t : dump) {
      if (t != null
          && t.getThreadId() != asker
          && (t.getThreadName().contains(systemName) || watchedFrame(t) != null)) {
        byStack.computeIfAbsent(body(t), k -> new ArrayList<>()).add(t);
      }
    }
    StringBuilder out = new StringBuilder();
    out.append(byStack.values().stream().mapToInt(List::size).sum())
        .append(" threads named after ")
        .append(systemName)
        .append(" or blocked or waiting in io.koala or org.lmdbjava code:\n");
    byStack.forEach(
        (body, threads) -> {
          out.append('\n');
          for (int i = 0; i < threads.size(); i++) {
            out.append(i == 0 ? "" : ", ")
                .append('"')
                .append(threads.get(i).getThreadName())
                .append("\" #")
                .append(threads.get(i).getThreadId());
          }
          out.append(body);
        });
    return out.toString();
  }

  /**
   * The threads of {@code dump}, but thread {@code asker}, blocked or waiting in Koala's or
   * lmdbjava's code, each with its innermost frame there.
   */
  static String summary(ThreadInfo[] dump, long asker) {
    List<String> found = new ArrayList<>();
    for (ThreadInfo t : dump) {
      StackTraceElement frame = t == null || t.getThreadId() == asker ? null : watchedFrame(t);
      if (frame != null) {
        found.add(
            t.getThreadName()
                + " "
                + t.getThreadState()
                + " in "
                + frame.getClassName()
                + "."
                + frame.getMethodName());
      }
    }
    return found.isEmpty()
        ? "no thread is blocked or waiting in io.koala or org.lmdbjava code"
        : "blocked or waiting in io.koala or org.lmdbjava code: " + String.join("; ", found);
  }

  /** The innermost frame of Koala's or lmdbjava's code in {@code t}'s stack, if it is stuck. */
  private static StackTraceElement watchedFrame(ThreadInfo t) {
    Thread.State s = t.getThreadState();
    if (s != Thread.State.BLOCKED && s != Thread.State.WAITING && s != Thread.State.TIMED_WAITING) {
      return null;
    }
    for (StackTraceElement frame : t.getStackTrace()) {
      for (String prefix : WATCHED_CODE) {
        if (frame.getClassName().startsWith(prefix)) {
          return frame;
        }
      }
    }
    return null;
  }

  /**
   * {@code t}'s state and stack as jstack shows them, without its name: the rest of the header
   * line, then a line per frame with the monitors locked there, then the synchronizers held. {@link
   * ThreadInfo#toString} cuts the stack at 8 frames.
   */
  private static String body(ThreadInfo t) {
    StringBuilder out = new StringBuilder(" ").append(t.getThreadState());
    if (t.getLockName() != null) {
      out.append(" on ").append(t.getLockName());
    }
    if (t.getLockOwnerName() != null) {
      out.append(" owned by \"")
          .append(t.getLockOwnerName())
          .append("\" #")
          .append(t.getLockOwnerId());
    }
    if (t.isInNative()) {
      out.append(" (in native)");
    }
    out.append('\n');
    StackTraceElement[] stack = t.getStackTrace();
    for (int depth = 0; depth < stack.length; depth++) {
      out.append("\tat ").append(stack[depth]).append('\n');
      if (depth == 0 && t.getLockInfo() != null) {
        out.append(
                t.getThreadState() == Thread.State.BLOCKED
                    ? "\t- waiting to lock "
                    : "\t- waiting on ")
            .append(t.getLockInfo())
            .append('\n');
      }
      for (MonitorInfo m : t.getLockedMonitors()) {
        if (m.getLockedStackDepth() == depth) {
          out.append("\t- locked ").append(m).append('\n');
        }
      }
    }
    LockInfo[] synchronizers = t.getLockedSynchronizers();
    if (synchronizers.length > 0) {
      out.append("\tLocked ownable synchronizers:\n");
      for (LockInfo l : synchronizers) {
        out.append("\t- ").append(l).append('\n');
      }
    }
    return out.toString();
  }
}
