//! The least of ZooKeeper's client protocol the lock recipe needs, over a
//! plain TCP socket: each packet is a 4-byte big-endian length and a body in
//! ZooKeeper's `jute` encoding (big-endian integers; strings and buffers as a
//! length then bytes; a vector as a count then its items).
//!
//! Requests carry a header (`xid`, operation code); replies a header (`xid`,
//! `zxid`, error code). Two `xid`s are special: -1 is a watch notification,
//! -2 the answer to a ping. Operation codes and error codes are ZooKeeper's
//! (`ZooDefs.OpCode`, `KeeperException.Code`).

use std::collections::VecDeque;
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

const OP_CREATE: i32 = 1;
const OP_DELETE: i32 = 2;
const OP_EXISTS: i32 = 3;
const OP_GET_CHILDREN: i32 = 8;
const OP_PING: i32 = 11;
const OP_CLOSE: i32 = -11;
/// `createContainer`: a create whose answer also carries the `Stat`.
const OP_CREATE_CONTAINER: i32 = 19;
/// `CreateMode.CONTAINER`'s flag.
const CONTAINER: i32 = 4;
const XID_WATCH: i32 = -1;
const XID_PING: i32 = -2;
/// `CreateMode` flags.
pub const PERSISTENT: i32 = 0;
pub const EPHEMERAL_SEQUENTIAL: i32 = 3;
/// `Watcher.Event.EventType.NodeDeleted`.
pub const NODE_DELETED: i32 = 2;
/// No packet the recipe exchanges comes near this; more means a broken stream.
const PACKET_MAX: usize = 1 << 20;

/// A node's `Stat`, the fields the test reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stat {
    pub czxid: i64,
    pub cversion: i32,
    pub ephemeral_owner: i64,
}

/// Why a call did not answer as asked (read through `Debug`, in the
/// tests' failure messages).
#[derive(Debug)]
#[allow(dead_code)]
pub enum Failure {
    /// The server answered with this error code.
    Code(i32),
    /// The connection is gone (an expired session's is closed by the server).
    Closed(String),
    /// Nothing arrived within the read timeout.
    TimedOut,
}

pub struct Session {
    stream: TcpStream,
    pub id: i64,
    password: Vec<u8>,
    /// The timeout the server granted, which may differ from the one asked.
    pub timeout_ms: i32,
    next_xid: i32,
    /// Watch notifications that arrived while a call waited: (type, path).
    events: VecDeque<(i32, String)>,
    last_sent: Instant,
}

