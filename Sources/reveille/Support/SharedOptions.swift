import ArgumentParser
import Foundation
import ReveilleKit

/// `--json`, for every command that prints alarms.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print JSON objects (id, title, state, kind, fireDate, timeRemaining, time, repeats, snooze, preAlert, app).")
    var json = false

    func show(_ record: AlarmRecord, verb: String) throws {
        let summary = AlarmSummary(record)
        if json { try Output.json(summary) } else { Output.line(summary.sentence(verb: verb)) }
    }
}

/// What the alert shows and how it snoozes, shared by `add` and `timer`.
struct AlertOptions: ParsableArguments {
    @Option(help: "The notification's title.")
    var title: String?

    @Option(help: "How long Snooze waits before ringing again (\(InputParser.acceptedDurations)).")
    var snooze = "9m"

    /// The request for `schedule`, with a Stop button and a Snooze (or Repeat) button.
    func request(schedule: Alarm.Schedule?, preAlert: TimeInterval?, defaultTitle: String,
                 repeatAfter: TimeInterval? = nil) throws -> AlarmRequest {
        let postAlert = try repeatAfter ?? Parse.duration(snooze, option: "--snooze")
        let title = title ?? defaultTitle
        let presentation = AlarmPresentation(
            alert: .init(title: title, stopButton: .stopButton,
                         secondaryButton: repeatAfter == nil ? .snoozeButton : .repeatButton,
                         secondaryButtonBehavior: .countdown),
            countdown: .init(title: title), paused: .init(title: title))
        return AlarmRequest(schedule: schedule, countdownDuration: .init(preAlert: preAlert, postAlert: postAlert),
                            presentation: presentation)
    }
}

/// Option values read with `InputParser`, errors naming the option.
enum Parse {
    static func duration(_ text: String, option: String) throws -> TimeInterval {
        do { return try InputParser.duration(text) } catch { throw ValidationError("\(option): \(error)") }
    }
}
