//! Reading ahead on a second thread: a record stream whose records are
//! produced (parsed, decompressed or generated) by a thread of its own while
//! the consumer works on the ones before them.
//!
//! The consumer sees exactly the records, errors included, in exactly the
//! order of the wrapped stream, so results do not depend on it. The reader
//! thread works at most a few batches ahead (a bounded channel), and ends
//! when the wrapped stream does or when the consumer drops the stream.

use crate::error::Error;
use crate::{IoRecord, RecordStream, Result};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError};
use std::thread::JoinHandle;

/// Records per batch handed from the reader thread to the consumer.
const BATCH: usize = 1024;
/// Batches the reader may have ready ahead of the consumer.
const AHEAD: usize = 4;

/// `stream`, read ahead on a thread of its own. Falls back to `stream`
/// itself if no thread can be started.
pub fn prefetch(stream: RecordStream) -> RecordStream {
    let (tx, rx) = sync_channel::<Vec<Result<IoRecord>>>(AHEAD);
    // `spawn` consumes its closure even when it fails, so the stream goes
    // through a slot the thread empties: if the thread never starts, the
    // stream is still there to be read here.
    let slot = std::sync::Arc::new(std::sync::Mutex::new(Some(stream)));
    let theirs = slot.clone();
    let spawned = std::thread::Builder::new()
        .name("ssdlab-reader".into())
        .spawn(move || {
            let Some(mut stream) = theirs.lock().ok().and_then(|mut s| s.take()) else {
                return;
            };
            loop {
                let batch: Vec<_> = stream.by_ref().take(BATCH).collect();
                let last = batch.len() < BATCH;
                if batch.is_empty() || tx.send(batch).is_err() || last {
                    return;
                }
            }
        });
    match spawned {
        Ok(handle) => Box::new(Prefetched {
            rx,
            batch: Vec::new().into_iter(),
            handle: Some(handle),
        }),
        Err(_) => match slot.lock().ok().and_then(|mut s| s.take()) {
            Some(stream) => stream,
            None => Box::new(std::iter::once(Err(Error::Invalid(
                "could not start the trace reader thread".into(),
            )))),
        },
    }
}

struct Prefetched {
    rx: Receiver<Vec<Result<IoRecord>>>,
    batch: std::vec::IntoIter<Result<IoRecord>>,
    handle: Option<JoinHandle<()>>,
}

impl Iterator for Prefetched {
    type Item = Result<IoRecord>;

    #[inline]
    fn next(&mut self) -> Option<Result<IoRecord>> {
        if let Some(r) = self.batch.next() {
            return Some(r);
        }
        self.refill()
    }
}

impl Prefetched {
    #[cold]
    fn refill(&mut self) -> Option<Result<IoRecord>> {
        // Waiting for the reader (a pipe that sends nothing), this thread
        // still looks for an interrupt now and then.
        let wait = std::time::Duration::from_millis(crate::interrupt::POLL_MS);
        let got = loop {
            match self.rx.recv_timeout(wait) {
                Err(RecvTimeoutError::Timeout) => {
                    if crate::interrupt::poll() {
                        return Some(Err(Error::Interrupted(
                            "while waiting for the workload's next records".into(),
                        )));
                    }
                }
                other => break other,
            }
        };
        match got {
            Ok(batch) => {
                self.batch = batch.into_iter();
                self.batch.next()
            }
            // The reader ended: at the end of the stream, or because it
            // panicked (a bug, which must not pass for the end of the
            // workload).
            Err(_) => {
                let handle = self.handle.take()?;
                match handle.join() {
                    Ok(()) => None,
                    Err(_) => Some(Err(Error::Invalid(
                        "the trace reader thread failed (a bug in ssdlab: please report it)".into(),
                    ))),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Op;

    fn rec(i: u64) -> IoRecord {
        IoRecord::new(i, Op::Write, i * 4096, 4096)
    }

    #[test]
    fn same_records_and_errors_in_the_same_order() {
        for n in [
            0u64,
            1,
            BATCH as u64 - 1,
            BATCH as u64,
            5 * BATCH as u64 + 7,
        ] {
            let items: Vec<Result<IoRecord>> = (0..n)
                .map(|i| {
                    if i % 1000 == 999 {
                        Err(Error::Invalid(format!("bad {i}")))
                    } else {
                        Ok(rec(i))
                    }
                })
                .collect();
            let want: Vec<String> = items.iter().map(|r| format!("{r:?}")).collect();
            let got: Vec<String> = prefetch(Box::new(items.into_iter()))
                .map(|r| format!("{r:?}"))
                .collect();
            assert_eq!(got, want, "n = {n}");
        }
    }

    #[test]
    fn dropping_the_stream_early_ends_the_reader() {
        // An endless stream: the reader must stop once the consumer is gone.
        let mut s = prefetch(Box::new((0..).map(|i| Ok(rec(i)))));
        assert_eq!(s.next().unwrap().unwrap(), rec(0));
        drop(s);
    }

    #[test]
    fn a_reader_that_panics_is_an_error_not_the_end() {
        let s = prefetch(Box::new((0..10u64).map(|i| {
            if i == 5 {
                panic!("boom");
            }
            Ok(rec(i))
        })));
        let items: Vec<_> = s.collect();
        assert!(items.last().unwrap().is_err(), "{items:?}");
    }
}
