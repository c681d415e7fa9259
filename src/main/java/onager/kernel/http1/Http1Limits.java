package onager.kernel.http1;

/**
 * The per-connection limits of the HTTP/1.x pipeline, as validated by the
 * options table. A time of 0 turns that timeout off.
 *
 * @param maxHeaderCount  most header (and trailer) fields one request may have
 * @param headerTimeoutMs longest a request head may take to arrive once it began
 * @param bodyTimeoutMs   longest a request body may stall while the server reads it
 * @param idleTimeoutMs   longest a connection may wait for a request, or for its
 *                        client to take response bytes
 * @param serverHeader    the Server header of the answers the pipeline writes itself, or null
 * @param shutdownTimeoutMs longest a stopping server lets the requests in flight finish
 * @param shutdownIdleMs  how long a stopping server keeps a connection that waits for its
 *                        next request open, for a request already on its way
 */
public record Http1Limits(int maxHeaderCount, long headerTimeoutMs, long bodyTimeoutMs, long idleTimeoutMs,
                          CharSequence serverHeader, long shutdownTimeoutMs, long shutdownIdleMs) {}
