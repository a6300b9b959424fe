/// What one client of an exported object may cost: a share of the loop's time (a token bucket
/// of seconds, refilled at `loopShare` seconds a second up to `loopBurst`) and the reply bytes
/// queued toward it that it has not shown it read. A client shows it reads by answering a Ping
/// sent behind its replies (D-Bus keeps each pair's messages in order, so the Ping's answer means
/// everything before it was read); past `unreadBytes` its calls are refused, not buffered.
/// Pure: the gate gives it the time and the sizes.
package struct ClientBudget: Sendable, Equatable {
    package struct Limits: Sendable, Equatable {
        /// The loop time one client may use, in seconds per second, over time.
        package var loopShare: Double
        /// The most loop time one client may use at once, in seconds.
        package var loopBurst: Double
        /// Reply bytes not yet shown read past which the client's calls are refused.
        package var unreadBytes: Int
        /// Reply bytes not yet shown read after which the client is asked to show it reads.
        package var confirmAfterBytes: Int

        package init(loopShare: Double, loopBurst: Double, unreadBytes: Int, confirmAfterBytes: Int) {
            self.loopShare = loopShare
            self.loopBurst = loopBurst
            self.unreadBytes = unreadBytes
            self.confirmAfterBytes = confirmAfterBytes
        }
    }

    /// Why a call was refused.
    package enum Refusal: Sendable, Equatable {
        /// The client used its share of the loop; it may call again after `seconds`.
        case busy(seconds: Double)
        /// `bytes` of replies wait toward the client, which has not shown it read them.
        case unread(bytes: Int)
    }

    package let limits: Limits
    /// Loop time in hand, in seconds (negative: owed).
    private(set) var loopTime: Double
    /// When `loopTime` was last refilled, in seconds on a monotonic clock.
    private var refilledAt: Double
    /// Reply bytes sent that the client has not shown it read.
    package private(set) var unread = 0
    /// `unread` when the pending Ping was sent; nil while none is pending.
    private var pinged: Int?

    package init(limits: Limits, now: Double) {
        self.limits = limits
        loopTime = limits.loopBurst
        refilledAt = now
    }

    /// Whether a call may be handled now.
    package mutating func admit(now: Double) -> Refusal? {
        refill(now: now)
        if unread > limits.unreadBytes { return .unread(bytes: unread) }
        if loopTime <= 0 { return .busy(seconds: -loopTime / limits.loopShare) }
        return nil
    }

    /// A call took `seconds` of the loop.
    package mutating func charge(seconds: Double, now: Double) {
        refill(now: now)
        loopTime -= max(0, seconds)
    }

    /// A reply of `bytes` was queued toward the client; true when a Ping should now follow it.
    package mutating func replied(bytes: Int) -> Bool {
        unread += max(0, bytes)
        guard pinged == nil, unread >= limits.confirmAfterBytes else { return false }
        pinged = unread
        return true
    }

    /// A Ping was sent behind the replies and has not come back.
    package var awaitsPing: Bool { pinged != nil }

    /// The Ping came back (`read`: answered, so what was queued before it was read) or failed
    /// (it may be sent again once more replies follow).
    package mutating func pingAnswered(read: Bool) {
        if read, let pinged { unread -= pinged }
        pinged = nil
    }

    /// Nothing owed and nothing unread: forgetting the client loses nothing.
    package func isIdle(now: Double) -> Bool {
        unread == 0 && pinged == nil && loopTime + (now - refilledAt) * limits.loopShare >= limits.loopBurst
    }

    private mutating func refill(now: Double) {
        loopTime = min(limits.loopBurst, loopTime + max(0, now - refilledAt) * limits.loopShare)
        refilledAt = now
    }
}
