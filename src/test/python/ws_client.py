"""A WebSocket client no one here wrote (Python's `websockets`) against a server's
echo endpoint: text, binary, a message of many frames' worth, permessage-deflate
when the server agrees to it, and the closing handshake. Prints one line of JSON:
the extensions agreed, the echoes that came back right, the close code.

    python ws_client.py ws://127.0.0.1:PORT/ws/echo COUNT
"""
import asyncio
import json
import sys

import websockets


async def main(url, count):
    async with websockets.connect(url, max_size=None, compression="deflate") as ws:
        agreed = ws.response.headers.get("Sec-WebSocket-Extensions")
        right = 0
        for i in range(count):
            await ws.send(f"message {i}")
            right += (await ws.recv()) == f"message {i}"
        big = "é" * 300_000
        await ws.send(big)
        right += (await ws.recv()) == big
        await ws.send(bytes(range(256)))
        right += (await ws.recv()) == bytes(range(256))
        await ws.close(code=1000, reason="done")
        print(json.dumps({"extensions": agreed, "right": right, "close": ws.close_code}))


asyncio.run(main(sys.argv[1], int(sys.argv[2])))
