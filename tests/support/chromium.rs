//! Real headless Chromium for the tests, driven over the DevTools protocol with no crate: the
//! browser runs with `--remote-debugging-pipe` (as Puppeteer's and Playwright's pipe transport),
//! which speaks JSON messages ended by a NUL byte on its file descriptors 3 (in) and 4 (out); a
//! `sh` wrapper maps them to the child's stdin and stdout.
//!
//! The browser gets a temporary profile and its own process group, and is killed (the whole
//! group) when the [`Browser`] is dropped, also when a test panics. No Chromium on the machine
//! is a test failure saying to run `scripts/test.sh`, which installs it.
#![allow(dead_code)] // Each test binary uses a different part.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// How long one DevTools command may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// The Chromium binary: `$CHROMIUM`, else `chromium`, `chromium-browser` or `google-chrome` on
/// `PATH`. Panics (the test fails) when there is none.
pub fn binary() -> PathBuf {
    if let Some(p) = std::env::var_os("CHROMIUM").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        assert!(
            p.is_file(),
            "$CHROMIUM is {}, which is not a file: run `bash scripts/test.sh`, which installs \
             the Debian package `chromium`, or point $CHROMIUM at a Chromium",
            p.display()
        );
        return p;
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return candidate;
            }
        }
    }
    panic!(
        "headless Chromium is needed for this test and none was found (chromium, \
         chromium-browser or google-chrome on PATH, or $CHROMIUM): run `bash scripts/test.sh`, \
         which installs the Debian package `chromium`, or `apt-get install chromium`"
    );
}

/// A running headless Chromium and one page in it.
pub struct Browser {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    next_id: u64,
    /// The page's session (flat mode): page commands carry it.
    session: Option<String>,
    /// Where the browser's standard error goes, for failure messages.
    log: PathBuf,
    /// The profile and the log; removed after the browser is killed.
    _dir: tempfile::TempDir,
}