impl Session {
    /// Opens a session asking for `timeout_ms`, retrying (bounded) while
    /// the server is still starting: it answers `ruok` before it serves
    /// sessions, and closes a connection it cannot serve yet.
    pub fn connect(addr: &str, timeout_ms: i32) -> Result<Session, Failure> {
        let mut last = Failure::Closed("never tried".to_string());
        for _ in 0..50 {
            match Session::connect_once(addr, timeout_ms) {
                Ok(session) => return Ok(session),
                Err(failure) => last = failure,
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Err(last)
    }

    fn connect_once(addr: &str, timeout_ms: i32) -> Result<Session, Failure> {
        let (stream, reply) = handshake(addr, timeout_ms, 0, &[0; 16])?;
        let Handshake { granted_ms, id, password } = reply;
        Ok(Session { stream, id, password, timeout_ms: granted_ms, next_xid: 1, events: VecDeque::new(), last_sent: Instant::now() })
    }

    /// Reconnects to this session, as a client does after its connection
    /// broke: the server answers a timeout of 0 when the session expired.
    pub fn reconnect(addr: &str, id: i64, password: &[u8]) -> Result<i32, Failure> {
        handshake(addr, 10_000, id, password).map(|(_, reply)| reply.granted_ms)
    }

    pub fn password(&self) -> &[u8] {
        &self.password
    }

    /// `create path data flags`, open to everyone; the created path.
    pub fn create(&mut self, path: &str, flags: i32) -> Result<String, Failure> {
        self.create_by(OP_CREATE, path, flags)
    }

    /// A container znode, as Curator's `creatingParentContainersIfNeeded`
    /// makes a lock's parent: the server deletes it once it is empty.
    pub fn create_container(&mut self, path: &str) -> Result<String, Failure> {
        self.create_by(OP_CREATE_CONTAINER, path, CONTAINER)
    }

    fn create_by(&mut self, op: i32, path: &str, flags: i32) -> Result<String, Failure> {
        let mut body = Vec::new();
        put_string(&mut body, path);
        put_buffer(&mut body, &[]);
        put_i32(&mut body, 1); // one ACL: world:anyone, every permission
        put_i32(&mut body, 31);
        put_string(&mut body, "world");
        put_string(&mut body, "anyone");
        put_i32(&mut body, flags);
        let reply = self.call(op, &body)?;
        Ok(Reader::new(&reply).string())
    }

    pub fn delete(&mut self, path: &str) -> Result<(), Failure> {
        let mut body = Vec::new();
        put_string(&mut body, path);
        put_i32(&mut body, -1); // any version
        self.call(OP_DELETE, &body).map(|_| ())
    }

    /// `exists path watch`: the node's stat, and a watch on it if asked.
    pub fn exists(&mut self, path: &str, watch: bool) -> Result<Stat, Failure> {
        let mut body = Vec::new();
        put_string(&mut body, path);
        body.push(u8::from(watch));
        let reply = self.call(OP_EXISTS, &body)?;
        Ok(Reader::new(&reply).stat())
    }

    pub fn children(&mut self, path: &str) -> Result<Vec<String>, Failure> {
        let mut body = Vec::new();
        put_string(&mut body, path);
        body.push(0);
        let reply = self.call(OP_GET_CHILDREN, &body)?;
        let mut reader = Reader::new(&reply);
        let count = reader.i32();
        Ok((0..count.clamp(0, 10_000)).map(|_| reader.string()).collect())
    }

    pub fn ping(&mut self) -> Result<(), Failure> {
        self.send(XID_PING, OP_PING, &[])?;
        self.await_reply(XID_PING).map(|_| ())
    }

    pub fn close(mut self) -> Result<(), Failure> {
        let xid = self.xid();
        self.send(xid, OP_CLOSE, &[])?;
        self.await_reply(xid).map(|_| ())
    }

    /// Waits for a watch notification until `deadline`, pinging every third
    /// of the session timeout meanwhile, as a client library does.
    pub fn next_event(&mut self, deadline: Instant) -> Option<(i32, String)> {
        let ping_every = Duration::from_millis(u64::try_from(self.timeout_ms / 3).unwrap_or(1000).max(1));
        while Instant::now() < deadline {
            if let Some(event) = self.events.pop_front() {
                return Some(event);
            }
            if self.last_sent.elapsed() >= ping_every {
                self.ping().ok()?;
                continue;
            }
            let wait = ping_every.saturating_sub(self.last_sent.elapsed()).max(Duration::from_millis(1));
            self.stream
                .set_read_timeout(Some(wait.min(deadline.saturating_duration_since(Instant::now())).max(Duration::from_millis(1))))
                .ok();
            match read_packet(&mut self.stream) {
                Ok(packet) => self.file_unasked(&packet),
                Err(Failure::TimedOut) => {}
                Err(_) => return None,
            }
        }
        self.events.pop_front()
    }

    fn xid(&mut self) -> i32 {
        self.next_xid += 1;
        self.next_xid
    }

    fn call(&mut self, op: i32, body: &[u8]) -> Result<Vec<u8>, Failure> {
        let xid = self.xid();
        self.send(xid, op, body)?;
        self.await_reply(xid)
    }

    fn send(&mut self, xid: i32, op: i32, body: &[u8]) -> Result<(), Failure> {
        let mut packet = Vec::with_capacity(8 + body.len());
        put_i32(&mut packet, xid);
        put_i32(&mut packet, op);
        packet.extend_from_slice(body);
        self.last_sent = Instant::now();
        write_packet(&mut self.stream, &packet)
    }

    /// Reads until the reply to `xid`, keeping watch notifications for later.
    fn await_reply(&mut self, xid: i32) -> Result<Vec<u8>, Failure> {
        self.stream.set_read_timeout(Some(Duration::from_secs(10))).ok();
        for _ in 0..1_000 {
            let packet = read_packet(&mut self.stream)?;
            let mut reader = Reader::new(&packet);
            let (got, _zxid, code) = (reader.i32(), reader.i64(), reader.i32());
            if got == xid {
                return if code == 0 { Ok(packet[16..].to_vec()) } else { Err(Failure::Code(code)) };
            }
            self.file_unasked(&packet);
        }
        Err(Failure::Closed(format!("no reply to request {xid} among 1,000 packets")))
    }

    fn file_unasked(&mut self, packet: &[u8]) {
        let mut reader = Reader::new(packet);
        let (xid, _zxid, _code) = (reader.i32(), reader.i64(), reader.i32());
        if xid == XID_WATCH {
            let (kind, _state) = (reader.i32(), reader.i32());
            self.events.push_back((kind, reader.string()));
        }
    }
}

/// What the server answers a connect request with.
struct Handshake {
    granted_ms: i32,
    id: i64,
    password: Vec<u8>,
}

/// A connect request for a new session (`id` 0) or an existing one, and
/// the server's answer: protocol version, last zxid seen, timeout, session
/// id, password, read-only flag.
fn handshake(addr: &str, timeout_ms: i32, id: i64, password: &[u8]) -> Result<(TcpStream, Handshake), Failure> {
    let mut stream = TcpStream::connect(addr).map_err(|error| Failure::Closed(error.to_string()))?;
    stream.set_nodelay(true).ok();
    let mut body = Vec::new();
    put_i32(&mut body, 0);
    put_i64(&mut body, 0);
    put_i32(&mut body, timeout_ms);
    put_i64(&mut body, id);
    put_buffer(&mut body, password);
    body.push(0);
    write_packet(&mut stream, &body)?;
    let reply = read_packet(&mut stream)?;
    let mut reader = Reader::new(&reply);
    let _protocol = reader.i32();
    let granted_ms = reader.i32();
    let id = reader.i64();
    let password = reader.buffer();
    Ok((stream, Handshake { granted_ms, id, password }))
}

fn write_packet(stream: &mut TcpStream, body: &[u8]) -> Result<(), Failure> {
    let length = i32::try_from(body.len()).expect("a small packet").to_be_bytes();
    let result = stream.write_all(&length).and_then(|()| stream.write_all(body));
    result.map_err(|error| Failure::Closed(error.to_string()))
}

fn read_packet(stream: &mut TcpStream) -> Result<Vec<u8>, Failure> {
    let mut length = [0u8; 4];
    stream.read_exact(&mut length).map_err(|error| match error.kind() {
        ErrorKind::WouldBlock | ErrorKind::TimedOut => Failure::TimedOut,
        _ => Failure::Closed(error.to_string()),
    })?;
    let length = usize::try_from(i32::from_be_bytes(length)).map_err(|_| Failure::Closed("a negative length".to_string()))?;
    if length > PACKET_MAX {
        return Err(Failure::Closed(format!("a packet of {length} bytes")));
    }
    let mut body = vec![0u8; length];
    stream.set_read_timeout(Some(Duration::from_secs(10))).ok();
    stream.read_exact(&mut body).map_err(|error| Failure::Closed(error.to_string()))?;
    Ok(body)
}

fn put_i32(out: &mut Vec<u8>, value: i32) {
    out.extend_from_slice(&value.to_be_bytes());
}

fn put_i64(out: &mut Vec<u8>, value: i64) {
    out.extend_from_slice(&value.to_be_bytes());
}

fn put_buffer(out: &mut Vec<u8>, bytes: &[u8]) {
    put_i32(out, i32::try_from(bytes.len()).expect("a small buffer"));
    out.extend_from_slice(bytes);
}

fn put_string(out: &mut Vec<u8>, text: &str) {
    put_buffer(out, text.as_bytes());
}

/// Reads jute values off a reply; a short reply reads as zeros.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }

    fn take<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        if let Some(slice) = self.bytes.get(self.at..self.at + N) {
            out.copy_from_slice(slice);
        }
        self.at += N;
        out
    }

    fn i32(&mut self) -> i32 {
        i32::from_be_bytes(self.take())
    }

    fn i64(&mut self) -> i64 {
        i64::from_be_bytes(self.take())
    }

    fn buffer(&mut self) -> Vec<u8> {
        let length = usize::try_from(self.i32()).unwrap_or(0);
        let end = (self.at + length).min(self.bytes.len());
        let out = self.bytes.get(self.at..end).unwrap_or_default().to_vec();
        self.at += length;
        out
    }

    fn string(&mut self) -> String {
        String::from_utf8_lossy(&self.buffer()).into_owned()
    }

    /// `Stat`: czxid, mzxid, ctime, mtime, version, cversion, aversion,
    /// ephemeralOwner, dataLength, numChildren, pzxid.
    fn stat(&mut self) -> Stat {
        let czxid = self.i64();
        let (_mzxid, _ctime, _mtime, _version) = (self.i64(), self.i64(), self.i64(), self.i32());
        let cversion = self.i32();
        let _aversion = self.i32();
        let ephemeral_owner = self.i64();
        Stat { czxid, cversion, ephemeral_owner }
    }
}
