//! Where the workers run: threads of one process, or processes on several
//! machines, in timely dataflow's terms.
//!
//! Every process runs the same command with `--processes N --process I` and
//! the same host file: one `HOST:PORT` line per process, in process order,
//! where process I listens and the others reach it.
//!
//! ```
//! use bbx::census::cluster::parse_hostfile;
//! let hosts = parse_hostfile("# the census machines\n10.0.0.1:2101\n10.0.0.2:2101\n", "hosts.txt", 2).unwrap();
//! assert_eq!(hosts, ["10.0.0.1:2101", "10.0.0.2:2101"]);
//! assert!(parse_hostfile("10.0.0.1\n", "hosts.txt", 1).is_err());
//! ```

use std::path::Path;

use crate::error::Error;

/// Where a census runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cluster {
    /// Worker threads in this process.
    pub workers: usize,
    /// Processes in all.
    pub processes: usize,
    /// This process (0-based): process 0 prints the report.
    pub process: usize,
    /// Each process's `HOST:PORT` (empty for one process).
    pub addresses: Vec<String>,
}

impl Cluster {
    /// One process with `workers` threads.
    pub fn local(workers: usize) -> Cluster {
        Cluster {
            workers: workers.max(1),
            processes: 1,
            process: 0,
            addresses: Vec::new(),
        }
    }

    /// Process `process` of `processes`, with `workers` threads each, at the
    /// addresses of `hostfile` (by default, timely's: `localhost:2101`,
    /// `localhost:2102`, …).
    pub fn new(
        workers: usize,
        processes: usize,
        process: usize,
        hostfile: Option<&Path>,
    ) -> Result<Cluster, Error> {
        if processes == 0 {
            return Err(Error::Invalid("--processes must be at least 1".into()));
        }
        if process >= processes {
            return Err(Error::Invalid(format!(
                "--process {process} is out of range: with --processes {processes} the processes are numbered 0 to {}",
                processes - 1
            )));
        }
        if processes == 1 {
            return Ok(Cluster::local(workers));
        }
        let addresses = match hostfile {
            Some(path) => {
                let text = std::fs::read_to_string(path).map_err(|e| {
                    Error::Invalid(format!(
                        "{}: cannot read the host file: {e}",
                        path.display()
                    ))
                })?;
                parse_hostfile(&text, &path.display().to_string(), processes)?
            }
            None => (0..processes)
                .map(|i| format!("localhost:{}", 2101 + i))
                .collect(),
        };
        Ok(Cluster {
            workers: workers.max(1),
            processes,
            process,
            addresses,
        })
    }

    /// Worker threads in all processes.
    pub fn peers(&self) -> usize {
        self.workers * self.processes
    }

    /// The timely configuration.
    pub fn timely(&self) -> timely::Config {
        let communication = if self.processes == 1 {
            timely::CommunicationConfig::Process(self.workers)
        } else {
            timely::CommunicationConfig::Cluster {
                threads: self.workers,
                process: self.process,
                addresses: self.addresses.clone(),
                report: false,
                zerocopy: false,
            }
        };
        timely::Config {
            communication,
            worker: timely::WorkerConfig::default(),
        }
    }
}

/// The first `processes` addresses of a host file: one `HOST:PORT` a line
/// (blank lines and `#` comments are skipped).
pub fn parse_hostfile(text: &str, origin: &str, processes: usize) -> Result<Vec<String>, Error> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let bad = |why: &str| {
            Error::Invalid(format!(
                "{origin}:{}: {why}: expected HOST:PORT, for example 10.0.0.2:2101, not '{line}'",
                i + 1
            ))
        };
        let (host, port) = line.rsplit_once(':').ok_or_else(|| bad("no port"))?;
        if host.is_empty() || host.contains(char::is_whitespace) {
            return Err(bad("no host"));
        }
        match port.parse::<u16>() {
            Ok(p) if p > 0 => {}
            _ => return Err(bad("the port must be a number from 1 to 65535")),
        }
        out.push(line.to_string());
        if out.len() == processes {
            return Ok(out);
        }
    }
    Err(Error::Invalid(format!(
        "{origin}: {} address{} for --processes {processes}: give one HOST:PORT line per process",
        out.len(),
        if out.len() == 1 { "" } else { "es" }
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_files_and_process_indices() {
        let e = parse_hostfile("a:1\nb:x\n", "h", 2)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("h:2: "), "{e}");
        let e = parse_hostfile("a:1\n", "h", 2).unwrap_err().to_string();
        assert!(e.contains("1 address for --processes 2"), "{e}");
        assert_eq!(
            parse_hostfile("[::1]:5000\nb:2\nc:3\n", "h", 2).unwrap(),
            ["[::1]:5000", "b:2"]
        );
        let e = Cluster::new(1, 2, 2, None).unwrap_err().to_string();
        assert!(e.contains("0 to 1"), "{e}");
        let c = Cluster::new(3, 2, 1, None).unwrap();
        assert_eq!((c.peers(), c.addresses.len()), (6, 2));
    }
}
