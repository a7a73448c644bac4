#![allow(dead_code)] // Each test binary uses a different part.
//! A real `redis-server` for one test: a free port on 127.0.0.1, a fresh directory, no
//! persistence. Never a mock, never a shared server: tests cannot see each other's keys.
//!
//! `redis-server` must be on PATH. A missing server is a failure, not a skip, so that a CI
//! without it cannot pass by testing nothing.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How long a starting server has to answer PING.
const START_TIMEOUT: Duration = Duration::from_secs(5);

/// A running `redis-server`, stopped and its directory removed on drop.
#[derive(Debug)]
pub struct RedisServer {
    child: Option<Child>,
    port: u16,
    dir: PathBuf,
    program: PathBuf,
}

impl RedisServer {
    /// Starts a server on a free port in a fresh directory and waits until it answers PING.
    pub fn start() -> RedisServer {
        let program = find_redis_server();
        let dir = fresh_dir();
        // Another process may take the free port between our probe and the server's bind: try a
        // few ports before giving up.
        let mut last_error = String::new();
        for _ in 0..5 {
            let port = free_port();
            match spawn(&program, port, &dir, &[]) {
                Ok(child) => {
                    return RedisServer {
                        child: Some(child),
                        port,
                        dir,
                        program,
                    }
                }
                Err(e) => last_error = e,
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
        panic!("redis-server did not start: {last_error}");
    }

    /// `redis://127.0.0.1:<port>/`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Kills the server with SIGKILL (no clean shutdown) and waits for it to exit.
    pub fn kill(&mut self) {
        self.stop();
    }

    /// Starts the server again on the same port and directory (after [`RedisServer::kill`]).
    pub fn restart(&mut self) {
        self.stop();
        match spawn(&self.program, self.port, &self.dir, &[]) {
            Ok(child) => self.child = Some(child),
            Err(e) => panic!("redis-server did not restart on port {}: {e}", self.port),
        }
    }

    /// Stops the server process (SIGSTOP): connections stay open but nothing answers, as with
    /// a hung server or a network partition.
    pub fn freeze(&self) {
        self.signal("-STOP");
    }

    /// Lets a frozen server run again (SIGCONT).
    pub fn thaw(&self) {
        self.signal("-CONT");
    }

    fn signal(&self, signal: &str) {
        let child = self.child.as_ref().expect("redis-server is running");
        // std has no signal API other than SIGKILL; `kill(1)` is everywhere redis-server is.
        let status = Command::new("kill")
            .arg(signal)
            .arg(child.id().to_string())
            .status()
            .unwrap_or_else(|e| panic!("cannot run kill: {e}"));
        assert!(status.success(), "kill {signal} failed: {status}");
    }

    /// Sends one command and returns the reply: `+OK` as `OK`, `:1` as `1`, a bulk string as
    /// its text, a nil as `(nil)`, an error as `ERR …` (arrays are not supported).
    pub fn command(&self, args: &[&[u8]]) -> String {
        command_on(self.port, args)
    }

    fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            // `Child::kill` is SIGKILL on Unix.
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Sends one command to the server on `port` (see [`RedisServer::command`]).
pub(crate) fn command_on(port: u16, args: &[&[u8]]) -> String {
    let mut stream = TcpStream::connect((Ipv4Addr::LOCALHOST, port))
        .unwrap_or_else(|e| panic!("cannot connect to redis-server: {e}"));
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .expect("read timeout");
    stream.write_all(&encode(args)).expect("write command");
    let mut reader = BufReader::new(stream);
    read_reply(&mut reader).unwrap_or_else(|e| panic!("no reply from redis-server: {e}"))
}

/// Runs the server with `extra` arguments and waits until it answers PING (or exits, or the
/// time is up).
pub(crate) fn spawn(
    program: &Path,
    port: u16,
    dir: &Path,
    extra: &[&str],
) -> Result<Child, String> {
    let log_path = dir.join("redis.log");
    let log =
        std::fs::File::create(&log_path).map_err(|e| format!("cannot create the log file: {e}"))?;
    let log2 = log
        .try_clone()
        .map_err(|e| format!("cannot share the log file: {e}"))?;
    let mut child = Command::new(program)
        .arg("--port")
        .arg(port.to_string())
        .arg("--bind")
        .arg("127.0.0.1")
        .arg("--dir")
        .arg(dir)
        .arg("--save")
        .arg("")
        .arg("--appendonly")
        .arg("no")
        .args(extra)
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log2)
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
    let deadline = Instant::now() + START_TIMEOUT;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!(
                "it exited with {status} on port {port}: {}",
                log_tail(&log_path)
            ));
        }
        if pings(port) {
            return Ok(child);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "no PONG within {START_TIMEOUT:?} on port {port}: {}",
                log_tail(&log_path)
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn pings(port: u16) -> bool {
    let Ok(mut stream) = TcpStream::connect_timeout(
        &(Ipv4Addr::LOCALHOST, port).into(),
        Duration::from_millis(200),
    ) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    if stream.write_all(b"*1\r\n$4\r\nPING\r\n").is_err() {
        return false;
    }
    let mut reply = [0u8; 7];
    stream.read_exact(&mut reply).is_ok() && &reply == b"+PONG\r\n"
}

fn log_tail(path: &Path) -> String {
    let log = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = log.lines().collect();
    lines[lines.len().saturating_sub(5)..].join(" | ")
}

pub(crate) fn find_redis_server() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("redis-server"))
        .find(|candidate| is_executable(candidate))
        .unwrap_or_else(|| {
            panic!(
                "redis-server not found: run `bash scripts/test.sh` (installs it) or \
                 `apt-get install redis-server`"
            )
        })
}

pub(crate) fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

pub(crate) fn free_port() -> u16 {
    // The OS picks a free port; the listener closes before the server binds it.
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind 127.0.0.1:0");
    listener.local_addr().expect("local address").port()
}

pub(crate) fn fresh_dir() -> PathBuf {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let dir = std::env::temp_dir().join(format!(
        "crawlgate-redis-{}-{nanos}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    dir
}

pub(crate) fn encode(args: &[&[u8]]) -> Vec<u8> {
    let mut out = format!("*{}\r\n", args.len()).into_bytes();
    for arg in args {
        out.extend_from_slice(format!("${}\r\n", arg.len()).as_bytes());
        out.extend_from_slice(arg);
        out.extend_from_slice(b"\r\n");
    }
    out
}

pub(crate) fn read_reply(reader: &mut impl BufRead) -> std::io::Result<String> {
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let line = line.trim_end_matches("\r\n");
    let (kind, rest) = line.split_at(line.len().min(1));
    Ok(match kind {
        "+" | ":" | "-" => rest.to_owned(),
        "$" if rest == "-1" => "(nil)".to_owned(),
        "$" => {
            let len: usize = rest.parse().map_err(std::io::Error::other)?;
            let mut body = vec![0u8; len + 2];
            reader.read_exact(&mut body)?;
            body.truncate(len);
            String::from_utf8_lossy(&body).into_owned()
        }
        _ => return Err(std::io::Error::other(format!("unsupported reply {line:?}"))),
    })
}
