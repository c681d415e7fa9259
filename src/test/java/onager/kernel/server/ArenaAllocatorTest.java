package onager.kernel.server;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;

/**
 * Connections take the arena allocator only where it pools direct memory: with
 * none (Netty's default under a small heap) each buffer would be malloc'd alone.
 */
final class ArenaAllocatorTest {
  @Test
  void anAllocatorWithoutDirectArenasIsNotUsed() {
    PooledByteBufAllocator none = new PooledByteBufAllocator(true, 1, 0, 8192, 9);
    assertNull(ServerVerticle.arenaAllocator(none));
  }

  @Test
  void anAllocatorWithDirectArenasIsUsed() {
    PooledByteBufAllocator pooled = new PooledByteBufAllocator(true, 1, 1, 8192, 9);
    assertSame(pooled, ServerVerticle.arenaAllocator(pooled));
  }
}
