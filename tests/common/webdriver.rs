//! A small client of the W3C WebDriver protocol, enough to drive the web
//! page in a real headless Chromium: `chromedriver` started on a free
//! loopback port, one browser session per [`Browser`], JSON over HTTP/1.1
//! (one request per connection), every wait bounded. Dropping a browser
//! ends its session and stops its `chromedriver`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The key of an element reference in WebDriver's JSON.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// How long one command may take.
const COMMAND_TIME: Duration = Duration::from_secs(90);

/// The first of `names` found on the PATH.
fn on_path(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    names.iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

/// The browser and its driver, when both are installed: Debian's
/// `chromium` and `chromium-driver` (or Google Chrome's names).
pub fn installed() -> Result<(PathBuf, PathBuf), String> {
    let driver = on_path(&["chromedriver"])
        .ok_or("chromedriver is not installed (apt-get install chromium-driver)")?;
    let browser = on_path(&["chromium", "chromium-browser", "google-chrome"])
        .ok_or("chromium is not installed (apt-get install chromium)")?;
    Ok((browser, driver))
}

/// One HTTP/1.1 exchange with the driver on 127.0.0.1:`port`: the status
/// and the JSON body (read to its length: the driver may keep the
/// connection open).
fn http(port: u16, method: &str, path: &str, body: Option<&Value>) -> Result<(u16, Value), String> {
    let fail = |e: std::io::Error| format!("{method} {path}: {e}");
    let s = TcpStream::connect((Ipv4Addr::LOCALHOST, port)).map_err(fail)?;
    s.set_read_timeout(Some(COMMAND_TIME)).map_err(fail)?;
    s.set_write_timeout(Some(COMMAND_TIME)).map_err(fail)?;
    let body = body.map(Value::to_string).unwrap_or_default();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    (&s).write_all(request.as_bytes()).map_err(fail)?;
    let mut r = BufReader::new(s);
    let mut line = String::new();
    r.read_line(&mut line).map_err(fail)?;
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("{method} {path}: no status in {line:?}"))?;
    let (mut length, mut chunked) = (None, false);
    loop {
        line.clear();
        r.read_line(&mut line).map_err(fail)?;
        let header = line.trim_end().to_ascii_lowercase();
        if header.is_empty() {
            break;
        }
        if let Some(n) = header.strip_prefix("content-length:") {
            length = n.trim().parse::<usize>().ok();
        }
        chunked |= header.starts_with("transfer-encoding:") && header.contains("chunked");
    }
    let mut data = Vec::new();
    if chunked {
        loop {
            line.clear();
            r.read_line(&mut line).map_err(fail)?;
            let size = usize::from_str_radix(line.trim(), 16).map_err(|e| e.to_string())?;
            let mut chunk = vec![0; size + 2];
            r.read_exact(&mut chunk).map_err(fail)?;
            if size == 0 {
                break;
            }
            data.extend_from_slice(&chunk[..size]);
        }
    } else if let Some(n) = length {
        data.resize(n, 0);
        r.read_exact(&mut data).map_err(fail)?;
    } else {
        r.read_to_end(&mut data).map_err(fail)?;
    }
    let value = if data.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&data).map_err(|e| format!("{method} {path}: {e}"))?
    };
    Ok((status, value))
}

/// A free port on the loopback interface (free when asked; the driver is
/// started again on another if it was taken meanwhile).
fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

/// A headless Chromium driven through its own `chromedriver`.
pub struct Browser {
    driver: Child,
    port: u16,
    session: String,
    /// Chromium's temporary files and profile (it is given this directory
    /// as its `TMPDIR`), removed when the browser is dropped, so that the
    /// suite leaves nothing in the system's temporary directory.
    _scratch: tempfile::TempDir,
}

/// The page's size: a desktop window, or a phone's screen (its CSS pixels
/// and pixel ratio, as Chromium's mobile emulation gives them).
#[derive(Debug, Clone, Copy)]
pub enum Screen {
    /// A window of this many pixels.
    Desktop(u32, u32),
    /// A phone of this many CSS pixels, at this pixel ratio.
    Phone(u32, u32, f64),
}

