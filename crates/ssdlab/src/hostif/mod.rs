//! The host interface: between the host's requests and the drive's
//! buffer. `queues.rs`: the flows' submission queues and the arbitration
//! that decides which queue the device fetches its next commands from.

pub(crate) mod queues;
