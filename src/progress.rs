//! Progress of long work (post, merge, analyze) on a terminal: nothing for
//! the first second, then a bar (or a spinner when the amount of work is not
//! known) on stderr. Nothing at all when stderr is not a terminal (batch
//! jobs, pipes, CI) or `BLAME_PROGRESS=0`.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long work runs before its progress is shown.
const DELAY: Duration = Duration::from_secs(1);

pub struct Progress {
    bar: Option<ProgressBar>,
    started: Instant,
    /// Drawn already (an atomic: merge reports progress from a worker thread).
    shown: AtomicBool,
}

/// Whether progress may be drawn: stderr is a terminal and the user did not turn it off.
fn wanted() -> bool {
    std::io::stderr().is_terminal()
        && std::env::var_os("BLAME_PROGRESS").is_none_or(|v| v != "0")
        && std::env::var("TERM").map_or(true, |t| t != "dumb")
}

impl Progress {
    /// A bar over `total` units of work (`what`: "processes", "shards").
    pub fn bar(message: &str, total: u64, what: &str) -> Progress {
        Self::new(message, Some((total, what)))
    }

    /// A spinner with the elapsed time, for work of unknown length.
    pub fn spinner(message: &str) -> Progress {
        let p = Self::new(message, None);
        if let Some(bar) = &p.bar {
            // Ticks from a thread of indicatif's, so the work need not call in;
            // it stays hidden until `DELAY` has passed (see `show_if_due`).
            bar.enable_steady_tick(Duration::from_millis(120));
        }
        p
    }

    fn new(message: &str, total: Option<(u64, &str)>) -> Progress {
        let bar = wanted().then(|| {
            let (bar, style) = match total {
                Some((n, what)) => (
                    ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::hidden()),
                    format!(
                        "{{msg}} [{{bar:30}}] {{pos}}/{{len}} {what} ({{elapsed}}, eta {{eta}})"
                    ),
                ),
                None => (
                    ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden()),
                    "{spinner} {msg} ({elapsed})".to_string(),
                ),
            };
            if let Ok(style) = ProgressStyle::with_template(&style) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.set_message(message.to_string());
            bar
        });
        let p = Progress {
            bar,
            started: Instant::now(),
            shown: AtomicBool::new(false),
        };
        if total.is_none() {
            p.show_later();
        }
        p
    }

    /// A spinner is not called back: a thread shows it once `DELAY` has passed.
    fn show_later(&self) {
        if let Some(bar) = self.bar.clone() {
            std::thread::spawn(move || {
                std::thread::sleep(DELAY);
                if !bar.is_finished() {
                    bar.set_draw_target(ProgressDrawTarget::stderr());
                }
            });
            self.shown.store(true, Ordering::Relaxed);
        }
    }

    fn show_if_due(&self) {
        if let (Some(bar), false) = (&self.bar, self.shown.load(Ordering::Relaxed)) {
            if self.started.elapsed() >= DELAY && !self.shown.swap(true, Ordering::Relaxed) {
                bar.set_draw_target(ProgressDrawTarget::stderr());
            }
        }
    }

    pub fn set(&self, done: u64) {
        if let Some(bar) = &self.bar {
            bar.set_position(done);
            self.show_if_due();
        }
    }

    /// Clears the line, so the messages that follow start on a clean one.
    pub fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}
