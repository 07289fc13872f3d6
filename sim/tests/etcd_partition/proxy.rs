//! The partition's peer links: one TCP proxy per member, at the address the
//! others dial, forwarding to the member's own peer listener; cutting a
//! member off closes its proxied connections and holds new ones unanswered
//! until the heal, as dropped packets would.

use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// A proxy's connection to its member's own peer listener: loopback answers
/// at once unless nothing listens, so this only bounds a broken member.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(1);
/// How often a proxy looks for a new connection or the order to stop.
const ACCEPT_POLL: Duration = Duration::from_millis(10);

/// The members' peer links: one proxy per member (at the address the
/// others dial), and which links are cut.
pub(super) struct Peers {
    shared: Arc<Shared>,
    listeners: Vec<JoinHandle<()>>,
}

pub(super) struct Shared {
    /// The members' processes, to tell who opened a connection.
    pids: Vec<i32>,
    state: Mutex<Links>,
    stopping: AtomicBool,
    /// Connections dropped (held, never forwarded) because they would cross
    /// the cut.
    dropped: AtomicU32,
}

/// A forwarded connection: who opened it (once the kernel was asked), the
/// member it reaches, where it came from and arrived (to ask the kernel),
/// and both of its sockets.
pub(super) struct Link {
    from: Option<usize>,
    to: usize,
    from_addr: SocketAddr,
    proxy_addr: SocketAddr,
    client: TcpStream,
    member: TcpStream,
}

/// Kept under one lock, so that a connection is either dropped, or
/// forwarded and then closed by a cut that comes after it: none slips past.
#[derive(Default)]
pub(super) struct Links {
    /// Cut links, as (lower, higher) member indexes.
    cut: Vec<(usize, usize)>,
    open: Vec<Link>,
    /// Connections that came while their link was cut: accepted, never
    /// read nor forwarded, and closed at the heal, as a partition drops
    /// packets. Closing them at once instead would have each member redial
    /// every 100 ms; held, its dialer waits out its own read timeout (5 s).
    held: Vec<TcpStream>,
    copiers: Vec<JoinHandle<()>>,
}

impl Links {
    /// Whether a connection from `from` to `to` crosses the cut. One whose
    /// origin is unknown (it closed before the kernel was asked) counts as
    /// crossing while any link to `to` is cut: closing a dead connection
    /// costs nothing, and a live one's member dials again.
    pub(super) fn crosses(&self, from: Option<usize>, to: usize) -> bool {
        match from {
            Some(from) => self.cut.contains(&(from.min(to), from.max(to))),
            None => self.cut.iter().any(|(a, b)| *a == to || *b == to),
        }
    }

    /// Whether a connection to `to` crosses the cut whoever opened it
    /// (Some(true)), whoever did not (Some(false)), or it depends (None):
    /// only then is the kernel asked.
    pub(super) fn crosses_whoever(&self, to: usize, members: usize) -> Option<bool> {
        let crossing = (0..members).filter(|from| *from != to && self.crosses(Some(*from), to)).count();
        match crossing {
            0 => Some(false),
            n if n == members - 1 => Some(true),
            _ => None,
        }
    }
}

impl Peers {
    /// How many peer connections the cut dropped.
    pub(super) fn dropped(&self) -> u32 {
        self.shared.dropped.load(Ordering::SeqCst)
    }

    /// Serves each member's advertised peer address, forwarding to where it
    /// listens.
    pub(super) fn start(advertised: &[SocketAddr], listen: &[SocketAddr], pids: Vec<i32>) -> Peers {
        let shared =
            Arc::new(Shared { pids, state: Mutex::new(Links::default()), stopping: AtomicBool::new(false), dropped: AtomicU32::new(0) });
        let listeners = advertised
            .iter()
            .zip(listen)
            .enumerate()
            .map(|(to, (at, member))| {
                let listener = TcpListener::bind(at).unwrap_or_else(|error| panic!("the proxy for m{} at {at}: {error}", to + 1));
                listener.set_nonblocking(true).expect("a non-blocking listener");
                let (shared, member) = (Arc::clone(&shared), *member);
                std::thread::spawn(move || serve(&shared, &listener, to, member))
            })
            .collect();
        Peers { shared, listeners }
    }

    /// Cuts `node` off from each of `others`: closes their connections and
    /// drops new ones until `heal`.
    pub(super) fn cut(&self, node: usize, others: &[usize]) {
        let mut links = self.shared.state.lock().expect("the proxies' state");
        links.cut = others.iter().map(|other| (node.min(*other), node.max(*other))).collect();
        // Who opened each connection, asked now (one read of the kernel's
        // table for all of them).
        let table = std::fs::read_to_string("/proc/net/tcp").unwrap_or_default();
        for link in links.open.iter_mut().filter(|link| link.from.is_none()) {
            link.from = opened_by(&table, link.from_addr, link.proxy_addr, &self.shared.pids, link.to);
        }
        let (crossing, kept): (Vec<Link>, Vec<Link>) =
            std::mem::take(&mut links.open).into_iter().partition(|link| links.crosses(link.from, link.to));
        links.open = kept;
        for link in crossing {
            let _ = link.client.shutdown(Shutdown::Both);
            let _ = link.member.shutdown(Shutdown::Both);
        }
    }

