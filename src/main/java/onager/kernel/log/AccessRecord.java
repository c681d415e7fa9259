package onager.kernel.log;

import io.netty.handler.codec.http.HttpRequest;

/**
 * One finished exchange, as the access log writes it: made on the event loop
 * when the response has gone out (or the exchange was cut short), formatted and
 * logged later on the access log's own thread. It holds the request itself
 * rather than copies of its fields: nothing changes a request once its
 * exchange has ended, and the event loop then copies nothing.
 */
public final class AccessRecord {
  // Null when the request line could not be read.
  final HttpRequest request;
  final String remoteAddr;
  final int status;
  final long bytesSent;
  final long startMillis;
  final long durationNanos;
  final String requestId;
  final boolean aborted;

  /**
   * @param request       the request, or null when its line could not be read
   * @param remoteAddr    the request map's {@code :remote-addr}
   * @param status        the status sent, 0 when no response head went out
   * @param bytesSent     the bytes of response body handed to the connection
   * @param startMillis   when the request's head arrived, in epoch milliseconds
   * @param durationNanos from the request's head to the response's last byte (or the abort)
   * @param requestId     the request map's {@code :onager/request-id}
   * @param aborted       the exchange ended before its response had gone out whole
   */
  public AccessRecord(HttpRequest request, String remoteAddr, int status, long bytesSent, long startMillis,
                      long durationNanos, String requestId, boolean aborted) {
    this.request = request;
    this.remoteAddr = remoteAddr;
    this.status = status;
    this.bytesSent = bytesSent;
    this.startMillis = startMillis;
    this.durationNanos = durationNanos;
    this.requestId = requestId;
    this.aborted = aborted;
  }
}
