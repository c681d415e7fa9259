package onager.bench.client;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * The JDK's HttpClient in the client benchmark, on virtual threads, each
 * caller sending and waiting: HTTP/2 by ALPN over TLS, HTTP/1.1 in clear
 * text (it has no h2c by prior knowledge).
 *
 * <pre>java onager.bench.client.JdkClientLoad get URL CALLERS WARMUP-S DURATION-S
 *      ... download URL SIZE | upload URL SIZE</pre>
 */
public final class JdkClientLoad {
  private JdkClientLoad() {}

  public static void main(String[] args) throws Exception {
    // The benchmark's certificate is its own: trusted here without a check, as by the other clients.
    System.setProperty("jdk.internal.httpclient.disableHostnameVerification", "true");
    String mode = args[0];
    String url = args[1];
    boolean ssl = url.startsWith("https:");
    HttpClient client = HttpClient.newBuilder()
        .version(ssl ? HttpClient.Version.HTTP_2 : HttpClient.Version.HTTP_1_1)
        .sslContext(trustingEverything())
        .connectTimeout(Duration.ofSeconds(10))
        .build();
    switch (mode) {
      case "get" -> {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).build();
        LoadLoop.closedLoop(Integer.parseInt(args[2]), Long.parseLong(args[3]) * 1000,
            Long.parseLong(args[4]) * 1000,
            () -> (long) client.send(request, HttpResponse.BodyHandlers.ofByteArray()).body().length);
      }
      case "download" -> {
        long size = Long.parseLong(args[2]);
        String sep = url.contains("?") ? "&" : "?";
        LoadLoop.transfer(() -> download(client, url + sep + "size=" + size / 4),
            () -> download(client, url + sep + "size=" + size));
      }
      case "upload" -> {
        long size = Long.parseLong(args[2]);
        LoadLoop.transfer(() -> upload(client, url, size / 4), () -> upload(client, url, size));
      }
      default -> throw new IllegalArgumentException(mode);
    }
    System.exit(0);
  }

  private static long download(HttpClient client, String url) throws Exception {
    return LoadLoop.drain(client.send(HttpRequest.newBuilder(URI.create(url)).build(),
        HttpResponse.BodyHandlers.ofInputStream()).body());
  }

  private static long upload(HttpClient client, String url, long size) throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create(url))
        .POST(HttpRequest.BodyPublishers.fromPublisher(
            HttpRequest.BodyPublishers.ofInputStream(() -> LoadLoop.zeros(size)), size))
        .build();
    client.send(request, HttpResponse.BodyHandlers.ofString());
    return size;
  }

  private static SSLContext trustingEverything() throws Exception {
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, new TrustManager[] {new X509TrustManager() {
      @Override
      public void checkClientTrusted(X509Certificate[] chain, String authType) {}

      @Override
      public void checkServerTrusted(X509Certificate[] chain, String authType) {}

      @Override
      public X509Certificate[] getAcceptedIssuers() {
        return new X509Certificate[0];
      }
    }}, new SecureRandom());
    return context;
  }
}
