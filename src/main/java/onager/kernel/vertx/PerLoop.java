package onager.kernel.vertx;

import io.netty.util.concurrent.EventExecutor;
import java.util.Arrays;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One value per event loop, made the first time that loop's value is asked
 * for. A server or a client runs on a few loops, so a scan of a small array,
 * replaced whole when a loop is added, finds a loop's value without a lock or
 * a hash: cheap enough for every request.
 */
public final class PerLoop<T> {
  private record Slot<T>(EventExecutor loop, T value) {}

  private final Function<EventExecutor, T> make;
  private volatile Slot<T>[] slots;

  /** Values made by {@code make}, from the loop, on the thread that first asks for the loop's. */
  @SuppressWarnings("unchecked")
  public PerLoop(Function<EventExecutor, T> make) {
    this.make = make;
    this.slots = (Slot<T>[]) new Slot<?>[0];
  }

  /** The value of {@code loop}, made now if it has none yet. Any thread. */
  public T of(EventExecutor loop) {
    for (Slot<T> s : slots) {
      if (s.loop == loop) return s.value;
    }
    return add(loop);
  }

  private synchronized T add(EventExecutor loop) {
    Slot<T>[] now = slots;
    for (Slot<T> s : now) {
      if (s.loop == loop) return s.value;
    }
    T value = make.apply(loop);
    Slot<T>[] next = Arrays.copyOf(now, now.length + 1);
    next[now.length] = new Slot<>(loop, value);
    slots = next;
    return value;
  }

  /** Gives {@code each} the values made so far. Any thread. */
  public void forEach(Consumer<? super T> each) {
    for (Slot<T> s : slots) each.accept(s.value);
  }
}
