package onager.kernel.websocket;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.codec.http.websocketx.Utf8FrameValidator;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameDecoder;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameEncoder;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtension;

/**
 * Makes an HTTP/1.1 connection whose handshake got its 101 a WebSocket, on
 * either side: Vert.x's and Onager's HTTP handlers out, the frame codec (with
 * permessage-deflate when it was agreed), the UTF-8 check of text and the
 * {@link WebSocketConnection} in. The lingering close and TLS, ahead of them
 * all, stay.
 */
public final class WebSocketPipeline {
  private WebSocketPipeline() {}

  /** The HTTP/1.1 decoder's name, on the server (Vert.x's) and on the client (the handshake's). */
  public static final String DECODER = "httpDecoder";
  /** The client's HTTP/1.1 encoder's name, which the switch removes. */
  public static final String ENCODER = "httpEncoder";
  // The other HTTP/1.1 handlers Vert.x or Onager may have put after TLS.
  private static final String[] HTTP = {ENCODER, "handler", "chunkedWriter", "onager-http1"};

  /**
   * Switches {@code pipeline}, whose 101 is written (server) or read (client),
   * to the WebSocket that {@code ws} describes, and returns its socket. Bytes
   * the HTTP decoder held past the handshake go to the frame decoder. On the
   * event loop.
   */
  public static WebSocket install(ChannelPipeline pipeline, WebSocketSwitch ws, WebSocketLimits limits) {
    WebSocketExtension extension = ws.extension();
    boolean masks = ws.side().masks();
    WebSocketDecoderConfig frames = WebSocketDecoderConfig.newBuilder()
        .maxFramePayloadLength(limits.maxFrameSize())
        .expectMaskedFrames(!masks)
        .allowMaskMismatch(false)
        .allowExtensions(extension != null)
        .closeOnProtocolViolation(true)
        .withUTF8Validator(false)
        .build();
    WebSocketConnection connection = new WebSocketConnection(ws, limits);
    // Outbound, from the connection to the socket: deflate, then frames. Inbound the reverse,
    // and text is checked once inflated. The frame decoder writes its own close frames
    // (1002, 1009), so the encoder sits before it.
    String last = add(pipeline, DECODER, "ws-encoder", new WebSocket13FrameEncoder(masks));
    last = add(pipeline, last, "ws-decoder", new WebSocket13FrameDecoder(frames));
    if (extension != null) {
      last = add(pipeline, last, "ws-inflate", extension.newExtensionDecoder());
      last = add(pipeline, last, "ws-deflate", extension.newExtensionEncoder());
    }
    last = add(pipeline, last, "ws-utf8", new Utf8FrameValidator(true));
    add(pipeline, last, WebSocketConnection.NAME, connection);
    for (String name : HTTP) {
      if (pipeline.get(name) != null) pipeline.remove(name);
    }
    int high = limits.highWaterMark();
    pipeline.channel().config().setWriteBufferWaterMark(new WriteBufferWaterMark(high / 2, high));
    // The listener opens first; then the HTTP decoder goes, handing the frame decoder what it
    // holds past the handshake.
    connection.open();
    pipeline.remove(DECODER);
    return connection.socket();
  }

  private static String add(ChannelPipeline pipeline, String after, String name, ChannelHandler handler) {
    pipeline.addAfter(after, name, handler);
    return name;
  }
}
