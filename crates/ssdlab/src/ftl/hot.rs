//! Hot/cold write streams: which stream a host page or a GC move goes to.

use crate::addr::Lpn;
use crate::config::{Config, HotSeparation};
use crate::sim::Simulator;

/// Hot/cold write streams: the hot-data identifier (`ftl.hot_data`), and
/// whether it sorts GC moves (host pages are then all hot) rather than host
/// pages (`ftl.hot_separation`).
pub(crate) struct HotCold {
    pub(crate) hdi: Option<Box<dyn ssdlab_hdi::HotDataIdentifier>>,
    pub(crate) sort_moves: bool,
}

impl HotCold {
    /// Hot/cold streams judged by `hdi` (None: one stream).
    pub(crate) fn new(
        cfg: &Config,
        hdi: Option<Box<dyn ssdlab_hdi::HotDataIdentifier>>,
    ) -> HotCold {
        HotCold {
            hdi,
            sort_moves: cfg.ftl.hot_separation == HotSeparation::GcMoves,
        }
    }
}

impl Simulator {
    /// Is a host page hot (its write stream)? By the identifier, or always
    /// when hot/cold separation sorts GC moves instead (the SPD paper treats
    /// host evictions as hot).
    pub(crate) fn host_hot(&self, lpn: Lpn) -> bool {
        self.hot
            .hdi
            .as_ref()
            .is_some_and(|h| self.hot.sort_moves || h.is_hot(lpn as u64))
    }

    /// Is a page GC moves hot, judged now (`ftl.hot_separation = "gc-moves"`)?
    pub(crate) fn move_hot(&mut self, lpn: Lpn) -> bool {
        let now = self.engine.now();
        self.hot.hdi.as_mut().is_some_and(|h| {
            h.set_time_ns(now);
            h.is_hot(lpn as u64)
        })
    }
}
