import Synchronization

/// The progress of a long step on stderr, which stdout's output (the summary a script may read) never sees.
///
/// On a terminal it is one line, rewritten in place (`\r`, then erase to the end of the line) and cut to the
/// terminal's width, since a line that wraps can no longer be rewritten; `finish()` erases it, so that whatever is
/// printed next starts on a clean line. In a log (stderr not a terminal) carriage returns would pile up into one
/// endless line, so it writes a plain line at most once per `interval`, and nothing for a step that ends sooner.
public final class ProgressLine: Sendable {
    public enum Mode: Sendable, Equatable {
        case terminal(columns: Int)
        case log(interval: Duration)
    }

    private struct State {
        var shown = false
        var lastLine: ContinuousClock.Instant
    }

    private let mode: Mode
    private let now: @Sendable () -> ContinuousClock.Instant
    private let write: @Sendable (String) -> Void
    private let state: Mutex<State>

    /// `now` and `write` are the clock and stderr; tests give their own.
    public init(mode: Mode, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }, write: @escaping @Sendable (String) -> Void) {
        self.mode = mode
        self.now = now
        self.write = write
        state = Mutex(State(lastLine: now()))
    }

    public func show(_ text: String) {
        switch mode {
        case .terminal(let columns):
            // The last column stays free: some terminals wrap as soon as it is written.
            let width = max(columns - 1, 2)
            let line = text.count <= width ? text : String(text.prefix(width - 1)) + "…"
            state.withLock { $0.shown = true }
            write("\r" + line + "\u{1B}[K")
        case .log(let interval):
            let time = now()
            let due = state.withLock { state in
                guard time - state.lastLine >= interval else { return false }
                state.lastLine = time
                return true
            }
            if due { write(text + "\n") }
        }
    }

    public func finish() {
        guard case .terminal = mode else { return }
        let shown = state.withLock { state in
            defer { state.shown = false }
            return state.shown
        }
        if shown { write("\r\u{1B}[K") }
    }
}
