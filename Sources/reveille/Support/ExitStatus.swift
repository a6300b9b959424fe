import ArgumentParser
import Glibc
import ReveilleKit

/// One exit-status convention for every command (sysexits.h), listed in the man page.
enum ExitStatus {
    /// What each status means, for `--help` and the man page.
    static let table: [(Int32, String)] = [
        (0, "done"),
        (1, "refused: the alarm's state does not allow it (snooze an alarm that is not ringing), or you said no"),
        (64, "usage: an unknown option, or a value that cannot be read (a time, a duration, a volume)"),
        (65, "the agent refused the alarm as given (a time in the past, too many alarms, a sound that does not exist)"),
        (66, "no alarm has that ID, or the prefix matches more than one"),
        (69, "the agent cannot be reached or started"),
        (74, "the agent could not save the change"),
        (77, "not allowed (an app's alarm, or an app not authorized)"),
    ]

    static func of(_ error: AlarmError) -> Int32 {
        switch error {
        case .invalidState: 1
        case .invalidConfiguration, .maximumLimitReached: 65
        case .notFound, .ambiguousID: 66
        case .agentUnavailable: 69
        case .storageFailure: 74
        case .notAuthorized: 77
        }
    }

    static var manSection: String {
        table.map { "\($0.0)  \($0.1)" }.joined(separator: "\n")
    }
}

/// The user declined a confirmation: nothing was done.
struct Declined: Error {}
