import ArgumentParser
import FoundationEssentials
import ReveilleCalendar
import ReveilleCore
import ReveilleKit
import ReveilleTimeZone
import ReveilleWords
import SystemPackage

/// `reveille export`: the user's alarms as an iCalendar file, one VEVENT and VALARM each.
struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: L("Write your alarms and timers as an iCalendar (.ics) file."),
        discussion: L("Each alarm is an event with one reminder (VALARM); a repeating alarm repeats weekly (RRULE); a running timer is an event at its end. Sound, volume, fade, ring limit, snooze and the second button are kept in X-REVEILLE-* properties, which `reveille import` reads back. Apps' alarms stay out, and a run: button is written as none: a calendar never carries a command."))

    @Option(name: .shortAndLong, help: ArgumentHelp(L("The file to write (made private, 0600); standard output when left out."), valueName: "file"))
    var output: String?

    func run() async throws {
        let records = try await AgentConnection.perform { client async throws(AlarmError) in try await client.list() }
        let mine = records.filter { $0.appID == AgentConnection.appID }
        let (calendar, leftOut) = AlarmCalendar.calendar(mine, now: Date(), timeZone: GLibTimeZone.local)
        let text = calendar.text
        if let output {
            // A file that cannot be written is no usage error: the arguments were right.
            do {
                try AtomicFile.write(Data(text.utf8), to: FilePath(output))
            } catch let late as AtomicFile.RenamedButNotSynced {
                // Written and in place: only a power cut now could still lose it.
                Output.note(L("Warning: %@ is written, but its folder could not be synced (%@): a power cut now could lose it.",
                              output, "\(late.underlying)"))
            } catch {
                throw FileFailure(message: L("could not write %@: %@", output, "\(error)"))
            }
        } else {
            _ = try? FileDescriptor.standardOutput.writeAll(text.utf8)
        }
        for note in leftOut { Output.note(L("Not exported: %@", note)) }
        if records.count > mine.count {
            Output.note(Ln("%@ alarm of an app is not exported; it belongs to that app.", "%@ alarms of apps are not exported; they belong to those apps.",
                           records.count - mine.count, String(records.count - mine.count)))
        }
        if let output {
            Output.note(Ln("Wrote %@ of %@ alarm to %@.", "Wrote %@ of %@ alarms to %@.", mine.count,
                           String(calendar.components.count), String(mine.count), output))
        }
    }
}
