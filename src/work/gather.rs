//! Gathering through timely: the far end of a dataflow that ends in a
//! capture ([`Outlet`]), and what every worker offers brought to worker 0
//! ([`at_zero`]).

use std::collections::BTreeMap;
use std::sync::mpsc::Receiver;
use std::time::Duration;

use timely::dataflow::InputHandleVec;
use timely::dataflow::operators::Exchange;
use timely::dataflow::operators::capture::{Capture, Event};
use timely::progress::frontier::MutableAntichain;
use timely::worker::Worker;

/// How long a worker with nothing to do sleeps before looking again (it wakes
/// earlier when data arrives).
const PARK: Duration = Duration::from_millis(1);

/// The far end of a dataflow that ends in timely's [`Capture`]: the
/// messages it delivered, by round, and its frontier, followed from the
/// captured progress as timely's replay does (from round 0, counted once).
pub struct Outlet<D> {
    events: Receiver<Event<u64, Vec<D>>>,
    frontier: MutableAntichain<u64>,
    delivered: BTreeMap<u64, Vec<D>>,
}

impl<D> Outlet<D> {
    /// The far end of the capture whose events come through `events`.
    pub fn new(events: Receiver<Event<u64, Vec<D>>>) -> Outlet<D> {
        Outlet {
            events,
            frontier: MutableAntichain::from_elem(0),
            delivered: BTreeMap::new(),
        }
    }

    /// Takes in what the capture sent.
    fn receive(&mut self) {
        for event in self.events.try_iter() {
            match event {
                Event::Progress(changes) => {
                    self.frontier.update_iter(changes);
                }
                Event::Messages(stamp, mut data) => {
                    for round in stamp.into_elements() {
                        self.delivered.entry(round).or_default().append(&mut data);
                    }
                }
            }
        }
    }

    /// Whether every message of the rounds up to `round` has arrived.
    pub fn complete_to(&mut self, round: u64) -> bool {
        self.receive();
        !self.frontier.less_equal(&round)
    }

    /// Whether the dataflow is over: every message has arrived.
    pub fn done(&mut self) -> bool {
        self.receive();
        self.frontier.is_empty()
    }

    /// Steps the worker until every message of the rounds up to `round`
    /// has arrived.
    pub fn wait_for(&mut self, worker: &mut Worker, round: u64) {
        worker.step_or_park_while(Some(PARK), || !self.complete_to(round));
    }

    /// Steps the worker until the dataflow is over.
    pub fn wait_for_all(&mut self, worker: &mut Worker) {
        worker.step_or_park_while(Some(PARK), || !self.done());
    }

    /// The messages arrived so far, round by round.
    pub fn take(&mut self) -> BTreeMap<u64, Vec<D>> {
        self.receive();
        std::mem::take(&mut self.delivered)
    }
}

/// Everything every worker offers, at worker 0 (the others get nothing).
pub fn at_zero<D: timely::ExchangeData + Clone>(worker: &mut Worker, offered: Vec<D>) -> Vec<D> {
    let mut input = InputHandleVec::<u64, D>::new();
    let events =
        worker.dataflow::<u64, _, _>(|scope| input.to_stream(scope).exchange(|_| 0).capture());
    let mut outlet = Outlet::new(events);
    for d in offered {
        input.send(d);
    }
    drop(input);
    outlet.wait_for_all(worker);
    outlet.take().into_values().flatten().collect()
}
