package onager.kernel.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The counts of a real TCP connection on 127.0.0.1, through Netty's own
 * transport: every byte once, whether a write begins on the event loop or off
 * it (where Netty sizes the message a second time, for its pending bytes).
 */
final class WireCountsTest {
  @Test
  void everyByteWrittenAndReadCountsOnce() throws Exception {
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    try {
      AtomicLong arrived = new AtomicLong();
      CompletableFuture<Long> all = new CompletableFuture<>();
      int total = 3 * 10_000;
      Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
          .childHandler(new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
              LoopMeters received = new LoopMeters(null, ch.eventLoop(), 0);
              ch.config().setRecvByteBufAllocator(new CountedReads(ch.config().getRecvByteBufAllocator(), received));
              ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                  if (arrived.addAndGet(((ByteBuf) msg).readableBytes()) == total) all.complete(received.received());
                  ReferenceCountUtil.release(msg);
                }
              });
            }
          })
          .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
      AtomicReference<LoopMeters> sent = new AtomicReference<>();
      Channel client = new Bootstrap().group(group).channel(NioSocketChannel.class)
          .handler(new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
              sent.set(new LoopMeters(null, ch.eventLoop(), 0));
              ch.config().setMessageSizeEstimator(new CountedWrites(ch.config().getMessageSizeEstimator(), sent.get()));
            }
          })
          .connect(server.localAddress()).sync().channel();

      // Off the event loop: Netty queues a task, sizing the message here and again on the loop.
      client.writeAndFlush(Unpooled.wrappedBuffer(new byte[10_000])).sync();
      client.writeAndFlush(Unpooled.wrappedBuffer(new byte[10_000])).sync();
      // On it.
      client.eventLoop().submit(() -> client.writeAndFlush(Unpooled.wrappedBuffer(new byte[10_000]))).sync();

      assertEquals(total, all.get(10, TimeUnit.SECONDS));
      assertEquals(total, sent.get().sent());
      assertTrue(client.isActive());
      client.close().sync();
      server.close().sync();
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
  }
}
