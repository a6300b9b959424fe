import ArgumentParser
import FoundationEssentials
import Glibc
import ReveilleCalendar
import ReveilleCore
import ReveilleKit
import ReveilleRules
import ReveilleTimeZone
import ReveilleWords
import SystemPackage

/// `reveille import`: the reminders of an iCalendar file as alarms, shown before they are added.
struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: L("Add the reminders of an iCalendar (.ics) file as alarms."),
        discussion: L("Reads events (VEVENT) and to-dos (VTODO) with reminders (VALARM): a reminder before or after the start (DTSTART), end (DTEND) or due time (DUE), or at a set time; REPEAT and DURATION ring again; a weekly or daily RRULE repeats on weekdays. Shows what it will add, then adds it; what cannot be mapped (monthly rules, mail reminders, past reminders) is named. A reminder already imported (from the same event's UID, or ringing alike under the same title) is left as it is, and named."))

    @Argument(help: ArgumentHelp(L("The .ics file."), valueName: "file"))
    var file: String

    @Flag(help: ArgumentHelp(L("Show what would be added, and add nothing.")))
    var dryRun = false

    @Flag(name: .shortAndLong, help: ArgumentHelp(L("Add without asking, even on a terminal.")))
    var yes = false

    func run() async throws {
        let now = Date(), timeZone = GLibTimeZone.local
        let document: ICalParser.Document
        do {
            document = try ICalParser.parse(try Self.read(file), limits: .file)
        } catch let error as ICalError {
            throw ValidationError(L("%@: %@", file, error.description))
        }
        let reading = AlarmCalendar.alarms(in: document.components, now: now, timeZone: timeZone,
                                           zones: { GLibTimeZone(identifier: $0) }, defaultTitle: L("Alarm"))
        let existing = try await AgentConnection.perform { client async throws(AlarmError) in try await client.list() }
        var unmapped = document.problems.map { L("a line could not be read: %@", $0) } + reading.unmapped
        var planned: [(alarm: CalendarAlarm, id: UUID, record: AlarmRecord, summary: AlarmSummary)] = []
        for alarm in reading.alarms {
            let id = alarm.id ?? alarm.derivedID ?? UUID()
            if let here = Self.alreadyHere(alarm, id: id, among: existing + planned.map(\.record)) {
                unmapped.append(here.id == id
                    ? L("%@: an alarm with its id %@ is already here; left as it is", alarm.source, id.uuidString.lowercased())
                    : L("%@: %@ rings alike under the same title, so it is already here; left as it is", alarm.source, AlarmSummary(here).kindAndName))
                continue
            }
            do {
                var record = try AlarmRecord(id: id, request: alarm.request, appID: AgentConnection.appID, now: now, timeZone: timeZone)
                if alarm.disabled { record = try record.disabling() }
                planned.append((alarm, id, record, AlarmSummary(record, now: now)))
            } catch {
                unmapped.append("\(alarm.source): \(AlarmError(error).reason)")
            }
        }
        for note in unmapped { Output.note(L("Not imported: %@", note)) }
        guard !planned.isEmpty else {
            Output.line(L("Nothing to import from %@.", file))
            // Everything already here is no failure; a file with nothing that could ring is.
            if reading.alarms.isEmpty { Glibc.exit(65) }
            return
        }
        Output.lines(planned.map { L("Add %@: %@", $0.summary.kindAndName, $0.summary.whenSentence) })
        if dryRun { return }
        if !yes, Terminal.isInteractive, !Terminal.confirm(Ln("Add this alarm?", "Add these %@ alarms?", planned.count, String(planned.count))) { throw Declined() }
        var added = 0, failures: [String] = []
        for plan in planned {
            do {
                _ = try await AgentConnection.perform { client async throws(AlarmError) in
                    let record = try await client.schedule(id: plan.id, request: plan.alarm.request)
                    if plan.alarm.disabled { _ = try await client.setEnabled(false, record.id.uuidString) }
                    return record
                }
                added += 1
            } catch let error as AlarmError {
                failures.append(L("%@: %@", plan.alarm.source, error.reason))
            }
        }
        failures.forEach { Output.note(L("Not imported: %@", $0)) }
        Output.line(Ln("Added %@ of %@ alarm from %@.", "Added %@ of %@ alarms from %@.", planned.count,
                       String(added), String(planned.count), file))
        if !failures.isEmpty { Glibc.exit(65) }
    }

    /// The alarm among `alarms` that `alarm` would repeat: the one with its id (a Reveille
    /// event's, or the one an earlier import derived from the event's UID), or one that rings
    /// alike under the same title (the same event written with another UID, or none).
    static func alreadyHere(_ alarm: CalendarAlarm, id: UUID, among alarms: [AlarmRecord]) -> AlarmRecord? {
        alarms.first { $0.id == id } ?? alarms.first { record in
            let request = AlarmRequest(record)
            return request.schedule == alarm.request.schedule && request.countdownDuration == alarm.request.countdownDuration
                && request.presentation.alert.title.defaultValue == alarm.request.presentation.alert.title.defaultValue
        }
    }

    /// The file's text, read up to one byte past what an import takes (refused then): a file
    /// that is endless (a FIFO, a device) or grows while it is read costs no more.
    static func read(_ path: String) throws -> String {
        let limit = ICalLimits.file.bytes
        let descriptor: FileDescriptor
        do { descriptor = try FileDescriptor.open(FilePath(path), .readOnly) } catch {
            throw ValidationError(L("could not read %@: %@", path, "\(error)"))
        }
        defer { try? descriptor.close() }
        var data = [UInt8](repeating: 0, count: limit + 1), count = 0
        while count <= limit {
            let read = try data.withUnsafeMutableBytes { buffer in
                try descriptor.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[count...]))
            }
            if read == 0 { break }
            count += read
        }
        guard count <= limit else { throw ICalError("the calendar is more than \(limit) bytes; at most \(limit) are accepted") }
        return String(decoding: data[..<count], as: UTF8.self)
    }
}