impl Browser {
    /// Starts `chromedriver` on a free loopback port and a headless
    /// Chromium session at `screen`'s size.
    pub fn start(screen: Screen) -> Browser {
        let (browser, driver) = installed().expect("chromium and chromedriver");
        let scratch = tempfile::Builder::new()
            .prefix("bbx-browser-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .expect("a scratch directory for the browser");
        let mut last = String::new();
        for _ in 0..3 {
            let port = free_port();
            let mut child = Command::new(&driver)
                .arg(format!("--port={port}"))
                .env("TMPDIR", scratch.path())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("chromedriver starts");
            let deadline = Instant::now() + Duration::from_secs(20);
            let ready = loop {
                match http(port, "GET", "/status", None) {
                    Ok((200, v)) if v["value"]["ready"] == json!(true) => break true,
                    _ if Instant::now() > deadline => break false,
                    _ if child.try_wait().ok().flatten().is_some() => break false,
                    _ => std::thread::sleep(Duration::from_millis(50)),
                }
            };
            if !ready {
                let _ = child.kill();
                let _ = child.wait();
                last = format!("chromedriver did not answer on port {port}");
                continue;
            }
            let mut args = vec![
                "--headless=new".to_string(),
                "--no-sandbox".into(),
                "--disable-gpu".into(),
                "--disable-dev-shm-usage".into(),
                "--no-first-run".into(),
                "--hide-scrollbars".into(),
            ];
            let mut options = json!({ "binary": browser, "args": [] });
            match screen {
                Screen::Desktop(w, h) => args.push(format!("--window-size={w},{h}")),
                Screen::Phone(w, h, ratio) => {
                    options["mobileEmulation"] = json!({
                        "deviceMetrics": { "width": w, "height": h, "pixelRatio": ratio, "touch": true, "mobile": true }
                    });
                }
            }
            options["args"] = json!(args);
            let caps = json!({ "capabilities": { "alwaysMatch": {
                "browserName": "chrome",
                "goog:chromeOptions": options,
            }}});
            match http(port, "POST", "/session", Some(&caps)) {
                Ok((200, v)) => {
                    let session = v["value"]["sessionId"]
                        .as_str()
                        .expect("a session")
                        .to_string();
                    return Browser {
                        driver: child,
                        port,
                        session,
                        _scratch: scratch,
                    };
                }
                other => {
                    last = format!("no session: {other:?}");
                    let _ = child.kill();
                    let _ = child.wait();
                }
            }
        }
        panic!("cannot start headless Chromium: {last}");
    }

    /// A command of the session: its value, or the driver's error code and
    /// message.
    fn try_command(
        &self,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) -> Result<Value, (String, String)> {
        let path = format!("/session/{}{path}", self.session);
        let (status, v) = http(self.port, method, &path, body.as_ref())
            .unwrap_or_else(|e| panic!("WebDriver {method} {path}: {e}"));
        if status == 200 {
            return Ok(v["value"].clone());
        }
        let text = |k: &str| v["value"][k].as_str().unwrap_or_default().to_string();
        Err((
            text("error"),
            format!("{method} {path}: {}", text("message")),
        ))
    }

    /// A command of the session; panics with the driver's message on error.
    fn command(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        self.try_command(method, path, body)
            .unwrap_or_else(|(_, message)| panic!("WebDriver {message}"))
    }

    /// Opens `url` and waits for it to load.
    pub fn open(&self, url: &str) {
        self.command("POST", "/url", Some(json!({ "url": url })));
    }

    /// Runs `script` (a function body; `arguments` holds `args`) in the page
    /// and returns what it returns.
    pub fn js(&self, script: &str, args: Value) -> Value {
        self.command(
            "POST",
            "/execute/sync",
            Some(json!({ "script": script, "args": args })),
        )
    }

    /// The value of the JavaScript expression `expr`.
    pub fn eval(&self, expr: &str) -> Value {
        self.js(&format!("return ({expr});"), json!([]))
    }

    /// Waits until the JavaScript expression `expr` is truthy, at most
    /// `limit`; its value. Panics naming `what` past the limit.
    pub fn wait_for(&self, expr: &str, what: &str, limit: Duration) -> Value {
        let deadline = Instant::now() + limit;
        loop {
            let v = self.eval(expr);
            let truthy =
                !matches!(&v, Value::Null | Value::Bool(false)) && v != json!("") && v != json!(0);
            if truthy {
                return v;
            }
            if Instant::now() > deadline {
                panic!("{what}: not within {limit:?} ({expr})");
            }
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// The element `css` selects (the first one); panics when there is none.
    pub fn find(&self, css: &str) -> String {
        let v = self.command(
            "POST",
            "/element",
            Some(json!({ "using": "css selector", "value": css })),
        );
        v[ELEMENT]
            .as_str()
            .unwrap_or_else(|| panic!("no element {css}"))
            .to_string()
    }

    /// Clicks the element `css` selects, as a user would (at its centre).
    /// The page draws its boards again after each change: an element
    /// replaced between finding and clicking it is found again.
    pub fn click(&self, css: &str) {
        for _ in 0..5 {
            let e = self.find(css);
            match self.try_command("POST", &format!("/element/{e}/click"), Some(json!({}))) {
                Ok(_) => return,
                Err((code, _)) if code == "stale element reference" => continue,
                Err((_, message)) => panic!("WebDriver {message}"),
            }
        }
        panic!("{css} was replaced five times while being clicked");
    }

    /// Clicks with the right button at the centre of the element `css`
    /// selects.
    pub fn right_click(&self, css: &str) {
        let e = self.find(css);
        let origin = json!({ ELEMENT: e });
        let actions = json!({ "actions": [{
            "type": "pointer", "id": "mouse", "parameters": { "pointerType": "mouse" },
            "actions": [
                { "type": "pointerMove", "origin": origin, "x": 0, "y": 0 },
                { "type": "pointerDown", "button": 2 },
                { "type": "pointerUp", "button": 2 },
            ],
        }]});
        self.command("POST", "/actions", Some(actions));
        self.command("DELETE", "/actions", None);
    }

    /// Types `text` into the element `css` selects, after clearing it.
    pub fn type_into(&self, css: &str, text: &str) {
        let e = self.find(css);
        self.command("POST", &format!("/element/{e}/clear"), Some(json!({})));
        self.send_keys(css, text);
    }

    /// Sends `text` to the element `css` selects as keys (to a file input:
    /// the path of the file to choose).
    pub fn send_keys(&self, css: &str, text: &str) {
        let e = self.find(css);
        self.command(
            "POST",
            &format!("/element/{e}/value"),
            Some(json!({ "text": text })),
        );
    }

    /// Accepts the dialog the page shows (`confirm`), once it is shown.
    pub fn accept_dialog(&self) {
        let path = format!("/session/{}/alert/accept", self.session);
        let deadline = Instant::now() + Duration::from_secs(10);
        while !matches!(
            http(self.port, "POST", &path, Some(&json!({}))),
            Ok((200, _))
        ) {
            assert!(Instant::now() < deadline, "no dialog to accept");
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// The text of the dialog the browser shows (`alert`, `confirm`), if
    /// one is open.
    pub fn alert_text(&self) -> Option<String> {
        let v = self.try_command("GET", "/alert/text", None).ok()?;
        v.as_str().map(String::from)
    }

    /// Saves a screenshot of the page as it is (PNG) to `path`.
    pub fn screenshot(&self, path: &Path) {
        let b64 = self.command("GET", "/screenshot", None);
        let png = decode_base64(b64.as_str().expect("a screenshot"));
        std::fs::write(path, png).expect("the screenshot is written");
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let path = format!("/session/{}", self.session);
        let _ = http(self.port, "DELETE", &path, None);
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// Standard base64, as screenshots come.
fn decode_base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let bytes: Vec<u8> = text.bytes().filter(|&c| c != b'=' && c != b'\n').collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &c)| n | u32::from(value(c)) << (18 - 6 * i));
        let take = chunk.len() - 1;
        out.extend_from_slice(&n.to_be_bytes()[1..1 + take]);
    }
    out
}

#[test]
fn base64_decodes() {
    assert_eq!(decode_base64("TWFu"), b"Man");
    assert_eq!(decode_base64("TWE="), b"Ma");
    assert_eq!(decode_base64("TQ=="), b"M");
}
