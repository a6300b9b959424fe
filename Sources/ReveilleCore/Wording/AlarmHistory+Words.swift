import ReveilleModel
import ReveilleRules
import ReveilleWords
/// A history entry in the user's words, for the CLI's `history` and the app's History page.
extension AlarmHistory.Entry {
    /// How the occurrence ended, with the app that ended it when it was not the user:
    /// `stopped`, `missed: rang unanswered`, `snoozed by com.example.Timer`.
    package var endingWords: String {
        let words = switch outcome {
        case .stopped: L("stopped")
        case .snoozed: L("snoozed")
        case .cancelled: L("cancelled")
        case .changed: L("changed")
        case .missedLate: L("missed: not rung in time")
        case .missedUnanswered: L("missed: rang unanswered")
        case .unansweredRingsAgain: L("unanswered: rang again later")
        case .skipped: L("skipped")
        }
        guard let by, by != ClientIdentity.userAppID else { return words }
        return L("%@ by %@", words, by)
    }
}
