import Foundation
import Synchronization

/// Requests and errors of the last hour, per minute, for the console's overview: Prometheus counters only ever grow,
/// and a researcher wants to know about now without a Prometheus server.
final class RecentRequests: Sendable {
    struct Minute {
        var minute: Int64 = -1
        var requests = 0
        var clientErrors = 0
        var serverErrors = 0
    }

    struct Totals: Sendable {
        var requests = 0
        var clientErrors = 0
        var serverErrors = 0
        /// The oldest minute counted: the start of the hour, or when the gateway started if that is later.
        var since: Date
    }

    private let minutes = Mutex([Minute](repeating: Minute(), count: 60))
    private let started = Date()

    func record(status: Int, at time: Date = Date()) {
        let minute = Int64(time.timeIntervalSince1970 / 60)
        minutes.withLock { minutes in
            let slot = Int(minute % 60)
            if minutes[slot].minute != minute { minutes[slot] = Minute(minute: minute) }
            minutes[slot].requests += 1
            if (400..<500).contains(status) { minutes[slot].clientErrors += 1 }
            if status >= 500 { minutes[slot].serverErrors += 1 }
        }
    }

    /// The 60 minutes up to and including the current one.
    func lastHour(now: Date = Date()) -> Totals {
        let current = Int64(now.timeIntervalSince1970 / 60)
        var totals = Totals(since: max(started, Date(timeIntervalSince1970: Double(current - 59) * 60)))
        minutes.withLock { minutes in
            for minute in minutes where minute.minute > current - 60 && minute.minute <= current {
                totals.requests += minute.requests
                totals.clientErrors += minute.clientErrors
                totals.serverErrors += minute.serverErrors
            }
        }
        return totals
    }
}
