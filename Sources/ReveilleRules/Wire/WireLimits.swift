/// Every bound on what crosses the agent's boundary, in one table: what a client may send in
/// one call, what the agent keeps for it while it waits, and what one reply or signal carries.
/// A limit is checked before any work that allocates in proportion to the input, and past it
/// the call is refused with an error naming the limit (README, "Limits").
package enum WireLimits {
    // MARK: One call

    /// The arguments of one method call, in bytes as D-Bus carries them. Checked on the
    /// serialized message before anything is converted.
    package static let callBytes = 128 << 10
    /// How long a sound's preview (PlaySound, PreviewSound) may play, in seconds.
    package static let previewSeconds: ClosedRange<Double> = 0.1...60
    /// An `AlarmRequest` (a configuration), in bytes of JSON: this bounds every stored alarm.
    package static let configurationBytes = 64 << 10
    /// An `AlarmRecord` sent back to be restored (`Restore`): a configuration and where it stood.
    package static let recordBytes = configurationBytes + 1024
    /// An alarm id or id prefix, an app id, a state name: any other string argument.
    package static let shortStringBytes = 512
    /// `SyncAdd`'s collection URL and password, in bytes.
    package static let syncURLBytes = 2048
    package static let passwordBytes = 1024
    /// `Hello`'s usage description, in bytes (it is shown in the user's prompt, cut to 500 characters).
    package static let usageDescriptionBytes = 4096

    // MARK: Inside a configuration (`AlarmRequest.validate`)

    /// The longest countdown, snooze or repeat length: a year.
    package static let maximumCountdown: Double = 366 * 86_400
    /// The longest snooze asked for when snoozing (`Snooze`, `reveille snooze ID 20m`, the
    /// alert's longer snooze): a day. Longer is not a snooze; change the alarm instead.
    package static let maximumSnooze: Double = 86_400
    /// The shortest and longest ring limit (`RingOptions.ringLimit`): `RingOptions.validate`,
    /// in the model below these rules, holds the same numbers (a test checks they agree).
    package static let shortestRingLimit: Double = 5
    package static let longestRingLimit: Double = 86_400
    /// The shortest snooze: a second. Shorter (1e-9 s, 5e-324 s) rang again at once.
    package static let minimumSnooze: Double = 1
    /// A title (alert, countdown, paused), in characters and in UTF-8 bytes: one character may
    /// carry any number of combining marks, and every byte reaches the notification server.
    package static let titleCharacters = 500
    package static let titleBytes = 2000
    /// A button's text, in characters and in UTF-8 bytes.
    package static let buttonTextCharacters = 64
    package static let buttonTextBytes = 256
    /// A button's icon name, in UTF-8 bytes.
    package static let iconNameBytes = 128
    /// The app's metadata (JSON text), in UTF-8 bytes.
    package static let metadataBytes = 4096
    /// A named sound or a sound file's path, in UTF-8 bytes (PATH_MAX).
    package static let soundNameBytes = 4096
    /// A `run:` intent: at most this many arguments, and this many bytes in all.
    package static let runArguments = 64
    package static let runBytes = 16 << 10
    /// A weekly recurrence: each weekday at most once.
    package static let weekdays = 7

    // MARK: Calls waiting for the user's decision (an app nobody has decided about)

    /// Parked calls, counted and in bytes of their arguments: per connection, per app, in all.
    package static let parkedCallsPerConnection = 8
    package static let parkedCallsPerApp = 32
    package static let parkedCalls = 256
    package static let parkedBytesPerConnection = 1 << 20
    package static let parkedBytesPerApp = 2 << 20
    package static let parkedBytes = 16 << 20

    // MARK: Replies and signals

    /// One reply or signal's JSON, in bytes: `ListPage` stops adding alarms before it, and
    /// `AlarmsUpdated` is sent in as many signals as the change needs.
    package static let pageBytes = 4 << 20
    /// Signals waiting in the agent to be written to the bus: past this the queue is flushed
    /// before more are sent, however many subscribers hear a change.
    package static let queuedSignalBytes = 16 << 20
    /// The most alarms one `ListPage` returns.
    package static let pageAlarms = 10_000
}
