package onager.kernel.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

final class RequestTallyTest {
  private static final long PERIOD = 1L << RequestTally.PERIOD_SHIFT;
  // The start of a period, and a little into it.
  private static final long START = 1000 * PERIOD;

  @Test
  void countAndTimeAddUpOverTheLoops() {
    RequestTally tally = new RequestTally();
    tally.of(0).record(1_000, START);
    tally.of(1).record(2_000, START);
    tally.of(0).record(3_000, START + 5);
    assertEquals(3, tally.count());
    assertEquals(6_000, tally.totalNanos());
  }

  @Test
  void theMaxIsTheLongestOfTheLoopsThisPeriodAndTheLast() {
    RequestTally tally = new RequestTally();
    tally.of(0).record(500_000_000, START);
    tally.of(1).record(200_000_000, START + PERIOD);
    tally.of(1).record(100_000_000, START + PERIOD + 1);
    assertEquals(0.5, tally.maxSeconds(START + PERIOD + 2));
    assertEquals(0.5, tally.maxSeconds(START), "within the period");
    assertEquals(0.2, tally.maxSeconds(START + 2 * PERIOD), "loop 0's period is gone, loop 1's is the last");
    assertEquals(0.0, tally.maxSeconds(START + 3 * PERIOD), "both periods gone");
  }

  @Test
  void aLoopCarriesItsLastPeriodsMaxIntoTheNext() {
    RequestTally tally = new RequestTally();
    RequestTally.Loop loop = tally.of(0);
    loop.record(900, START);
    loop.record(100, START + PERIOD);
    assertEquals(900e-9, tally.maxSeconds(START + PERIOD), 1e-15);
    loop.record(50, START + 2 * PERIOD);
    assertEquals(100e-9, tally.maxSeconds(START + 2 * PERIOD), 1e-15, "the period before the last is dropped");
    loop.record(70, START + 4 * PERIOD);
    assertEquals(70e-9, tally.maxSeconds(START + 4 * PERIOD), 1e-15, "a period without requests carries nothing");
  }
}
