/// Which key presses the alert window answers: only keys pressed after the window became
/// active and had been for `settling` seconds. A person typing into another window when the
/// alert appears (the window takes the focus) would otherwise stop the alarm with the Enter
/// of their sentence, unseen; a key already held then (its repeats reach the window) counts
/// once released and pressed again. Pure: the window gives it the events and the time.
package struct AlertKeyGate: Sendable, Equatable {
    /// How long after the window became active a press still belongs to what came before.
    package static let settling = 0.6
    private var activeSince: Double?
    /// Keys seen down that have not been released: their presses are repeats, or held from before.
    private var down: Set<UInt32> = []

    package init() {}

    /// The window became active (it has the keyboard focus) at `now`, or stopped being so.
    package mutating func active(_ isActive: Bool, at now: Double) {
        activeSince = isActive ? (activeSince ?? now) : nil
        if !isActive { down = [] }
    }

    /// Whether the press of `key` (a hardware key code) at `now` answers the alarm.
    package mutating func pressed(_ key: UInt32, at now: Double) -> Bool {
        let fresh = down.insert(key).inserted
        // A key reaching the window is the first sign of its focus where the platform said none.
        guard let activeSince else {
            activeSince = now
            return false
        }
        return fresh && now - activeSince >= Self.settling
    }

    /// `key` was released: its next press is a new one.
    package mutating func released(_ key: UInt32) { down.remove(key) }
}
