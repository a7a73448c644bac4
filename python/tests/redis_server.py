"""A real ``redis-server`` for a test: a free port on 127.0.0.1, a temporary directory, no
persistence; started and waited for (PING answered), killed when closed."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pings(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2) as s:
            s.settimeout(0.5)
            s.sendall(b"*1\r\n$4\r\nPING\r\n")
            return s.recv(7) == b"+PONG\r\n"
    except OSError:
        return False


class RedisServer:
    def __init__(self) -> None:
        program = shutil.which("redis-server")
        if program is None:
            raise RuntimeError("redis-server is not installed (scripts/test.sh installs it)")
        self.dir = Path(tempfile.mkdtemp(prefix="crawlgate-redis-"))
        last = ""
        # Another process may take the free port between the probe and the bind: try a few.
        for _ in range(5):
            self.port = _free_port()
            log = open(self.dir / "redis.log", "wb")
            self.proc = subprocess.Popen(
                [program, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.dir),
                 "--save", "", "--appendonly", "no"],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log,
            )
            log.close()
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and self.proc.poll() is None:
                if _pings(self.port):
                    return
                time.sleep(0.02)
            self.proc.kill()
            self.proc.wait()
            last = (self.dir / "redis.log").read_text(errors="replace")[-500:]
        shutil.rmtree(self.dir, ignore_errors=True)
        raise RuntimeError(f"redis-server did not start: {last}")

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/"

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)
