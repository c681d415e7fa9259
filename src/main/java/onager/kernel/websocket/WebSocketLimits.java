package onager.kernel.websocket;

import java.util.Set;

/**
 * The limits of the server's WebSockets, as validated by the options table. A
 * time of 0 turns that timeout off.
 *
 * @param maxFrameSize      largest frame payload a client may send (close 1009 beyond)
 * @param maxMessageSize    largest message, all its fragments together, after decompression (close 1009 beyond)
 * @param idleTimeoutMs     longest a connection may receive nothing (close 1001)
 * @param pingIntervalMs    a ping is sent after this long without a frame from the client
 * @param writeTimeoutMs    longest a client may take no bytes while the server has some for it (cut off)
 * @param highWaterMark     bytes waiting to be sent over which a blocking send waits
 * @param deflate           permessage-deflate (RFC 7692) accepted when a client offers it
 * @param deflateLevel      its compression level, 1 (fastest) to 9
 * @param deflateWindowBits the largest LZ77 window either side may use, 8 to 15
 * @param origins           the Origin values a handshake may carry (403 for others); empty for any
 */
public record WebSocketLimits(int maxFrameSize, int maxMessageSize, long idleTimeoutMs, long pingIntervalMs,
                              long writeTimeoutMs, int highWaterMark, boolean deflate, int deflateLevel,
                              int deflateWindowBits, Set<String> origins) {}
