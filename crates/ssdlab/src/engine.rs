//! The discrete-event core: a binary heap of small `Copy` events ordered by
//! (time, sequence number). The sequence number makes ties deterministic:
//! events at the same nanosecond fire in the order they were scheduled.
//! Nothing is allocated per event once the heap has grown to its working size.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Simulated time in nanoseconds.
pub type Time = u64;

/// What happens when an event fires. The payload (`Event::arg`) is a die
/// index, `die * 16 + index` for `TransferDone`, the idle detector's
/// generation for `GcIdle`, and unused for `Arrival`. An event may also
/// carry a tag (`Event::tag`): a die's `DieDone` carries the die's command
/// epoch, so that a completion a suspension made stale is recognised
/// (`flash.suspension`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// The next host request arrives.
    Arrival,
    /// A read command's array phase ended on this die; its data can move out.
    ReadArrayDone,
    /// One page's channel transfer of the command executing on a die ended
    /// (arg = die * 16 + index in the command): a read's data is out, or a
    /// transfer-mode write is acknowledged.
    TransferDone,
    /// The command executing on this die finished; the die is free.
    DieDone,
    /// A program or erase on this die reached the point where it suspends
    /// for the reads queued meanwhile (`flash.suspension`).
    Suspend,
    /// Idle-time GC's timer: the drive may have been idle long enough.
    GcIdle,
    /// The cache register of the program running on this die is free for
    /// the next program's data (`flash.cache_program`).
    CacheFree,
    /// A host request's interface stage ended (arg = request, tag = stage,
    /// `hostif`): its pages start, or it completes at the host.
    HostIf,
}

/// An event: its time, the sequence number that orders ties, and its tag,
/// kind and argument packed in one word (written and read back whole: a heap
/// that reads an event it has just pushed then gets it from the store
/// buffer, which a narrower field layout defeats).
#[derive(Clone, Copy, Debug)]
pub struct Event {
    pub time: Time,
    seq: u64,
    payload: u64,
}

impl Event {
    /// Indexed by the 3 bits of the kind (the last entries are never
    /// written: the table is a power of two long, so that the lookup needs
    /// no bounds check).
    const KINDS: [EventKind; 8] = [
        EventKind::Arrival,
        EventKind::ReadArrayDone,
        EventKind::TransferDone,
        EventKind::DieDone,
        EventKind::Suspend,
        EventKind::GcIdle,
        EventKind::CacheFree,
        EventKind::HostIf,
    ];

    #[inline]
    pub fn kind(&self) -> EventKind {
        Self::KINDS[(self.payload >> 32) as usize & 7]
    }

    #[inline]
    pub fn arg(&self) -> u32 {
        self.payload as u32
    }

    /// The tag it was scheduled with (0 unless
    /// [`Engine::schedule_tagged`] gave one).
    #[inline]
    pub fn tag(&self) -> u32 {
        (self.payload >> 35) as u32
    }
}

impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Event {
    // Reversed: BinaryHeap is a max-heap and we want the earliest event.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

/// Bits of an event's tag.
pub const TAG_BITS: u32 = 29;
/// The mask of an event's tag.
pub const TAG_MASK: u32 = (1 << TAG_BITS) - 1;

/// The event queue and the simulation clock.
#[derive(Default)]
pub struct Engine {
    heap: BinaryHeap<Event>,
    seq: u64,
    now: Time,
    fired: u64,
}

impl Engine {
    pub fn new() -> Self {
        Self::default()
    }
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }
    /// Events fired so far.
    pub fn fired(&self) -> u64 {
        self.fired
    }
    /// Schedule an event; `time` must not lie in the past.
    #[inline]
    pub fn schedule(&mut self, time: Time, kind: EventKind, arg: u32) {
        // Kept in release builds: one compare, and time running backwards
        // would corrupt every result after it.
        assert!(time >= self.now, "event scheduled in the past");
        self.seq += 1;
        self.heap.push(Event {
            time,
            seq: self.seq,
            payload: (kind as u64) << 32 | arg as u64,
        });
    }
    /// Schedule an event carrying a tag (its low [`TAG_BITS`] bits).
    #[inline]
    pub fn schedule_tagged(&mut self, time: Time, kind: EventKind, arg: u32, tag: u32) {
        assert!(time >= self.now, "event scheduled in the past");
        self.seq += 1;
        self.heap.push(Event {
            time,
            seq: self.seq,
            payload: ((tag & TAG_MASK) as u64) << 35 | (kind as u64) << 32 | arg as u64,
        });
    }
    /// Remove the earliest event and advance the clock to it.
    #[inline]
    pub fn pop(&mut self) -> Option<Event> {
        let ev = self.heap.pop()?;
        self.now = ev.time;
        self.fired += 1;
        Some(ev)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_and_ties_in_schedule_order() {
        let mut e = Engine::new();
        e.schedule(10, EventKind::DieDone, 1);
        e.schedule(5, EventKind::DieDone, 2);
        e.schedule(10, EventKind::DieDone, 3);
        e.schedule(5, EventKind::DieDone, 4);
        let order: Vec<_> = std::iter::from_fn(|| e.pop())
            .map(|ev| (ev.time, ev.arg()))
            .collect();
        assert_eq!(order, vec![(5, 2), (5, 4), (10, 1), (10, 3)]);
        assert_eq!(e.now(), 10);
        for kind in Event::KINDS {
            e.schedule(11, kind, u32::MAX);
            let ev = e.pop().unwrap();
            assert_eq!((ev.kind(), ev.arg(), ev.tag()), (kind, u32::MAX, 0));
            e.schedule_tagged(11, kind, u32::MAX, TAG_MASK);
            let ev = e.pop().unwrap();
            assert_eq!((ev.kind(), ev.arg(), ev.tag()), (kind, u32::MAX, TAG_MASK));
        }
    }
}
