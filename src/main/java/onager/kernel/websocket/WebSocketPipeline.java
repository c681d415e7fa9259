package onager.kernel.websocket;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.codec.http.websocketx.Utf8FrameValidator;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameDecoder;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameEncoder;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketServerExtension;

/**
 * Makes an HTTP/1.1 connection that answered 101 a WebSocket: Vert.x's and
 * Onager's HTTP handlers out, the frame codec (with permessage-deflate when it
 * was agreed), the UTF-8 check of text and the {@link WebSocketConnection} in.
 * The lingering close and TLS, ahead of them all, stay.
 */
public final class WebSocketPipeline {
  private WebSocketPipeline() {}

  // The HTTP/1.1 decoder, and the other HTTP/1.1 handlers Vert.x or Onager may have put after TLS.
  private static final String DECODER = "httpDecoder";
  private static final String[] HTTP = {"httpEncoder", "handler", "chunkedWriter", "onager-http1"};

  /**
   * Switches {@code pipeline}, whose 101 is written, to the WebSocket that
   * {@code ws} describes. Bytes the HTTP decoder held past the handshake go to
   * the frame decoder. On the event loop.
   */
  public static void install(ChannelPipeline pipeline, WebSocketSwitch ws, WebSocketLimits limits) {
    WebSocketServerExtension extension = ws.extension();
    WebSocketDecoderConfig frames = WebSocketDecoderConfig.newBuilder()
        .maxFramePayloadLength(limits.maxFrameSize())
        .expectMaskedFrames(true)
        .allowMaskMismatch(false)
        .allowExtensions(extension != null)
        .closeOnProtocolViolation(true)
        .withUTF8Validator(false)
        .build();
    WebSocketConnection connection = new WebSocketConnection(ws, limits);
    // Outbound, from the connection to the socket: deflate, then frames. Inbound the reverse,
    // and text is checked once inflated. The frame decoder writes its own close frames
    // (1002, 1009), so the encoder sits before it.
    String last = add(pipeline, DECODER, "ws-encoder", new WebSocket13FrameEncoder(false));
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
  }

  private static String add(ChannelPipeline pipeline, String after, String name, ChannelHandler handler) {
    pipeline.addAfter(after, name, handler);
    return name;
  }
}