    /// Ends the cut: the connections held meanwhile are closed, so their
    /// members dial again at once and are forwarded.
    pub(super) fn heal(&self) {
        let mut links = self.shared.state.lock().expect("the proxies' state");
        links.cut.clear();
        for held in links.held.drain(..) {
            let _ = held.shutdown(Shutdown::Both);
        }
    }

    /// Stops every proxy and closes every connection (idempotent; also on a
    /// failed check, from `drop`). Each thread ends within `ACCEPT_POLL` or
    /// as soon as its sockets are shut.
    pub(super) fn stop(&mut self) {
        self.shared.stopping.store(true, Ordering::SeqCst);
        for listener in self.listeners.drain(..) {
            let _ = listener.join();
        }
        let copiers = {
            let mut links = self.shared.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            for link in links.open.drain(..) {
                let _ = link.client.shutdown(Shutdown::Both);
                let _ = link.member.shutdown(Shutdown::Both);
            }
            for held in links.held.drain(..) {
                let _ = held.shutdown(Shutdown::Both);
            }
            std::mem::take(&mut links.copiers)
        };
        for copier in copiers {
            let _ = copier.join();
        }
    }
}

impl Drop for Peers {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One proxy: accepts until told to stop.
pub(super) fn serve(shared: &Shared, listener: &TcpListener, to: usize, member: SocketAddr) {
    while !shared.stopping.load(Ordering::SeqCst) {
        match listener.accept() {
            Ok((client, from_addr)) => forward(shared, client, from_addr, to, member),
            Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => std::thread::sleep(ACCEPT_POLL),
            Err(error) => panic!("the proxy for m{}: accept: {error}", to + 1),
        }
    }
}

/// Forwards one connection to its member, or holds it if it crosses the cut.
pub(super) fn forward(shared: &Shared, client: TcpStream, from_addr: SocketAddr, to: usize, member_addr: SocketAddr) {
    let Ok(proxy_addr) = client.local_addr() else { return };
    let _ = client.set_nonblocking(false);
    let mut links = shared.state.lock().expect("the proxies' state");
    let mut from = None;
    let crosses = links.crosses_whoever(to, shared.pids.len()).unwrap_or_else(|| {
        from = opened_by(&std::fs::read_to_string("/proc/net/tcp").unwrap_or_default(), from_addr, proxy_addr, &shared.pids, to);
        links.crosses(from, to)
    });
    if crosses {
        links.held.push(client);
        shared.dropped.fetch_add(1, Ordering::SeqCst);
        return;
    }
    // Under the lock, so that a cut cannot fall between the decision and
    // the connection's registration; on loopback this takes microseconds.
    let Ok(member) = TcpStream::connect_timeout(&member_addr, CONNECT_TIMEOUT) else {
        // The member is gone or not listening: its peer sees a closed
        // connection, as it would without the proxy.
        let _ = client.shutdown(Shutdown::Both);
        return;
    };
    for (reader, writer) in [(&client, &member), (&member, &client)] {
        let (mut reader, mut writer) = (reader.try_clone().expect("a socket's clone"), writer.try_clone().expect("a socket's clone"));
        links.copiers.push(std::thread::spawn(move || {
            let _ = std::io::copy(&mut reader, &mut writer);
            let _ = writer.shutdown(Shutdown::Write);
        }));
    }
    let _ = (client.set_nodelay(true), member.set_nodelay(true));
    links.open.push(Link { from, to, from_addr, proxy_addr, client, member });
}

/// Which member (other than `to`) opened the connection that reached a
/// proxy at `proxy_addr` from `from_addr`: the one whose process holds the
/// socket at the other end, by the kernel's `table` (/proc/net/tcp). None
/// if it closed meanwhile. Read only when a decision depends on it: the
/// table lists every socket on the machine.
pub(super) fn opened_by(table: &str, from_addr: SocketAddr, proxy_addr: SocketAddr, pids: &[i32], to: usize) -> Option<usize> {
    let (local, remote) = (proc_net_tcp_address(from_addr)?, proc_net_tcp_address(proxy_addr)?);
    // Columns: sl, local_address, rem_address, st, tx:rx, tr:when, retrnsmt, uid, timeout, inode.
    let inode = table.lines().skip(1).find_map(|line| {
        let columns: Vec<&str> = line.split_whitespace().collect();
        (columns.get(1) == Some(&local.as_str()) && columns.get(2) == Some(&remote.as_str())).then(|| columns.get(9).copied()).flatten()
    })?;
    let socket = format!("socket:[{inode}]");
    let holds = |pid: i32| {
        std::fs::read_dir(format!("/proc/{pid}/fd"))
            .map(|fds| fds.flatten().any(|fd| std::fs::read_link(fd.path()).is_ok_and(|target| target.as_os_str() == socket.as_str())))
            .unwrap_or(false)
    };
    (0..pids.len()).filter(|member| *member != to).find(|member| holds(pids[*member]))
}

/// An IPv4 address as /proc/net/tcp prints it: the four bytes in network
/// order read as one native-endian number, then the port, both in hex.
pub(super) fn proc_net_tcp_address(address: SocketAddr) -> Option<String> {
    match address {
        SocketAddr::V4(v4) => Some(format!("{:08X}:{:04X}", u32::from_ne_bytes(v4.ip().octets()), v4.port())),
        SocketAddr::V6(_) => None,
    }
}
