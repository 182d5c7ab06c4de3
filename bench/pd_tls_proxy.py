#!/usr/bin/env python3
"""TLS in front of podwait-sim for bench/loadrun.sh --pd-tls: the PD API over HTTPS with client
certificates, as a TiDB cluster with TLS between components serves it (tidb-operator's TLS guide
issues a CA, a server certificate for the PD service names and a client certificate).

    pd_tls_proxy.py PORT_FILE UPSTREAM_PORT CA CERT KEY

Listens on 127.0.0.1 (a free port, written to PORT_FILE), requires a client certificate signed by
CA, and forwards the plaintext of each connection to 127.0.0.1:UPSTREAM_PORT on a connection of its
own, so a connection the client keeps open stays one connection to the simulator as well.
"""
import asyncio
import os
import ssl
import sys


async def pipe(reader, writer):
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError, ssl.SSLError):
        pass
    finally:
        writer.close()


async def main():
    port_file, upstream, ca, cert, key = sys.argv[1:6]
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(cert, key)
    ctx.load_verify_locations(ca)
    ctx.verify_mode = ssl.CERT_REQUIRED

    async def handle(client_reader, client_writer):
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", int(upstream))
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(pipe(client_reader, up_writer), pipe(up_reader, client_writer))

    server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=ctx, backlog=4096)
    with open(port_file + ".tmp", "w") as f:
        f.write(str(server.sockets[0].getsockname()[1]))
    os.rename(port_file + ".tmp", port_file)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
