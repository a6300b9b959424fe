import FoundationEssentials
import Logging
import ReveilleBus
import ReveilleLoop
import ReveilleSystem

/// How many lines clients' calls write to the log: a refusal, an app that declared another
/// id, a sound that is not installed. Each is a line, and a client that calls again and again
/// (a bug, or to fill the disk: 32 MB in minutes when each was written) would write without
/// end. A bucket of `burst` lines, refilled at `perSecond`; the lines it holds back are counted
/// and said with the next one it lets through. One bucket for every client: a client with many
/// connections or app ids has no more of it (and an unsandboxed process is the user to the
/// agent, so the user's tools cannot be told apart). Pure: the time comes in.
struct LogBudget: Equatable {
    /// Clients' calls' lines: 20 at once, then one a second.
    static let burst = 20.0
    static let perSecond = 1.0

    let burst: Double
    let perSecond: Double
    private var tokens: Double
    private var last: TimeInterval?
    /// Lines not written since the last one that was.
    private(set) var heldBack = 0

    init(burst: Double = LogBudget.burst, perSecond: Double = LogBudget.perSecond) {
        (self.burst, self.perSecond, tokens) = (burst, perSecond, burst)
    }

    /// Whether a line at `now` (a monotonic clock, in seconds) is written; when it is, how
    /// many before it were not.
    mutating func admit(at now: TimeInterval) -> (write: Bool, heldBack: Int) {
        if let last { tokens = min(burst, tokens + max(0, now - last) * perSecond) }
        last = max(last ?? now, now)
        guard tokens >= 1 else {
            heldBack += 1
            return (false, 0)
        }
        tokens -= 1
        defer { heldBack = 0 }
        return (true, heldBack)
    }
}

/// The log lines clients' calls cause, within one `LogBudget`, shared by the parts that
/// answer clients.
@GLibActor
final class ClientLog {
    private let logger: Logger
    private var budget = LogBudget()

    init(logger: Logger) {
        self.logger = logger
    }

    func notice(_ line: String) {
        let admitted = budget.admit(at: SystemClock.bootTime)
        guard admitted.write else { return }
        logger.notice(admitted.heldBack == 0 ? "\(line)"
            : "\(line) (\(admitted.heldBack) line(s) of clients' calls before it were not logged: at most \(Int(LogBudget.burst)) at once, then \(Int(LogBudget.perSecond)) a second)")
    }
}
