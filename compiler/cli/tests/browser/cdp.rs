//! The few DevTools-protocol (CDP) exchanges the browser test needs, over one WebSocket
//! (`tungstenite`): send a command to the page's session and wait for its answer, collecting
//! the events that arrive meanwhile. Knows nothing of the viewer; never calls a page function.

use std::net::TcpStream;
use std::time::Duration;

use serde_json::{json, Value};
use tungstenite::{Message, WebSocket};

/// An open DevTools connection attached to one page (a flat session).
pub struct Cdp {
    socket: WebSocket<TcpStream>,
    session: String,
    next: u64,
    /// The events received and not yet looked at, in order.
    pub events: Vec<Value>,
}

impl Cdp {
    /// Connects to the browser's endpoint (`ws://HOST:PORT/devtools/browser/ID`), opens a
    /// blank page and attaches to it.
    pub fn connect(url: &str) -> Result<Cdp, String> {
        let host = url
            .strip_prefix("ws://")
            .and_then(|rest| rest.split('/').next())
            .ok_or_else(|| format!("not a ws:// address: {url}"))?;
        let stream = TcpStream::connect(host).map_err(|e| format!("{host}: {e}"))?;
        // A browser that stops answering fails the test instead of hanging it.
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .map_err(|e| e.to_string())?;
        let (socket, _) = tungstenite::client(url, stream).map_err(|e| e.to_string())?;
        let mut cdp = Cdp {
            socket,
            session: String::new(),
            next: 0,
            events: Vec::new(),
        };
        let target = cdp.browser("Target.createTarget", json!({"url": "about:blank"}))?;
        let attached = cdp.browser(
            "Target.attachToTarget",
            json!({"targetId": target["targetId"], "flatten": true}),
        )?;
        cdp.session = attached["sessionId"]
            .as_str()
            .ok_or("no session id")?
            .to_string();
        Ok(cdp)
    }

    /// Sends `method` to the page and returns its result.
    pub fn call(&mut self, method: &str, params: Value) -> Result<Value, String> {
        let session = self.session.clone();
        self.send(method, params, Some(&session))
    }

    /// Sends `method` to the browser itself.
    fn browser(&mut self, method: &str, params: Value) -> Result<Value, String> {
        self.send(method, params, None)
    }

    fn send(
        &mut self,
        method: &str,
        params: Value,
        session: Option<&str>,
    ) -> Result<Value, String> {
        self.next += 1;
        let id = self.next;
        let mut command = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            command["sessionId"] = json!(s);
        }
        self.socket
            .send(Message::Text(command.to_string().into()))
            .map_err(|e| format!("{method}: {e}"))?;
        loop {
            let message = self.receive().map_err(|e| format!("{method}: {e}"))?;
            if message["id"] == json!(id) {
                if let Some(error) = message.get("error") {
                    return Err(format!("{method}: {error}"));
                }
                return Ok(message["result"].clone());
            }
            if message.get("method").is_some() {
                self.events.push(message);
            }
        }
    }

    /// Waits for the event `method` (one already received counts) and takes it out of
    /// [`Cdp::events`], leaving the others for the caller.
    pub fn wait_event(&mut self, method: &str) -> Result<Value, String> {
        loop {
            if let Some(i) = self.events.iter().position(|e| e["method"] == method) {
                return Ok(self.events.remove(i));
            }
            let message = self.receive()?;
            if message.get("method").is_some() {
                self.events.push(message);
            }
        }
    }

    fn receive(&mut self) -> Result<Value, String> {
        loop {
            match self.socket.read().map_err(|e| e.to_string())? {
                Message::Text(text) => {
                    return serde_json::from_str(text.as_str()).map_err(|e| e.to_string());
                }
                Message::Close(_) => return Err("the browser closed the connection".into()),
                _ => {}
            }
        }
    }
}

/// Decodes standard base64 (what `Page.captureScreenshot` returns).
pub fn base64(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes().filter(|&c| c != b'=') {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return Err(format!("not base64: {:?}", c as char)),
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Ok(out)
}

#[test]
fn base64_decodes() {
    assert_eq!(base64("aGVsbG8=").unwrap(), b"hello");
    assert_eq!(base64("aGk=").unwrap(), b"hi");
    assert_eq!(base64("AAEC/w==").unwrap(), [0, 1, 2, 255]);
    assert!(base64("a*").is_err());
}
