//! Headless Chromium for the browser test, through `headless_chrome` (the DevTools protocol):
//! find the browser (`BTVM_CHROMIUM`, else `/usr/bin/chromium`; missing is a failure, never a
//! skip), open a page, record every console message, uncaught exception and browser log entry
//! of level warning or error, evaluate expressions, press keys and click through the browser's
//! input API. Never calls a function of the page under test.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use headless_chrome::protocol::cdp::types::Event;
use headless_chrome::protocol::cdp::Emulation;
use headless_chrome::{Browser, LaunchOptions, Tab};
use serde_json::Value;

/// The viewport of every page (and of the screenshot).
pub const WIDTH: u32 = 1280;
/// See [`WIDTH`].
pub const HEIGHT: u32 = 800;

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

/// A headless Chromium with one tab whose problems are recorded.
pub struct Chrome {
    _browser: Browser,
    /// The tab every page opens in.
    pub tab: Arc<Tab>,
    problems: Arc<Mutex<Vec<String>>>,
}

impl Chrome {
    /// Starts the browser (no sandbox: CI runs as root) and opens a watched tab.
    pub fn start() -> Chrome {
        let path = chromium();
        let args: Vec<&OsStr> = vec![
            OsStr::new("--no-first-run"),
            OsStr::new("--disable-extensions"),
            OsStr::new("--hide-scrollbars"),
            OsStr::new("--force-device-scale-factor=1"),
        ];
        let options = LaunchOptions {
            headless: true,
            sandbox: false,
            path: Some(path),
            window_size: Some((WIDTH, HEIGHT)),
            idle_browser_timeout: Duration::from_secs(600),
            args,
            ..LaunchOptions::default()
        };
        let browser = Browser::new(options).expect("Chromium starts");
        let tab = browser.new_tab().expect("a tab opens");
        tab.set_default_timeout(Duration::from_secs(60));
        let problems = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&problems);
        tab.add_event_listener(Arc::new(move |event: &Event| {
            if let Some(p) = problem(event) {
                sink.lock().unwrap().push(p);
            }
        }))
        .expect("the listener is added");
        tab.enable_runtime().expect("Runtime.enable");
        tab.enable_log().expect("Log.enable");
        tab.call_method(Emulation::SetDeviceMetricsOverride {
            width: WIDTH,
            height: HEIGHT,
            device_scale_factor: 1.0,
            mobile: false,
            scale: None,
            screen_width: None,
            screen_height: None,
            position_x: None,
            position_y: None,
            dont_set_visible_size: None,
            screen_orientation: None,
            viewport: None,
            display_feature: None,
            device_posture: None,
        })
        .expect("the viewport is set");
        Chrome {
            _browser: browser,
            tab,
            problems,
        }
    }

    /// Opens `file` (with `fragment`, e.g. `tick=3`, when given) and waits until the
    /// document is complete.
    pub fn open(&self, file: &Path, fragment: Option<&str>) {
        let file = file.canonicalize().expect("the page exists");
        let mut url = format!("file://{}", file.display());
        if let Some(f) = fragment {
            url = format!("{url}#{f}");
        }
        // A fresh document even when only the fragment differs from the last one.
        self.tab.navigate_to("about:blank").expect("about:blank");
        self.tab.wait_until_navigated().expect("about:blank loads");
        self.tab.navigate_to(&url).expect("the page opens");
        self.tab.wait_until_navigated().expect("the page loads");
        self.wait_for("document.readyState === 'complete'");
    }

    /// The JSON value of `expression` (which must produce one; a promise is awaited).
    pub fn eval(&self, expression: &str) -> Value {
        let wrapped = format!("(async () => JSON.stringify(await ({expression})))()");
        let result = self
            .tab
            .evaluate(&wrapped, true)
            .unwrap_or_else(|e| panic!("evaluating `{expression}`: {e}"));
        match result.value {
            Some(Value::String(s)) => serde_json::from_str(&s).expect("JSON"),
            other => panic!("`{expression}` gave {other:?}"),
        }
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

    /// Presses `key` (a DOM key name: `ArrowRight`, `End`, ...) on the keyboard.
    pub fn press(&self, key: &str) {
        self.tab.press_key(key).expect("the key is pressed");
    }

    /// Clicks the middle of the first element matching `selector` with the mouse.
    pub fn click(&self, selector: &str) {
        let element = self
            .tab
            .find_element(selector)
            .unwrap_or_else(|e| panic!("no element `{selector}`: {e}"));
        element.click().expect("the click is made");
    }

    /// A PNG of the viewport.
    pub fn screenshot(&self) -> Vec<u8> {
        use headless_chrome::protocol::cdp::Page::CaptureScreenshotFormatOption;
        self.tab
            .capture_screenshot(CaptureScreenshotFormatOption::Png, None, None, true)
            .expect("a screenshot")
    }

    /// The problems recorded since the last call.
    pub fn take_problems(&self) -> Vec<String> {
        std::mem::take(&mut *self.problems.lock().unwrap())
    }
}

/// An event the page must never cause: any console message (the page logs nothing:
/// `spec/viewer.md` 5), an uncaught exception, a browser log entry of level warning or error.
fn problem(event: &Event) -> Option<String> {
    match event {
        Event::RuntimeConsoleAPICalled(e) => {
            let args: Vec<String> = e
                .params
                .args
                .iter()
                .map(|a| match (&a.value, &a.description) {
                    (Some(v), _) => v.to_string(),
                    (None, Some(d)) => d.clone(),
                    (None, None) => "?".into(),
                })
                .collect();
            Some(format!("console.{:?}: {}", e.params.Type, args.join(" ")))
        }
        Event::RuntimeExceptionThrown(e) => {
            let d = &e.params.exception_details;
            let what = d
                .exception
                .as_ref()
                .and_then(|x| x.description.clone())
                .unwrap_or_else(|| d.text.clone());
            Some(format!(
                "uncaught exception at {}:{}: {what}",
                d.line_number, d.column_number
            ))
        }
        Event::LogEntryAdded(e) => {
            use headless_chrome::protocol::cdp::Log::LogEntryLevel;
            let entry = &e.params.entry;
            matches!(entry.level, LogEntryLevel::Warning | LogEntryLevel::Error)
                .then(|| format!("browser log {:?}: {}", entry.level, entry.text))
        }
        _ => None,
    }
}
