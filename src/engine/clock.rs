//! The engine's time ([`Clock`]): the system clock in a crawler, a clock that moves only when
//! told ([`ManualClock`]) in tests, so that the failure rules' hours and the gate's waits run
//! in no time.

use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use super::lock;

/// A future a [`Clock`] returns from [`Clock::sleep`].
pub type Sleep = std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + 'static>>;

/// The time source of the engine. Inject one in tests to make hours pass instantly.
///
/// The gate ([`RobotsCache::acquire`](super::RobotsCache::acquire)) waits for slots through [`Clock::sleep`], so that a
/// clock that moves only when told ([`ManualClock`]) also wakes its sleepers when told: a
/// schedule of minutes runs in a test in no time.
pub trait Clock: Send + Sync + 'static {
    /// The current time.
    fn now(&self) -> SystemTime;

    /// A future that completes once `duration` has passed on this clock. By default a Tokio
    /// timer (real time).
    fn sleep(&self, duration: Duration) -> Sleep {
        Box::pin(tokio::time::sleep(duration))
    }
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }
}

/// A clock that moves only when told: for tests and simulations. Its sleepers
/// ([`Clock::sleep`]) wake when [`ManualClock::advance`] or [`ManualClock::set`] moves it to
/// or past their deadline, never on their own.
#[derive(Debug)]
pub struct ManualClock(Mutex<Manual>);

#[derive(Debug)]
struct Manual {
    now: SystemTime,
    /// Deadlines and the sleepers to wake at them.
    sleepers: Vec<(SystemTime, tokio::sync::oneshot::Sender<()>)>,
}

impl ManualClock {
    /// A clock showing `start`.
    pub fn new(start: SystemTime) -> ManualClock {
        ManualClock(Mutex::new(Manual {
            now: start,
            sleepers: Vec::new(),
        }))
    }

    /// Moves the clock forward, waking the sleepers whose time has come.
    pub fn advance(&self, by: Duration) {
        let mut m = lock(&self.0);
        m.now += by;
        m.wake();
    }

    /// Sets the clock, waking the sleepers whose time has come.
    pub fn set(&self, to: SystemTime) {
        let mut m = lock(&self.0);
        m.now = to;
        m.wake();
    }

    /// How many sleepers wait for the clock to move.
    pub fn sleepers(&self) -> usize {
        let mut m = lock(&self.0);
        m.sleepers.retain(|(_, tx)| !tx.is_closed());
        m.sleepers.len()
    }

    /// The earliest deadline a sleeper waits for, if any: `set` it to run a schedule.
    pub fn next_deadline(&self) -> Option<SystemTime> {
        let mut m = lock(&self.0);
        m.sleepers.retain(|(_, tx)| !tx.is_closed());
        m.sleepers.iter().map(|(at, _)| *at).min()
    }
}

impl Manual {
    fn wake(&mut self) {
        let now = self.now;
        let (due, waiting) = std::mem::take(&mut self.sleepers)
            .into_iter()
            .partition::<Vec<_>, _>(|(at, _)| *at <= now);
        self.sleepers = waiting;
        for (_, tx) in due {
            // A sleeper that was dropped meanwhile does not mind.
            let _ = tx.send(());
        }
    }
}

impl Clock for ManualClock {
    fn now(&self) -> SystemTime {
        lock(&self.0).now
    }

    fn sleep(&self, duration: Duration) -> Sleep {
        let mut m = lock(&self.0);
        if duration.is_zero() {
            return Box::pin(std::future::ready(()));
        }
        let at = m.now.checked_add(duration).unwrap_or(m.now);
        let (tx, rx) = tokio::sync::oneshot::channel();
        m.sleepers.push((at, tx));
        Box::pin(async move {
            // Woken, or the clock is gone: either way the wait is over.
            let _ = rx.await;
        })
    }
}
