import ArgumentParser
import Glibc
import ReveilleCore
import ReveilleKit

/// One exit-status convention for every command (sysexits.h), listed in the man page's
/// EXIT STATUS (docs/man/reveille.sections).
enum ExitStatus {
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

}

/// The user declined a confirmation: nothing was done.
struct Declined: Error {}

/// A file the command was to write could not be: said as an error, without the usage (the
/// arguments were right), with EX_IOERR.
struct FileFailure: Error {
    var message: String
    static let status: Int32 = 74
}
