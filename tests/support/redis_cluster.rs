#![allow(dead_code)] // Each test binary uses a different part.
//! A real Redis Cluster for one test: three `redis-server --cluster-enabled yes` masters on
//! free loopback ports (and free cluster-bus ports), each in a fresh directory without
//! persistence, their slots assigned by `redis-cli --cluster create`, ready once every node
//! says `cluster_state:ok`. Never a mock, never shared between tests.
//!
//! `redis-server` and `redis-cli` (the same package) must be on PATH: a missing one is a
//! failure, not a skip.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::redis_server::{find_redis_server, free_port, fresh_dir, is_executable, spawn};

/// How long the cluster has to agree on its slots.
const READY_TIMEOUT: Duration = Duration::from_secs(20);

/// Three masters holding every slot; stopped and their directories removed on drop.
#[derive(Debug)]
pub struct RedisCluster {
    nodes: Vec<(Child, u16, PathBuf)>,
}

impl RedisCluster {
    /// Starts three masters, assigns the slots, waits for `cluster_state:ok`.
    pub fn start() -> RedisCluster {
        let program = find_redis_server();
        let cli = program.with_file_name("redis-cli");
        let cli = if is_executable(&cli) {
            cli
        } else {
            PathBuf::from("redis-cli")
        };
        let mut cluster = RedisCluster { nodes: Vec::new() };
        for _ in 0..3 {
            let dir = fresh_dir();
            let mut last_error = String::new();
            let mut started = None;
            for _ in 0..5 {
                let (port, bus) = (free_port(), free_port());
                if port == bus {
                    continue;
                }
                let bus = bus.to_string();
                let config = dir.join("nodes.conf");
                let config = config.to_string_lossy();
                let extra = [
                    "--cluster-enabled",
                    "yes",
                    "--cluster-port",
                    &bus,
                    "--cluster-config-file",
                    &config,
                    "--cluster-node-timeout",
                    "5000",
                ];
                match spawn(&program, port, &dir, &extra) {
                    Ok(child) => {
                        started = Some((child, port));
                        break;
                    }
                    Err(e) => last_error = e,
                }
            }
            let Some((child, port)) = started else {
                let _ = std::fs::remove_dir_all(&dir);
                panic!("a cluster node did not start: {last_error}");
            };
            cluster.nodes.push((child, port, dir));
        }
        let addresses: Vec<String> = cluster.addresses();
        let output = Command::new(&cli)
            .arg("--cluster")
            .arg("create")
            .args(&addresses)
            .args(["--cluster-replicas", "0", "--cluster-yes"])
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", cli.display()));
        assert!(
            output.status.success(),
            "redis-cli --cluster create failed: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        let deadline = Instant::now() + READY_TIMEOUT;
        while !cluster.ready() {
            assert!(Instant::now() < deadline, "the cluster never became ready");
            std::thread::sleep(Duration::from_millis(50));
        }
        cluster
    }

    /// `127.0.0.1:<port>` of each master.
    pub fn addresses(&self) -> Vec<String> {
        self.nodes
            .iter()
            .map(|(_, port, _)| format!("127.0.0.1:{port}"))
            .collect()
    }

    /// `redis+cluster://127.0.0.1:<port>` naming the first node only (the client finds the
    /// others).
    pub fn url(&self) -> String {
        format!("redis+cluster://{}", self.addresses()[0])
    }

    /// How many keys each master holds (`DBSIZE`), in node order.
    pub fn key_counts(&self) -> Vec<u64> {
        self.nodes
            .iter()
            .map(|(_, port, _)| {
                super::redis_server::command_on(*port, &[b"DBSIZE"])
                    .parse()
                    .unwrap_or(0)
            })
            .collect()
    }

    /// A command on master `node` (in node order), its reply as text.
    pub fn command(&self, node: usize, args: &[&[u8]]) -> String {
        super::redis_server::command_on(self.nodes[node].1, args)
    }

    fn ready(&self) -> bool {
        self.nodes.iter().all(|(_, port, _)| {
            super::redis_server::command_on(*port, &[b"CLUSTER", b"INFO"])
                .contains("cluster_state:ok")
        })
    }
}

impl Drop for RedisCluster {
    fn drop(&mut self) {
        for (child, _, dir) in &mut self.nodes {
            let _ = child.kill();
            let _ = child.wait();
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}
