//! The Redis store's connection (feature `redis`): one server through redis-rs's
//! [`ConnectionManager`], or a Redis Cluster (Valkey's too) through its [`ClusterConnection`],
//! as one type, [`Conn`], that every command goes through (`query_async(&mut conn)`,
//! `invoke_async(&mut conn)`): the store's code does not know which it has.
//!
//! A cluster is named by a URL of its own scheme, `redis+cluster://[user:password@]host:port[,host:port…]`:
//! one or more seed nodes, from which the client learns the others and the slots. Commands go
//! to the node of their key's slot (every key of an origin is in one slot: the origin is the
//! hash tag), scripts to the node of their first key, and a script's keys are all one origin's.
//! What is not one key's, listing the keys and measuring them, goes to each master in turn
//! ([`Conn::masters`], [`Conn::on`]).

use std::time::Duration;

use redis::aio::{ConnectionLike, ConnectionManager, ConnectionManagerConfig};
use redis::cluster::ClusterClient;
use redis::cluster_async::ClusterConnection;
use redis::cluster_routing::{RoutingInfo, SingleNodeRoutingInfo};
use redis::{Cmd, FromRedisValue, Pipeline, RedisFuture, RedisResult, Value};

/// The URL scheme of a Redis Cluster.
pub(super) const CLUSTER_SCHEME: &str = "redis+cluster://";

/// A connection to one Redis server or to a Redis Cluster; cheap to clone (clones share it).
#[derive(Clone)]
pub(super) enum Conn {
    /// One server, multiplexed, reconnecting by itself.
    Single(ConnectionManager),
    /// A cluster: a connection per node, slots followed (`MOVED`, `ASK`), reconnecting by
    /// itself.
    Cluster(ClusterConnection),
}

/// A node a command can be sent to: the server itself (`None`), or a cluster node's address.
pub(super) type Node = Option<(String, u16)>;

impl ConnectionLike for Conn {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Conn::Single(c) => c.req_packed_command(cmd),
            Conn::Cluster(c) => c.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Conn::Single(c) => c.req_packed_commands(pipeline, offset, count),
            Conn::Cluster(c) => c.req_packed_commands(pipeline, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Conn::Single(c) => c.get_db(),
            Conn::Cluster(c) => c.get_db(),
        }
    }
}

/// How long connecting may take and how long a command may wait.
pub(super) struct Timeouts {
    pub connect: Duration,
    pub response: Duration,
}

impl Conn {
    /// Connects to `url`: a cluster for `redis+cluster://…`, else one server. Errors are
    /// messages for [`StoreError::Open`](super::StoreError::Open).
    pub(super) async fn connect(url: &str, t: &Timeouts) -> Result<Conn, String> {
        if let Some(nodes) = cluster_nodes(url)? {
            let client = ClusterClient::builder(nodes)
                .connection_timeout(t.connect)
                .response_timeout(t.response)
                .retries(1)
                .min_retry_wait(50)
                .max_retry_wait(250)
                .build()
                .map_err(|e| format!("bad Redis Cluster URL: {e}"))?;
            let conn = client
                .get_async_connection()
                .await
                .map_err(|e| e.to_string())?;
            return Ok(Conn::Cluster(conn));
        }
        let client = redis::Client::open(url).map_err(|e| format!("bad Redis URL: {e}"))?;
        // One retry with a short pause: a blip is absorbed, a dead server is reported quickly
        // (each call also has its own deadline).
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(t.connect))
            .set_response_timeout(Some(t.response))
            .set_number_of_retries(1)
            .set_min_delay(Duration::from_millis(50))
            .set_max_delay(Duration::from_millis(250));
        ConnectionManager::new_with_config(client, config)
            .await
            .map(Conn::Single)
            .map_err(|e| e.to_string())
    }

    /// The nodes that together hold every key: the server, or each master of the cluster
    /// that serves slots (read from `CLUSTER NODES`).
    pub(super) async fn masters(&mut self) -> RedisResult<Vec<Node>> {
        match self {
            Conn::Single(_) => Ok(vec![None]),
            Conn::Cluster(c) => {
                let reply = c
                    .route_command(
                        redis::cmd("CLUSTER").arg("NODES").clone(),
                        RoutingInfo::SingleNode(SingleNodeRoutingInfo::Random),
                    )
                    .await?;
                let text: String = redis::from_redis_value(reply)?;
                Ok(parse_masters(&text).into_iter().map(Some).collect())
            }
        }
    }

    /// `cmd` on `node` (a node of [`Conn::masters`]); on one server, as any command.
    pub(super) async fn on<T: FromRedisValue>(&mut self, node: &Node, cmd: &Cmd) -> RedisResult<T> {
        match (self, node) {
            (Conn::Cluster(c), Some((host, port))) => {
                let reply = c
                    .route_command(
                        cmd.clone(),
                        RoutingInfo::SingleNode(SingleNodeRoutingInfo::ByAddress {
                            host: host.clone(),
                            port: *port,
                        }),
                    )
                    .await?;
                Ok(redis::from_redis_value(reply)?)
            }
            (conn, _) => cmd.query_async(conn).await,
        }
    }

    /// `pipeline` on `node`, its replies in order: the commands' keys must all be on that node
    /// (a cluster refuses a pipeline across slots unless it is sent to one node).
    pub(super) async fn pipeline_on<T: FromRedisValue>(
        &mut self,
        node: &Node,
        pipeline: &Pipeline,
    ) -> RedisResult<T> {
        match (self, node) {
            (Conn::Cluster(c), Some((host, port))) => {
                let replies = c
                    .route_pipeline(
                        pipeline.clone(),
                        0,
                        pipeline.len(),
                        SingleNodeRoutingInfo::ByAddress {
                            host: host.clone(),
                            port: *port,
                        },
                    )
                    .await?;
                Ok(redis::from_redis_value(Value::Array(replies))?)
            }
            (conn, _) => pipeline.query_async(conn).await,
        }
    }
}

