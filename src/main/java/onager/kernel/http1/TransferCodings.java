package onager.kernel.http1;

import java.util.List;
import onager.kernel.http.RejectedRequestException;
import onager.kernel.http.Tokens;

/**
 * Checks a request's Transfer-Encoding before Netty frames its body by it. The
 * server decodes one coding, chunked, which must come last and only once (RFC
 * 9112 §6.1); a list that does not end in chunked leaves the body's length
 * unknown (400), and one that ends in chunked but names another coding asks
 * for what the server does not implement (501). HTTP/1.0 has no transfer
 * codings at all, so a request that sends one is framed in a way a proxy may
 * not have read the same (400).
 */
final class TransferCodings {
  private TransferCodings() {}

  static void check(List<String> values, boolean http11) {
    if (!http11) throw new RejectedRequestException(400, "Transfer-Encoding in an HTTP/1.0 request");
    int codings = 0;
    int chunked = 0;
    boolean lastChunked = false;
    for (String value : values) {
      int start = 0;
      while (start <= value.length()) {
        int comma = value.indexOf(',', start);
        int end = comma < 0 ? value.length() : comma;
        String coding = value.substring(start, end).strip();
        // A coding with parameters (";") is not a token, so not one the server knows.
        if (!Tokens.isToken(coding)) {
          throw new RejectedRequestException(400, "invalid Transfer-Encoding \"" + value + "\"");
        }
        codings++;
        lastChunked = coding.equalsIgnoreCase("chunked");
        if (lastChunked) chunked++;
        if (comma < 0) break;
        start = comma + 1;
      }
    }
    if (!lastChunked || chunked > 1) {
      throw new RejectedRequestException(400, "Transfer-Encoding must end with chunked, once: " + values);
    }
    if (codings > 1) {
      throw new RejectedRequestException(501, "only the chunked transfer coding is implemented: " + values);
    }
  }
}
