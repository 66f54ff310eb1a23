//! Headless Chromium for the browser test: find the browser (`BTVM_CHROMIUM`, else
//! `/usr/bin/chromium`; missing is a failure, never a skip), start it with a DevTools port
//! and a throw-away profile, open pages, record every console message, uncaught exception and
//! browser log entry of level warning or error, evaluate expressions, press keys and click
//! through the browser's input API (`Input.dispatch*Event`: the events a user's keyboard and
//! mouse make). Never calls a function of the page under test.

use std::cell::RefCell;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::cdp::{base64, Cdp};

/// The viewport of every page (and of the screenshot).
pub const WIDTH: u32 = 1280;
/// See [`WIDTH`].
pub const HEIGHT: u32 = 800;

/// The event that ends a page load.
const LOADED: &str = "Page.loadEventFired";

/// The browser to run: `BTVM_CHROMIUM` or `/usr/bin/chromium`. Panics (fails the test) when
/// it is not there: the test is ignored by default precisely so that running it means
/// wanting it.
pub fn chromium() -> PathBuf {
    let path = std::env::var_os("BTVM_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    assert!(
        path.is_file(),
        "no browser at {} (set BTVM_CHROMIUM, or install the `chromium` package: .ci/run does)",
        path.display()
    );
    path
}

/// A headless Chromium with one page whose problems are recorded.
pub struct Chrome {
    child: Child,
    profile: PathBuf,
    cdp: RefCell<Cdp>,
    problems: RefCell<Vec<String>>,
}

impl Chrome {
    /// Starts the browser (no sandbox: CI runs as root) and opens a watched page.
    pub fn start() -> Chrome {
        let profile = std::env::temp_dir().join(format!("btvm-chromium-{}", std::process::id()));
        let mut child = Command::new(chromium())
            .args([
                "--headless",
                "--no-sandbox",
                "--remote-debugging-port=0",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--disable-background-networking",
                "--hide-scrollbars",
                "--force-device-scale-factor=1",
                &format!("--window-size={WIDTH},{HEIGHT}"),
                &format!("--user-data-dir={}", profile.display()),
                "about:blank",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("Chromium does not start: {e}"));
        let url = devtools_url(&mut child);
        let cdp = Cdp::connect(&url).unwrap_or_else(|e| panic!("DevTools: {e}"));
        let chrome = Chrome {
            child,
            profile,
            cdp: RefCell::new(cdp),
            problems: RefCell::new(Vec::new()),
        };
        for domain in ["Page.enable", "Runtime.enable", "Log.enable"] {
            chrome.call(domain, json!({}));
        }
        chrome.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": false}),
        );
        chrome
    }

    /// Sends a command to the page; panics on an error.
    fn call(&self, method: &str, params: Value) -> Value {
        let result = self.cdp.borrow_mut().call(method, params);
        self.collect();
        result.unwrap_or_else(|e| panic!("{e}"))
    }

    /// Moves the problems among the events received so far to [`Chrome::take_problems`];
    /// drops the other events except load events, which [`Chrome::open`] waits for.
    fn collect(&self) {
        let events = std::mem::take(&mut self.cdp.borrow_mut().events);
        self.problems
            .borrow_mut()
            .extend(events.iter().filter_map(problem));
        let loads = events.into_iter().filter(|e| e["method"] == LOADED);
        self.cdp.borrow_mut().events.extend(loads);
    }

    /// Opens `file` (with `fragment`, e.g. `tick=3`, when given) and waits for its load event
    /// and a complete document. Goes through `about:blank` so that each open is a fresh
    /// document, even when only the fragment differs from the last one.
    pub fn open(&self, file: &Path, fragment: Option<&str>) {
        let file = file.canonicalize().expect("the page exists");
        let mut url = format!("file://{}", file.display());
        if let Some(f) = fragment {
            url = format!("{url}#{f}");
        }
        for url in ["about:blank", url.as_str()] {
            // A load event still queued is an earlier document's.
            self.collect();
            self.cdp
                .borrow_mut()
                .events
                .retain(|e| e["method"] != LOADED);
            let nav = self.call("Page.navigate", json!({"url": url}));
            assert!(nav.get("errorText").is_none(), "{url}: {nav}");
            let loaded = self.cdp.borrow_mut().wait_event(LOADED);
            loaded.unwrap_or_else(|e| panic!("{url} does not load: {e}"));
            let url = serde_json::to_string(url).expect("JSON");
            self.wait_for(&format!(
                "location.href === {url} && document.readyState === 'complete'"
            ));
        }
    }

