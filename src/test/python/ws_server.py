"""A WebSocket server no one here wrote (Python's `websockets`) for the client's
tests: it echoes every message as it came, agrees to permessage-deflate when
the client offers it, picks the subprotocol "chat.v2" when offered, and closes
with 4000 "asked" when sent the text "close me". Prints its port, then serves
until stdin closes; logs each connection and error to stderr.

    python ws_server.py
"""
import asyncio
import logging
import sys

import websockets
from websockets.asyncio.server import serve


async def echo(ws):
    async for message in ws:
        if message == "close me":
            await ws.close(code=4000, reason="asked")
            return
        await ws.send(message)


async def main():
    # Each connection's opening and closing, and any error, to stderr: the test shows it when a send fails.
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(message)s")
    async with serve(echo, "127.0.0.1", 0, subprotocols=["chat.v2"], max_size=None,
                     compression="deflate") as server:
        port = server.sockets[0].getsockname()[1]
        print(port, flush=True)
        # Serves until the test closes stdin.
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)


asyncio.run(main())
