import ReveilleCore
import ReveilleRules

/// The rule for what a caller may ask of the helper: only an instant in the future, at most
/// `WakeHelperInterface.maximumLead` seconds ahead. Nothing else reaches the RTC.
package enum WakeRequest {
    /// `instant` when it may be set at `now` (both seconds since 1970); else why not.
    package static func validate(_ instant: UInt64, now: Int64) -> Result<UInt64, Refusal> {
        guard instant <= UInt64(Int64.max), Int64(instant) > now else {
            return .failure(Refusal("the wake-up instant \(instant) is not in the future (now is \(now)); accepted: an instant in seconds since 1970, after now"))
        }
        guard Int64(instant) - now <= WakeHelperInterface.maximumLead else {
            return .failure(Refusal("the wake-up instant \(instant) is more than 366 days ahead; accepted: at most \(WakeHelperInterface.maximumLead) seconds from now"))
        }
        return .success(instant)
    }

    package struct Refusal: Error, Equatable {
        package var reason: String
        init(_ reason: String) { self.reason = reason }
    }
}

/// The polkit checks waiting for an answer, counted per Unix user. polkit may hold a check for
/// minutes (it asks for a password), and the system bus lets the helper wait on at most 128
/// replies at once (dbus-daemon's `max_replies_per_connection`): without a share per user, one
/// user's waiting checks would use them all up and every other user's check would fail.
package struct PendingChecks: Equatable, Sendable {
    /// At most this many checks of one user wait at a time.
    package static let perUser = WakeHelperInterface.pendingChecksPerUser
    /// At most this many checks wait at a time in all, below the bus's 128.
    package static let total = 100

    private var waiting: [UInt32: Int] = [:]

    package init() {}

    /// Whether no check waits: only then may the helper exit.
    package var isEmpty: Bool { waiting.isEmpty }

    /// Counts a check of `user` and returns `nil`, or returns why it may not wait now.
    package mutating func admit(user: UInt32) -> WakeRequest.Refusal? {
        let mine = waiting[user, default: 0]
        guard mine < Self.perUser else {
            return WakeRequest.Refusal("user \(user) already has \(mine) requests waiting for polkit; accepted: at most \(Self.perUser) at a time per user, try again when one is answered")
        }
        guard waiting.values.reduce(0, +) < Self.total else {
            return WakeRequest.Refusal("\(Self.total) requests are waiting for polkit; accepted: at most \(Self.total) at a time, try again when one is answered")
        }
        waiting[user] = mine + 1
        return nil
    }

    /// Uncounts a check of `user` that polkit answered (or did not, in time).
    package mutating func finish(user: UInt32) {
        guard let mine = waiting[user] else { return }
        waiting[user] = mine > 1 ? mine - 1 : nil
    }
}

/// The helper's `--idle-exit`: whole seconds, bounded so that it converts to the main loop's
/// milliseconds (a 32-bit count) without overflow.
package enum IdleExit {
    package static let accepted: ClosedRange<UInt32> = 1...86_400

    /// The seconds `text` names, or why it is refused (anything but a whole number in `accepted`).
    package static func seconds(_ text: String) -> Result<UInt32, WakeRequest.Refusal> {
        guard let value = UInt32(text), accepted.contains(value) else {
            return .failure(WakeRequest.Refusal("--idle-exit '\(text)' is refused; accepted: whole seconds from \(accepted.lowerBound) to \(accepted.upperBound)"))
        }
        return .success(value)
    }
}
