package onager.kernel.websocket;

import io.netty.handler.codec.http.websocketx.extensions.WebSocketServerExtension;
import java.util.concurrent.Executor;

/**
 * A handler's answer that turns its connection into a WebSocket, once the 101
 * is out: who listens, where the listener runs (the handler mode of the
 * request's route), the permessage-deflate agreed (or null), and the server's
 * count of open sockets.
 */
public record WebSocketSwitch(WebSocketListener listener, Executor runner, WebSocketServerExtension extension,
                              OpenSockets sockets) {}
