package onager.kernel.http2;

/**
 * The limits of the HTTP/2 connections, as validated by the options table. A time
 * of 0 turns that timeout off.
 *
 * @param maxConcurrentStreams     SETTINGS_MAX_CONCURRENT_STREAMS: a stream beyond is refused (REFUSED_STREAM)
 * @param initialWindowSize        SETTINGS_INITIAL_WINDOW_SIZE: the request body bytes a stream may send ahead
 *                                 of its handler's reading
 * @param connectionWindowSize     the same for all the streams of a connection together
 * @param maxFrameSize             SETTINGS_MAX_FRAME_SIZE: the largest frame the server takes
 * @param headerTableSize          SETTINGS_HEADER_TABLE_SIZE: the HPACK table the client may fill
 * @param maxHeaderListSize        SETTINGS_MAX_HEADER_LIST_SIZE: the largest decoded header list (RFC 9113 §6.5.2)
 * @param maxHeaderCount           most header fields one request may have (431 beyond)
 * @param maxResets                RST_STREAM frames a client may send in {@code resetWindowSeconds}, and the
 *                                 resets its frames may cause, before the connection is cut (rapid reset)
 * @param resetWindowSeconds       the window of {@code maxResets}
 * @param maxSmallContinuations    CONTINUATION frames with little in them one header block may have
 * @param maxEmptyDataFrames       consecutive empty DATA frames a stream may send
 * @param maxQueuedControlFrames   control frames (SETTINGS and PING acknowledgements, resets) that may wait for a
 *                                 client that does not read them
 * @param maxControlFramesPerSecond SETTINGS, PING and PRIORITY frames a client may send per second
 * @param headerTimeoutMs          longest a header block (a HEADERS frame and its CONTINUATION frames) may take
 *                                 to arrive whole
 * @param bodyTimeoutMs            longest a request body may stall while its handler reads it
 * @param idleTimeoutMs            longest a connection may have no stream, and a stream's client may take no bytes
 * @param shutdownTimeoutMs        longest a stopping server lets the open streams finish
 */
public record Http2Limits(int maxConcurrentStreams, int initialWindowSize, int connectionWindowSize,
                          int maxFrameSize, int headerTableSize, int maxHeaderListSize, int maxHeaderCount,
                          int maxResets, int resetWindowSeconds, int maxSmallContinuations,
                          int maxEmptyDataFrames, int maxQueuedControlFrames, int maxControlFramesPerSecond,
                          long headerTimeoutMs, long bodyTimeoutMs, long idleTimeoutMs, long shutdownTimeoutMs) {}
