//! Parent side: the parser child and the parent's thread on different cores while
//! they exchange.
//!
//! Why: the child writes its answer into a pipe the parent reads, and a pipe write
//! wakes its reader as a *synchronous* wake-up: the kernel takes it that the writer
//! is about to sleep and puts the reader on the writer's core. The child does not
//! sleep, it goes on parsing; so the parent's thread took turns with it on one core,
//! a millisecond each, while the other core stood idle (`docs/performance.md`,
//! "Two cores for the exchange").
//!
//! So, when the parent may run on two cores or more, the child is kept to the core
//! the parent was on when the child started, and the parent's thread to the others,
//! until the exchange is over; then the thread's whole set is given back, for the
//! threads that audit and write the report after it. Threads the parent starts
//! meanwhile share its cores. Best effort: a call that fails leaves both where the
//! kernel puts them, which only costs time.

use nix::sched::{sched_getaffinity, sched_getcpu, sched_setaffinity, CpuSet};
use nix::unistd::Pid;

/// The parent's thread kept off the child's core; its cores are given back on drop.
#[derive(Debug)]
pub(crate) struct Placement {
    /// The thread that was moved (a drop on another thread restores this one).
    thread: Pid,
    /// Its cores before.
    cores: CpuSet,
}

/// Keep `child` to the core this thread is on, and this thread to its other cores.
/// `None` (nothing changed) when this thread may run on one core only, or a call
/// fails.
pub(crate) fn separate(child: Pid) -> Option<Placement> {
    let thread = nix::unistd::gettid();
    let cores = sched_getaffinity(thread).ok()?;
    let allowed: Vec<usize> = (0..CpuSet::count())
        .filter(|&c| cores.is_set(c).unwrap_or(false))
        .collect();
    let &last = allowed.last()?;
    if allowed.len() < 2 {
        return None;
    }
    let here = sched_getcpu()
        .ok()
        .filter(|c| allowed.contains(c))
        .unwrap_or(last);
    let mut child_cores = CpuSet::new();
    child_cores.set(here).ok()?;
    let mut parent_cores = cores;
    parent_cores.unset(here).ok()?;
    sched_setaffinity(child, &child_cores).ok()?;
    if sched_setaffinity(thread, &parent_cores).is_err() {
        let _ = sched_setaffinity(child, &cores);
        return None;
    }
    Some(Placement { thread, cores })
}

impl Drop for Placement {
    fn drop(&mut self) {
        let _ = sched_setaffinity(self.thread, &self.cores);
    }
}

/// Let the calling thread run only when the threads of normal priority leave its
/// core free (nice 19; on Linux a thread's own). For a thread that works beside the
/// exchange (judging what has arrived): the thread that reads the child's answer
/// must never wait for it, or the child waits on a full pipe. Best effort.
pub fn yield_to_the_exchange() {
    crate::sys::lower_thread_priority(nix::unistd::gettid().as_raw());
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is the test failure report
mod tests {
    use super::*;

    fn cores_of(set: &CpuSet) -> Vec<usize> {
        (0..CpuSet::count())
            .filter(|&c| set.is_set(c).unwrap())
            .collect()
    }

    /// One process per test would be birdcage's way; here the test moves only its
    /// own thread, and a `sleep` stands in for the child.
    #[test]
    fn the_child_gets_one_core_and_the_thread_the_others_until_the_drop() {
        let thread = nix::unistd::gettid();
        let before = sched_getaffinity(thread).unwrap();
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let pid = Pid::from_raw(i32::try_from(child.id()).unwrap());
        let placed = separate(pid);
        let cores = cores_of(&before);
        if cores.len() < 2 {
            assert!(placed.is_none(), "one core: nothing to separate");
        } else {
            let placed = placed.unwrap();
            let child_cores = cores_of(&sched_getaffinity(pid).unwrap());
            let thread_cores = cores_of(&sched_getaffinity(thread).unwrap());
            assert_eq!(child_cores.len(), 1, "{child_cores:?}");
            let kept = child_cores[0];
            assert!(cores.contains(&kept));
            let others: Vec<usize> = cores.iter().copied().filter(|&c| c != kept).collect();
            assert_eq!(thread_cores, others);
            drop(placed);
            assert_eq!(sched_getaffinity(thread).unwrap(), before);
        }
        child.kill().unwrap();
        child.wait().unwrap();
    }

    #[test]
    fn a_thread_beside_the_exchange_takes_the_lowest_priority_and_no_other_does() {
        fn nice() -> i64 {
            // Field 19 of /proc/thread-self/stat, after the command name's ')'.
            let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap();
            let (_, rest) = stat.rsplit_once(')').unwrap();
            rest.split_whitespace().nth(16).unwrap().parse().unwrap()
        }
        let before = nice();
        let beside = std::thread::spawn(|| {
            yield_to_the_exchange();
            nice()
        })
        .join()
        .unwrap();
        assert_eq!(beside, 19);
        assert_eq!(nice(), before, "only the calling thread");
    }
}
