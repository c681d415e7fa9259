package onager.kernel.websocket;

import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtension;
import java.util.concurrent.Executor;

/**
 * What turns a connection into a WebSocket once the handshake is done: who
 * listens, where the listener runs (on the server, the handler mode of the
 * request's route), the subprotocol and the permessage-deflate agreed (or
 * null), the count of open sockets that a stop waits on, and which end this
 * process is.
 */
public record WebSocketSwitch(WebSocketListener listener, Executor runner, String protocol,
                              WebSocketExtension extension, OpenSockets sockets, Side side) {}