impl Browser {
    /// Starts Chromium with an empty page of `width` × `height` CSS pixels and attaches to it.
    /// `env`: extra environment (`TZ`, for the page's local time).
    pub fn start(width: u32, height: u32, env: &[(&str, &str)]) -> Browser {
        let chromium = binary();
        let dir = tempfile::tempdir().expect("temp dir");
        let profile = dir.path().join("profile");
        let log = dir.path().join("chromium.log");
        let mut command = Command::new("sh");
        command
            .arg("-c")
            // fd 3: what the test writes; fd 4: what it reads. Chromium's own output: the log.
            .arg(r#"exec "$@" 3<&0 4>&1 </dev/null >&2"#)
            .arg("sh")
            .arg(&chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-extensions",
                "--no-first-run",
                "--no-default-browser-check",
                "--mute-audio",
                "--hide-scrollbars",
                "--remote-debugging-pipe",
                &format!("--window-size={width},{height}"),
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).expect("chromium log file"))
            .process_group(0);
        for (k, v) in env {
            command.env(k, v);
        }
        let mut child = command
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", chromium.display()));
        let stdin = child.stdin.take().expect("chromium stdin");
        let stdout = child.stdout.take().expect("chromium stdout");
        let (tx, messages) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut message = Vec::new();
                match reader.read_until(0, &mut message) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                }
                if message.last() == Some(&0) {
                    message.pop();
                }
                let Ok(value) = serde_json::from_slice::<Value>(&message) else {
                    continue;
                };
                if tx.send(value).is_err() {
                    return;
                }
            }
        });
        let mut browser = Browser {
            child,
            stdin,
            messages,
            next_id: 0,
            session: None,
            log,
            _dir: dir,
        };
        browser.attach();
        browser
    }

    /// Attaches to the page the browser opened (flat sessions).
    fn attach(&mut self) {
        let deadline = Instant::now() + CALL_TIMEOUT;
        let target = loop {
            let targets = self.browser_call("Target.getTargets", json!({}));
            let page = targets["targetInfos"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|t| t["type"] == "page")
                .and_then(|t| t["targetId"].as_str().map(str::to_owned));
            if let Some(id) = page {
                break id;
            }
            assert!(Instant::now() < deadline, "Chromium opened no page");
            std::thread::sleep(Duration::from_millis(50));
        };
        let attached = self.browser_call(
            "Target.attachToTarget",
            json!({ "targetId": target, "flatten": true }),
        );
        self.session = Some(
            attached["sessionId"]
                .as_str()
                .expect("a session id")
                .to_owned(),
        );
    }

    /// The last lines the browser wrote on standard error.
    pub fn log_tail(&self) -> String {
        let mut text = String::new();
        if let Ok(mut f) = std::fs::File::open(&self.log) {
            let _ = f.read_to_string(&mut text);
        }
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }

    fn send(&mut self, method: &str, params: Value, session: Option<String>) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            message["sessionId"] = Value::String(s);
        }
        let mut bytes = serde_json::to_vec(&message).expect("JSON");
        bytes.push(0);
        if let Err(e) = self
            .stdin
            .write_all(&bytes)
            .and_then(|()| self.stdin.flush())
        {
            panic!(
                "cannot write to Chromium ({method}): {e}\n{}",
                self.log_tail()
            );
        }
        let deadline = Instant::now() + CALL_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.messages.recv_timeout(left) {
                Ok(m) if m["id"] == id => {
                    if let Some(e) = m.get("error") {
                        panic!("DevTools {method} failed: {e}");
                    }
                    return m["result"].clone();
                }
                Ok(_) => {} // An event, or another answer.
                Err(RecvTimeoutError::Timeout) => {
                    panic!(
                        "Chromium did not answer {method} in time\n{}",
                        self.log_tail()
                    )
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("Chromium went away during {method}\n{}", self.log_tail())
                }
            }
        }
    }

    /// A browser-level command.
    pub fn browser_call(&mut self, method: &str, params: Value) -> Value {
        self.send(method, params, None)
    }

    /// A command to the page.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        let session = self.session.clone();
        self.send(method, params, session)
    }

    /// Opens `url` in the page and waits until it has loaded (`document.readyState` complete).
    pub fn open(&mut self, url: &str) {
        let answer = self.call("Page.navigate", json!({ "url": url }));
        if let Some(e) = answer.get("errorText") {
            panic!("cannot open {url}: {e}");
        }
        let deadline = Instant::now() + CALL_TIMEOUT;
        loop {
            let href = self.eval("location.href");
            if href.as_str() == Some(url) && self.eval("document.readyState") == "complete" {
                return;
            }
            assert!(Instant::now() < deadline, "{url} did not load in time");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The value of a JavaScript expression in the page (by value: JSON-able results).
    pub fn eval(&mut self, expression: &str) -> Value {
        let r = self.call(
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true }),
        );
        if let Some(e) = r.get("exceptionDetails") {
            panic!("JavaScript {expression:?} threw: {e}");
        }
        r["result"]["value"].clone()
    }

    /// A real key press (down, then up) through `Input.dispatchKeyEvent`, as the browser gets
    /// it from the keyboard. `key`: `ArrowDown`, `ArrowUp`, or one letter.
    pub fn press(&mut self, key: &str) {
        let (code, key_code, text) = match key {
            "ArrowDown" => ("ArrowDown".to_owned(), 40, None),
            "ArrowUp" => ("ArrowUp".to_owned(), 38, None),
            k if k.len() == 1 && k.as_bytes()[0].is_ascii_lowercase() => {
                let c = k.as_bytes()[0].to_ascii_uppercase();
                (format!("Key{}", char::from(c)), u32::from(c), Some(k))
            }
            k => panic!("no key code for {k:?}"),
        };
        let mut down = json!({
            "type": if text.is_some() { "keyDown" } else { "rawKeyDown" },
            "key": key,
            "code": code,
            "windowsVirtualKeyCode": key_code,
            "nativeVirtualKeyCode": key_code,
        });
        if let Some(t) = text {
            down["text"] = json!(t);
            down["unmodifiedText"] = json!(t);
        }
        self.call("Input.dispatchKeyEvent", down);
        self.call(
            "Input.dispatchKeyEvent",
            json!({
                "type": "keyUp",
                "key": key,
                "code": code,
                "windowsVirtualKeyCode": key_code,
                "nativeVirtualKeyCode": key_code,
            }),
        );
    }

    /// A PNG of the whole page (up to `max_height` CSS pixels), written to `path`.
    pub fn screenshot(&mut self, path: &Path, width: u32, max_height: u32) {
        let height = self
            .eval("Math.ceil(document.documentElement.scrollHeight)")
            .as_u64()
            .unwrap_or(u64::from(max_height))
            .min(u64::from(max_height));
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false }),
        );
        let shot = self.call(
            "Page.captureScreenshot",
            json!({ "format": "png", "captureBeyondViewport": false }),
        );
        let png = base64_decode(shot["data"].as_str().expect("screenshot data"));
        assert!(png.starts_with(b"\x89PNG"), "not a PNG");
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("screenshot directory");
        }
        std::fs::write(path, png).expect("write the screenshot");
        self.call("Emulation.clearDeviceMetricsOverride", json!({}));
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Asked first, so that the browser ends its own children; then the whole process group
        // (renderers, zygote), by its id (the browser's own pid), whatever is left.
        let close = json!({ "id": 0, "method": "Browser.close" }).to_string() + "\0";
        if self.stdin.write_all(close.as_bytes()).is_ok() && self.stdin.flush().is_ok() {
            let deadline = Instant::now() + Duration::from_secs(5);
            while Instant::now() < deadline && matches!(self.child.try_wait(), Ok(None)) {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill")
            .args(["-KILL", "--", &group])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Standard base64 (the screenshot's PNG).
fn base64_decode(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let (mut acc, mut bits) = (0u32, 0);
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => break,
            _ => continue,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}
