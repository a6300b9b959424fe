import ReveilleCore

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