/// The seed nodes of a `redis+cluster://` URL, each as a `redis://` URL with the credentials;
/// `None` for another URL.
fn cluster_nodes(url: &str) -> Result<Option<Vec<String>>, String> {
    let Some(rest) = strip_scheme(url) else {
        return Ok(None);
    };
    let (hosts, path) = rest.split_once('/').unwrap_or((rest, ""));
    if !path.is_empty() && path != "0" {
        return Err("a Redis Cluster has one database: no /DB in a redis+cluster:// URL".into());
    }
    let (auth, hosts) = match hosts.rsplit_once('@') {
        Some((auth, hosts)) => (format!("{auth}@"), hosts),
        None => (String::new(), hosts),
    };
    let nodes: Vec<String> = hosts
        .split(',')
        .map(str::trim)
        .filter(|h| !h.is_empty())
        .map(|h| format!("redis://{auth}{h}/"))
        .collect();
    if nodes.is_empty() {
        return Err("no node in the redis+cluster:// URL".into());
    }
    Ok(Some(nodes))
}

fn strip_scheme(url: &str) -> Option<&str> {
    let n = CLUSTER_SCHEME.len();
    (url.len() >= n && url[..n].eq_ignore_ascii_case(CLUSTER_SCHEME)).then(|| &url[n..])
}

/// A `redis+cluster://` URL without its password; `None` for another URL.
pub(super) fn redact_cluster(url: &str) -> Option<String> {
    let rest = strip_scheme(url)?;
    let (hosts, path) = match rest.split_once('/') {
        Some((h, p)) => (h, Some(p)),
        None => (rest, None),
    };
    let hosts = match hosts.rsplit_once('@') {
        Some((auth, hosts)) => match auth.split_once(':') {
            Some((user, _)) => format!("{user}:***@{hosts}"),
            None => format!("{auth}@{hosts}"),
        },
        None => hosts.to_owned(),
    };
    Some(match path {
        Some(p) => format!("{CLUSTER_SCHEME}{hosts}/{p}"),
        None => format!("{CLUSTER_SCHEME}{hosts}"),
    })
}

/// The masters that serve slots, from `CLUSTER NODES`: lines
/// `<id> <ip:port@cport[,hostname]> <flags> <master> <ping> <pong> <epoch> <link> <slot>…`.
fn parse_masters(text: &str) -> Vec<(String, u16)> {
    let mut out: Vec<(String, u16)> = Vec::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let (Some(addr), Some(flags)) = (fields.get(1), fields.get(2)) else {
            continue;
        };
        let flags: Vec<&str> = flags.split(',').collect();
        if !flags.contains(&"master")
            || flags
                .iter()
                .any(|f| f.starts_with("fail") || *f == "noaddr")
        {
            continue;
        }
        // No slots: an empty master holds no key.
        if fields.len() < 9 {
            continue;
        }
        let addr = addr.split(['@', ',']).next().unwrap_or_default();
        let Some((host, port)) = addr.rsplit_once(':') else {
            continue;
        };
        let Ok(port) = port.parse::<u16>() else {
            continue;
        };
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned();
        if !out.iter().any(|(h, p)| *h == host && *p == port) {
            out.push((host, port));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_urls() {
        assert_eq!(cluster_nodes("redis://127.0.0.1:6379/").unwrap(), None);
        assert_eq!(
            cluster_nodes("redis+cluster://u:p@10.0.0.1:7000,10.0.0.2:7001").unwrap(),
            Some(vec![
                "redis://u:p@10.0.0.1:7000/".to_owned(),
                "redis://u:p@10.0.0.2:7001/".to_owned()
            ])
        );
        assert!(cluster_nodes("redis+cluster://h:1/3").is_err());
        assert!(cluster_nodes("redis+cluster:///").is_err());
        assert_eq!(
            redact_cluster("redis+cluster://u:secret@h:1,h:2/").as_deref(),
            Some("redis+cluster://u:***@h:1,h:2/")
        );
        assert_eq!(redact_cluster("redis://u:secret@h:1/"), None);
    }

    #[test]
    fn masters_from_cluster_nodes() {
        let text = "\
a1 127.0.0.1:30001@40001 myself,master - 0 0 1 connected 0-5460
b2 127.0.0.1:30002@40002,host-b master - 0 0 2 connected 5461-10922
c3 127.0.0.1:30003@40003 master,fail - 0 0 3 connected 10923-16383
d4 127.0.0.1:30004@40004 slave a1 0 0 1 connected
e5 127.0.0.1:30005@40005 master - 0 0 0 connected
";
        assert_eq!(
            parse_masters(text),
            vec![
                ("127.0.0.1".to_owned(), 30001),
                ("127.0.0.1".to_owned(), 30002)
            ]
        );
    }
}
