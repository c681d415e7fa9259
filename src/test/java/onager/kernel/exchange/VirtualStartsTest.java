package onager.kernel.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** On a real Netty event loop: when the threads of one turn's tasks start, and in what order. */
final class VirtualStartsTest {
  private MultiThreadIoEventLoopGroup group;
  private EventLoop loop;

  @BeforeEach
  void startLoop() {
    group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    loop = group.next();
  }

  @AfterEach
  void stopLoop() {
    group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** A task that notes its name when it runs, or the cause when it could not start. */
  private record Noting(String name, List<String> log, CountDownLatch ran) implements VirtualStarts.Task {
    @Override
    public void run() {
      log.add("ran " + name);
      ran.countDown();
    }

    @Override
    public void failedToStart(Throwable cause) {
      log.add("no thread for " + name + ": " + cause.getMessage());
      ran.countDown();
    }
  }

  // The name of a task, or "turn" for the thread that starts a turn's tasks; and where it was made.
  private static String made(Runnable r) {
    String name = r instanceof Noting n ? n.name() : "turn";
    return name + (Thread.currentThread().isVirtual() ? " by a virtual thread" : " by the loop");
  }

  // Virtual threads, each noted in {@code made} as it is made (see made above).
  private static ThreadFactory noting(List<String> made) {
    return r -> {
      made.add(made(r));
      return Thread.ofVirtual().unstarted(r);
    };
  }

  @Test
  void aTurnsTasksStartTogetherOnceTheTurnEndsInTheOrderTheyCame() throws Exception {
    List<String> made = new CopyOnWriteArrayList<>();
    VirtualStarts starts = new VirtualStarts(loop, noting(made));
    List<String> log = new CopyOnWriteArrayList<>();
    CountDownLatch ran = new CountDownLatch(3);
    List<String> madeWithinTheTurn = new ArrayList<>();
    loop.submit(() -> {
      for (String name : List.of("a", "b", "c")) starts.start(new Noting(name, log, ran));
      madeWithinTheTurn.addAll(made);
    }).sync();
    assertTrue(ran.await(5, TimeUnit.SECONDS), "every task ran");
    assertEquals(List.of(), madeWithinTheTurn, "no thread is made while the turn is still reading");
    assertEquals(List.of("turn by the loop", "b by a virtual thread", "c by a virtual thread"), made,
        "the loop makes one thread, which makes the others in the order the tasks came");
    assertTrue(log.contains("ran a"), "the turn's own thread runs the first task");

    // The next turn starts a batch of its own; a task alone is started as it is.
    CountDownLatch again = new CountDownLatch(1);
    loop.submit(() -> starts.start(new Noting("d", log, again))).sync();
    assertTrue(again.await(5, TimeUnit.SECONDS));
    assertEquals("d by the loop", made.get(3));
  }

  @Test
  void aTaskWithoutAThreadIsToldWhyAndTheOthersStillStart() throws Exception {
    ThreadFactory threads = r -> {
      if (r instanceof Noting n && n.name().equals("b")) throw new OutOfMemoryError("unable to create thread");
      return Thread.ofVirtual().unstarted(r);
    };
    VirtualStarts starts = new VirtualStarts(loop, threads);
    List<String> log = new CopyOnWriteArrayList<>();
    CountDownLatch ran = new CountDownLatch(3);
    loop.submit(() -> {
      for (String name : List.of("a", "b", "c")) starts.start(new Noting(name, log, ran));
    }).sync();
    assertTrue(ran.await(5, TimeUnit.SECONDS));
    assertTrue(log.contains("ran a") && log.contains("ran c"), log.toString());
    assertTrue(log.contains("no thread for b: unable to create thread"), log.toString());
  }

  @Test
  void whenTheTurnsThreadCannotBeMadeEveryTaskOfTheTurnIsToldWhy() throws Exception {
    ThreadFactory threads = r -> {
      if (!(r instanceof Noting)) throw new OutOfMemoryError("unable to create thread");
      return Thread.ofVirtual().unstarted(r);
    };
    VirtualStarts starts = new VirtualStarts(loop, threads);
    List<String> log = new CopyOnWriteArrayList<>();
    CountDownLatch told = new CountDownLatch(2);
    loop.submit(() -> {
      for (String name : List.of("a", "b")) starts.start(new Noting(name, log, told));
    }).sync();
    assertTrue(told.await(5, TimeUnit.SECONDS));
    assertEquals(List.of("no thread for a: unable to create thread", "no thread for b: unable to create thread"), log);
  }

  // A wake-up that notes where it ran.
  private static Runnable wakeNoting(String name, List<String> log, CountDownLatch ran) {
    return () -> {
      log.add("woke " + name + (Thread.currentThread().isVirtual() ? " on a virtual thread" : " on the loop"));
      ran.countDown();
    };
  }

  @Test
  void aTurnsWakeUpsRunOnItsFirstThreadBeforeItsTasksInTheOrderTheyCame() throws Exception {
    List<String> made = new CopyOnWriteArrayList<>();
    VirtualStarts starts = new VirtualStarts(loop, noting(made));
    List<String> log = new CopyOnWriteArrayList<>();
    CountDownLatch ran = new CountDownLatch(4);
    List<String> loggedWithinTheTurn = new ArrayList<>();
    loop.submit(() -> {
      starts.wake(wakeNoting("w1", log, ran));
      starts.start(new Noting("a", log, ran));
      starts.wake(wakeNoting("w2", log, ran));
      starts.start(new Noting("b", log, ran));
      loggedWithinTheTurn.addAll(log);
    }).sync();
    assertTrue(ran.await(5, TimeUnit.SECONDS), "every wake-up and task ran");
    assertEquals(List.of(), loggedWithinTheTurn, "nothing is woken while the turn is still reading");
    assertEquals(List.of("turn by the loop", "b by a virtual thread"), made);
    assertEquals(List.of("woke w1 on a virtual thread", "woke w2 on a virtual thread"), log.subList(0, 2),
        "the turn's thread wakes first, before any task runs");
    assertTrue(log.containsAll(List.of("ran a", "ran b")), log.toString());
  }

  @Test
  void wakeUpsAloneRunTogetherOnOneThreadAndALoneWakeUpOnTheLoop() throws Exception {
    List<String> made = new CopyOnWriteArrayList<>();
    VirtualStarts starts = new VirtualStarts(loop, noting(made));
    List<String> log = new CopyOnWriteArrayList<>();
    CountDownLatch ran = new CountDownLatch(3);
    loop.submit(() -> {
      for (String name : List.of("w1", "w2", "w3")) starts.wake(wakeNoting(name, log, ran));
    }).sync();
    assertTrue(ran.await(5, TimeUnit.SECONDS));
    assertEquals(List.of("turn by the loop"), made, "one thread for the turn's wake-ups");
    assertEquals(List.of("woke w1 on a virtual thread", "woke w2 on a virtual thread", "woke w3 on a virtual thread"),
        log);

    // A wake-up alone costs no thread: the loop runs it at the end of its turn.
    CountDownLatch alone = new CountDownLatch(1);
    List<String> loggedWithinTheTurn = new ArrayList<>();
    loop.submit(() -> {
      starts.wake(wakeNoting("w4", log, alone));
      loggedWithinTheTurn.addAll(log.subList(3, log.size()));
    }).sync();
    assertTrue(alone.await(5, TimeUnit.SECONDS));
    assertEquals(List.of(), loggedWithinTheTurn);
    assertEquals("woke w4 on the loop", log.get(3));
    assertEquals(1, made.size());
  }

  @Test
  void whenTheTurnsThreadCannotBeMadeItsWakeUpsStillRun() throws Exception {
    ThreadFactory threads = r -> {
      throw new OutOfMemoryError("unable to create thread");
    };
    VirtualStarts starts = new VirtualStarts(loop, threads);
    List<String> log = new CopyOnWriteArrayList<>();
    CountDownLatch ran = new CountDownLatch(3);
    loop.submit(() -> {
      starts.wake(wakeNoting("w1", log, ran));
      starts.start(new Noting("a", log, ran));
      starts.wake(wakeNoting("w2", log, ran));
    }).sync();
    assertTrue(ran.await(5, TimeUnit.SECONDS));
    assertEquals(List.of("woke w1 on the loop", "woke w2 on the loop", "no thread for a: unable to create thread"),
        log);
  }
}
