package onager.kernel.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import onager.kernel.log.Logs;

/**
 * The listening sockets of a server, learnt from the connections they accept
 * (an accepted channel's parent), so that a stop can close them before
 * anything else. Vert.x's own shutdown first takes each event loop off the
 * socket and closes it after the last: a connection accepted in between finds
 * no loop to run on and is closed at once, a request on its way down it lost.
 */
final class ListenSockets {
  private final Set<Channel> sockets = ConcurrentHashMap.newKeySet(4);

  /** {@code connection} was accepted: its listening socket is one of the server's. */
  void accepted(Channel connection) {
    Channel socket = connection.parent();
    if (socket != null && !sockets.contains(socket)) sockets.add(socket);
  }

  /** Closes the listening sockets known, waiting up to {@code timeoutMs} for them to close. */
  void close(long timeoutMs) {
    for (Channel socket : sockets) {
      ChannelFuture closed = socket.close();
      if (!closed.awaitUninterruptibly(timeoutMs, TimeUnit.MILLISECONDS)) {
        Logs.SERVER.warn("the listening socket {} did not close within {} ms",
            socket.localAddress(), timeoutMs);
      }
    }
  }
}
