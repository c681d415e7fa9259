package onager.kernel.websocket;

import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionData;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionDecoder;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionEncoder;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketServerExtension;
import java.util.HashMap;
import java.util.Map;

/**
 * permessage-deflate for a client that asks the server to deflate with a
 * window under 32 KiB (server_max_window_bits, RFC 7692 §7.1.2.1). The JDK's
 * zlib deflates with a 32 KiB window only, so the server sends its messages as
 * stored deflate blocks, which refer back to nothing and so keep to any window;
 * what the client sends is inflated as usual. {@code agreed} was negotiated at
 * compression level 0 from the offer without the parameter, which the answer
 * then carries back.
 */
record StoredDeflate(WebSocketServerExtension agreed, String windowBits) implements WebSocketServerExtension {
  @Override
  public int rsv() {
    return agreed.rsv();
  }

  @Override
  public WebSocketExtensionEncoder newExtensionEncoder() {
    return agreed.newExtensionEncoder();
  }

  @Override
  public WebSocketExtensionDecoder newExtensionDecoder() {
    return agreed.newExtensionDecoder();
  }

  @Override
  public WebSocketExtensionData newReponseData() {
    WebSocketExtensionData data = agreed.newReponseData();
    Map<String, String> parameters = new HashMap<>(data.parameters());
    parameters.put(WebSocketHandshake.SERVER_MAX_WINDOW_BITS, windowBits);
    return new WebSocketExtensionData(data.name(), parameters);
  }
}