    /// The JSON value of `expression` (a promise is awaited). An exception fails the test.
    pub fn eval(&self, expression: &str) -> Value {
        let r = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "awaitPromise": true, "returnByValue": true}),
        );
        if let Some(e) = r.get("exceptionDetails") {
            panic!("evaluating `{expression}`: {e}");
        }
        r["result"]["value"].clone()
    }

    /// Waits (up to 10 s) until `condition` is true in the page.
    pub fn wait_for(&self, condition: &str) {
        let start = Instant::now();
        while self.eval(condition) != Value::Bool(true) {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "still not true after 10 s: {condition}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Presses and releases `key` (`ArrowRight`, `ArrowLeft`, `Home`, `End`, `j` or `k`).
    pub fn press(&self, key: &str) {
        let (code, dom_code, text) = match key {
            "End" => (35, key, None),
            "Home" => (36, key, None),
            "ArrowLeft" => (37, key, None),
            "ArrowRight" => (39, key, None),
            "j" => (74, "KeyJ", Some(key)),
            "k" => (75, "KeyK", Some(key)),
            _ => panic!("no key code for {key}"),
        };
        let down = if text.is_some() {
            "keyDown"
        } else {
            "rawKeyDown"
        };
        for kind in [down, "keyUp"] {
            let mut event = json!({"type": kind, "key": key, "code": dom_code,
                                   "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code});
            if let (Some(t), "keyDown") = (text, kind) {
                event["text"] = json!(t);
            }
            self.call("Input.dispatchKeyEvent", event);
        }
    }

    /// Clicks the middle of the first element matching `selector` with the mouse, after
    /// scrolling it into view; fails if another element would take the click.
    pub fn click(&self, selector: &str) {
        self.click_at(selector, 0.5);
    }

    /// [`Chrome::click`] at `fx` of the element's width from its left edge (clamped to 2 px
    /// inside it).
    pub fn click_at(&self, selector: &str, fx: f64) {
        let sel = serde_json::to_string(selector).expect("JSON");
        let at = self.eval(&format!(
            "(() => {{ const e = document.querySelector({sel}); if (!e) return null;
                e.scrollIntoView({{block: 'center'}}); const r = e.getBoundingClientRect();
                const x = Math.min(Math.max(r.left + r.width * {fx}, r.left + 2), r.right - 2);
                const y = r.top + r.height / 2, hit = document.elementFromPoint(x, y);
                return [x, y, !!hit && (hit === e || e.contains(hit))]; }})()"
        ));
        assert!(at.is_array(), "no element `{selector}`");
        assert_eq!(at[2], json!(true), "`{selector}` is covered at {at}");
        let (x, y) = (&at[0], &at[1]);
        for kind in ["mouseMoved", "mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
            );
        }
    }

    /// A PNG of the viewport.
    pub fn screenshot(&self) -> Vec<u8> {
        let shot = self.call("Page.captureScreenshot", json!({"format": "png"}));
        base64(shot["data"].as_str().unwrap_or("")).expect("a base64 screenshot")
    }

    /// The problems recorded since the last call.
    pub fn take_problems(&self) -> Vec<String> {
        self.collect();
        std::mem::take(&mut *self.problems.borrow_mut())
    }
}

impl Drop for Chrome {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// Reads the browser's standard error up to `DevTools listening on ws://...` (within 30 s)
/// and keeps draining it on a thread so the browser never blocks on a full pipe.
fn devtools_url(child: &mut Child) -> String {
    let stderr = child.stderr.take().expect("piped stderr");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(url) = line.strip_prefix("DevTools listening on ") {
                let _ = tx.send(url.trim().to_string());
            }
        }
    });
    match rx.recv_timeout(Duration::from_secs(30)) {
        Ok(url) => url,
        Err(_) => {
            let _ = child.kill();
            panic!("Chromium did not open its DevTools port within 30 s");
        }
    }
}

/// An event the page must never cause: any console message (the page logs nothing:
/// `spec/viewer.md` 5), an uncaught exception, a browser log entry of level warning or error.
fn problem(event: &Value) -> Option<String> {
    let p = &event["params"];
    match event["method"].as_str()? {
        "Runtime.consoleAPICalled" => {
            let args: Vec<String> = p["args"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|a| match a.get("value") {
                    Some(v) => v.to_string(),
                    None => a["description"].as_str().unwrap_or("?").to_string(),
                })
                .collect();
            Some(format!(
                "console.{}: {}",
                p["type"].as_str()?,
                args.join(" ")
            ))
        }
        "Runtime.exceptionThrown" => {
            let d = &p["exceptionDetails"];
            let what = d["exception"]["description"]
                .as_str()
                .or(d["text"].as_str())
                .unwrap_or("?");
            Some(format!(
                "uncaught exception at {}:{}: {what}",
                d["lineNumber"], d["columnNumber"]
            ))
        }
        "Log.entryAdded" => {
            let e = &p["entry"];
            let level = e["level"].as_str()?;
            matches!(level, "warning" | "error")
                .then(|| format!("browser log {level}: {} ({})", e["text"], e["url"]))
        }
        _ => None,
    }
}
