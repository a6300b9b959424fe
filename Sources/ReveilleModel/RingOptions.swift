import FoundationEssentials

/// How an alarm rings: Reveille's additions to AlarmKit's sound.
public struct RingOptions: Codable, Hashable, Sendable {
    /// The stream's volume from 0 to 1; full volume when `nil`.
    public var volume: Double?
    /// Seconds over which the sound rises from silence to `volume`.
    public var fadeIn: TimeInterval?
    /// Seconds an unanswered alert rings before it stops and is reported missed;
    /// `defaultRingLimit` when `nil`.
    public var ringLimit: TimeInterval?
    /// Whether the alarm wakes the machine from suspend; yes when `nil` (see the agent's
    /// `wakeFromSuspend` setting).
    public var wakesMachine: Bool?
    /// Unanswered at its ring limit, it rests and rings again, a bounded number of times; the
    /// agent's `repeatUnanswered` setting when `nil`.
    public var repeatUnanswered: UnansweredRepeat?

    public static let defaultRingLimit: TimeInterval = 600

    private enum CodingKeys: String, CodingKey, CaseIterable { case volume, fadeIn, ringLimit, wakesMachine, repeatUnanswered }
    /// The keys of its JSON object.
    public static var fieldNames: [String] { CodingKeys.allCases.map(\.rawValue) }

    public init(volume: Double? = nil, fadeIn: TimeInterval? = nil, ringLimit: TimeInterval? = nil, wakesMachine: Bool? = nil,
                repeatUnanswered: UnansweredRepeat? = nil) {
        self.volume = volume
        self.fadeIn = fadeIn
        self.ringLimit = ringLimit
        self.wakesMachine = wakesMachine
        self.repeatUnanswered = repeatUnanswered
    }

    /// The quietest stream volume an alarm rings at: 10% on the desktop's (cubic) volume
    /// slider. 0 rang in silence, and 1% (-120 dB) as good as.
    public static let quietestVolume = 0.001

    /// Checks the ranges; throws `invalidConfiguration` naming the value and what is accepted.
    public func validate() throws(AlarmError) {
        // 10% on the slider, cubed, may come out a hair under 0.001.
        if let volume, !(volume.isFinite && (Self.quietestVolume * (1 - 1e-9)...1).contains(volume)) {
            throw .invalidConfiguration("volume is \(volume); accepted: \(Self.quietestVolume) to 1 (10% to 100% on the desktop's volume slider): an alarm is never silent")
        }
        if let ringLimit, !(ringLimit.isFinite && (5...86_400).contains(ringLimit)) {
            throw .invalidConfiguration("ringLimit is \(ringLimit) seconds; accepted: 5 seconds to 24 hours")
        }
        if let fadeIn, !(fadeIn.isFinite && fadeIn >= 0 && fadeIn <= (ringLimit ?? Self.defaultRingLimit)) {
            throw .invalidConfiguration("fadeIn is \(fadeIn) seconds; accepted: 0 up to the ring limit")
        }
        try repeatUnanswered?.validate()
    }
}

/// An alarm nobody answers rings, rests `rest` seconds, and rings again, `rings` times in all;
/// then it is missed. Bounded on purpose: a person asleep through the first ring gets a second
/// and a third, an empty flat does not get an endless alarm. Reveille's addition to AlarmKit.
public struct UnansweredRepeat: Codable, Hashable, Sendable {
    /// How many times the occurrence rings in all, the first included: 1 rings once.
    public var rings: Int
    /// Seconds of quiet between one ring's end and the next ring.
    public var rest: TimeInterval

    public init(rings: Int, rest: TimeInterval = Self.defaultRest) {
        self.rings = rings
        self.rest = rest
    }

    /// Rings once: no repeat (an alarm's own choice, over the agent's setting).
    public static let once = UnansweredRepeat(rings: 1)
    public static let defaultRest: TimeInterval = 300
    /// The most rings an occurrence may have, and the shortest and longest rest.
    public static let ringsRange = 1...10
    public static let restRange: ClosedRange<TimeInterval> = 5...3600

    /// Whether it rings more than once.
    public var repeats: Bool { rings > 1 }

    /// Checks the ranges; throws `invalidConfiguration` naming the value and what is accepted.
    public func validate() throws(AlarmError) {
        guard Self.ringsRange.contains(rings) else {
            throw .invalidConfiguration("repeatUnanswered.rings is \(rings); accepted: \(Self.ringsRange.lowerBound) to \(Self.ringsRange.upperBound) rings in all")
        }
        guard rest.isFinite, Self.restRange.contains(rest) else {
            throw .invalidConfiguration("repeatUnanswered.rest is \(rest) seconds; accepted: 5 seconds to 1 hour")
        }
    }
}
