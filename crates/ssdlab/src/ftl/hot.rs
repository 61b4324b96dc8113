//! Hot/cold write streams: which stream a host page or a GC move goes to.

use crate::addr::Lpn;
use crate::sim::*;

impl Simulator {
    /// Is a host page hot (its write stream)? By the identifier, or always
    /// when hot/cold separation sorts GC moves instead (the SPD paper treats
    /// host evictions as hot).
    pub(crate) fn host_hot(&self, lpn: Lpn) -> bool {
        self.hdi
            .as_ref()
            .is_some_and(|h| self.sort_moves || h.is_hot(lpn as u64))
    }

    /// Is a page GC moves hot, judged now (`ftl.hot_separation = "gc-moves"`)?
    pub(crate) fn move_hot(&mut self, lpn: Lpn) -> bool {
        let now = self.engine.now();
        self.hdi.as_mut().is_some_and(|h| {
            h.set_time_ns(now);
            h.is_hot(lpn as u64)
        })
    }
}
