import FoundationEssentials

/// How many refusals of clients' calls the log tells. Each is a line, and a client that calls
/// again and again (a bug, or to fill the disk: 32 MB in minutes when each was written) would
/// write without end. A bucket of `burst` lines, refilled at `perSecond`; the lines it holds
/// back are counted and said with the next one it lets through. One bucket for every client:
/// a client with many connections or app ids has no more of it. Pure: the time comes in.
struct RefusalLog: Equatable {
    static let burst = 20.0
    static let perSecond = 1.0

    private var tokens = RefusalLog.burst
    private var last: TimeInterval?
    /// Refusals not written since the last one that was.
    private(set) var heldBack = 0

    /// Whether a refusal at `now` (a monotonic clock, in seconds) is written; when it is, how
    /// many before it were not.
    mutating func admit(at now: TimeInterval) -> (write: Bool, heldBack: Int) {
        if let last { tokens = min(Self.burst, tokens + max(0, now - last) * Self.perSecond) }
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
