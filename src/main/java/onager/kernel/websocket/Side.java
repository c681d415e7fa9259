package onager.kernel.websocket;

import org.slf4j.Logger;
import onager.kernel.log.Logs;

/**
 * Which end of a WebSocket this process is. The protocol differs by side in
 * two ways: a client masks its frames and a server must not (RFC 6455 §5.1),
 * and the server closes the TCP connection first (§7.1.1), the client waiting
 * for it. The logs and the option names in close reasons differ too.
 */
public enum Side {
  SERVER(Logs.CLIENT, Logs.SERVER, Logs.HANDLER, "from", ":ws-", "server stopping"),
  CLIENT(Logs.HTTP_CLIENT, Logs.HTTP_CLIENT, Logs.HTTP_CLIENT, "to", ":", "client closing");

  /** Where the peer's protocol errors and cut-offs are logged (at debug: the peer's doing). */
  final Logger log;
  /** Where a failure of Onager's own is logged. */
  final Logger errors;
  /** Where a listener's failures are logged. */
  final Logger listeners;
  // "WebSocket from 1.2.3.4:5" on the server, "WebSocket to …" on the client.
  private final String preposition;
  private final String optionPrefix;
  private final String stopping;

  Side(Logger log, Logger errors, Logger listeners, String preposition, String optionPrefix, String stopping) {
    this.log = log;
    this.errors = errors;
    this.listeners = listeners;
    this.preposition = preposition;
    this.optionPrefix = optionPrefix;
    this.stopping = stopping;
  }

  /** The reason of the 1001 this side closes its sockets with when it stops. */
  String stopping() {
    return stopping;
  }

  boolean masks() {
    return this == CLIENT;
  }

  /** "WebSocket from" or "WebSocket to", for the log lines that name the peer. */
  String socketOf() {
    return "WebSocket " + preposition;
  }

  /** The option that sets the limit {@code name} on this side: :ws-max-message-size, :max-message-size. */
  String option(String name) {
    return optionPrefix + name;
  }
}
