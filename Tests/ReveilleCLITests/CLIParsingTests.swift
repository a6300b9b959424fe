import ArgumentParser
import Foundation
@testable import reveille
import ReveilleCore
import ReveilleModel
import ReveilleRules
import Testing

/// What the CLI makes of its arguments, in process: each command's parse, and the option rules
/// that build an alarm request. No agent, no bus: milliseconds.
@Suite("CLI parsing")
struct CLIParsingTests {
    func parse<Command: ParsableCommand>(_ type: Command.Type, _ arguments: [String]) throws -> Command {
        let parsed = try Reveille.parseAsRoot(arguments)
        return try #require(parsed as? Command, "\(arguments) parsed as \(Swift.type(of: parsed))")
    }

    /// The message the CLI prints for an error, without "Error: ".
    func message(_ arguments: [String]) -> String {
        let command: ParsableCommand
        do { command = try Reveille.parseAsRoot(arguments) } catch {
            // As `main` says it: its first line, without "Error: ".
            let said = Reveille.usageMessage(for: error, arguments: arguments)
            return String(said.split(separator: "\n").first ?? "").replacing("Error: ", with: "", maxReplacements: 1)
        }
        do {
            if let add = command as? Add { _ = try add.request(now: now, timeZone: UTCTimeZone()) }
            if let timer = command as? reveille.Timer { _ = try timer.request() }
            if let edit = command as? Edit { _ = try edit.request(changing: try weekdayAlarm(), now: now, timeZone: UTCTimeZone()) }
            if let snooze = command as? Snooze, !snooze.duration.isEmpty { _ = try Snooze.length(snooze.duration.joined(separator: " ")) }
            var validated = command
            try validated.validate()
            return ""
        } catch {
            return Reveille.message(for: error)
        }
    }

    let now = Date(timeIntervalSince1970: 1_800_000_000) // 2027-01-15T08:00:00Z, a Friday

    /// "get up" at 06:45 on weekdays.
    func weekdayAlarm() throws -> AlarmRecord {
        let request = AlarmRequest(schedule: .relative(.init(time: .init(hour: 6, minute: 45), repeats: .weekly(Array(InputParser.week.prefix(5))))),
                                   countdownDuration: .init(preAlert: nil, postAlert: 540),
                                   presentation: .reveille(title: "get up", secondaryButton: .snoozeButton, behavior: .countdown))
        return try AlarmRecord(id: UUID(), request: request, appID: "reveille", now: now, timeZone: UTCTimeZone())
    }

    @Test func eachCommandReadsItsArguments() throws {
        let add = try parse(Add.self, ["add", "6:45", "--days", "mon-fri", "--title", "Up", "--snooze", "5m", "--volume", "80%"])
        #expect(add.time == ["6:45"] && add.repeating.days == "mon-fri" && add.alert.title == "Up")
        let request = try add.alert.request(schedule: nil, preAlert: nil, defaultTitle: "Alarm")
        // 80% on the desktop's (cubic) slider is a linear volume of 0.8³.
        #expect(request.countdownDuration?.postAlert == 300 && abs((request.ring.volume ?? 0) - 0.512) < 1e-12)
        #expect(request.presentation.alert.secondaryButton == .snoozeButton && request.presentation.alert.secondaryButtonBehavior == .countdown)
        let timer = try parse(reveille.Timer.self, ["timer", "1:30", "--repeat", "10m", "--no-wake"])
        #expect(timer.duration == ["1:30"] && timer.repeatAfter == "10m" && timer.alert.noWake)
        let cancel = try parse(Cancel.self, ["cancel", "--all", "-y"])
        #expect(cancel.all && cancel.yes && cancel.id == nil)
        let show = try parse(Show.self, ["show", "3f2a", "--json"])
        #expect(show.id == "3f2a" && show.output.json)
    }

    @Test func aRunButtonIsSplitWithoutAShellAndNeedsAnAbsoluteProgram() throws {
        let (button, behavior, intent) = try Parse.secondary(#"run:'/usr/bin/notify-send' "Tea ready" -u critical"#)
        #expect(button?.text == "Run" && behavior == .custom)
        #expect(intent == .run(arguments: ["/usr/bin/notify-send", "Tea ready", "-u", "critical"]))
        #expect(throws: (any Error).self) { try Parse.secondary("run:notify-send hi") }
        #expect(try Parse.secondary("open:org.gnome.Calendar").2 == .openApp(desktopID: "org.gnome.Calendar"))
        #expect(try Parse.secondary("none").0 == nil)
    }

    @Test(arguments: [
        (["add", "7:30", "--volume", "2"], "--volume: '2' is neither a fraction (0.1 to 1) nor a percentage; write 2% or 0.02"),
        (["add", "7:30", "--volume", "0%"], "--volume: '0%' could not be heard; accepted: 10% to 100% (an alarm is never silent)"),
        (["add", "7:30", "--volume", "0.05"], "--volume: '0.05' could not be heard; accepted: 10% to 100% (an alarm is never silent)"),
        (["add", "7:30", "--volume", "120%"], "--volume: '120%' is over 100%; accepted: 10% to 100%"),
        (["add", "7:30", "--volume", "loud"], "--volume: could not read 'loud'"),
        (["add", "7:30", "--volume", "150"], "--volume: '150' is over 100%; accepted: 10% to 100%"),
        (["timer", "5m", "--repeat", "5m", "--secondary", "none"], "--repeat makes the second button Repeat; leave out --secondary none, or --repeat"),
        (["add", "7:30", "--secondary", "ring"], "--secondary: 'ring' is not snooze, repeat, none, open:DESKTOP_ID or run:'COMMAND'"),
        (["add", "7:30", "--snooze", "soon"], "--snooze: could not read 'soon' as a duration"),
        (["cancel"], "give an alarm ID or --all, not both and not neither"),
        (["cancel", "3f2a", "--all"], "give an alarm ID or --all, not both and not neither"),
        (["next", "7:30", "--count", "0"], "--count is 0; accepted: a whole number from 1 to 1000"),
    ])
    func badOptionsAreNamedWithWhatIsAccepted(_ arguments: [String], _ expected: String) {
        let said = message(arguments)
        #expect(said.hasPrefix(expected), "\(arguments): \(said)")
    }

    /// `timer 90` is 90 seconds, as `sleep 90`; `edit` reads a timer's new length the same way.
    @Test func aTimersLengthMayBeABareNumberOfSeconds() throws {
        #expect(try Parse.timerLength("90", option: "duration") == 90)
        #expect(try Parse.timerLength("1h30", option: "duration") == 5400)
        #expect(message(["timer", "90"]) == "")
    }

    /// The percentage `--volume` takes is where the desktop's volume slider will stand.
    @Test(arguments: [("80%", 0.8), ("0.5", 0.5), ("100%", 1.0), ("10%", 0.1)])
    func aVolumeIsOnTheDesktopSlidersScale(_ text: String, _ slider: Double) throws {
        let linear = try Parse.percentage(text)
        #expect(abs(linear - slider * slider * slider) < 1e-12)
        #expect(abs(VolumeScale.slider(linear: linear) - slider) < 1e-12)
    }

    @Test func theUsageOfAnErrorIsTheGivenCommands() {
        // With its many options, ArgumentParser writes them as [<options>].
        #expect(Reveille.usageString(for: Add.self).hasPrefix("reveille add ") && Reveille.usageString(for: Add.self).hasSuffix("<time> ..."))
        #expect(Reveille.fullMessage(for: CleanExit.helpRequest(Add.self)).contains("--pre-alert"))
    }
}
