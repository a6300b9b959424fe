import ArgumentParser
import FoundationEssentials
import Glibc
import ReveilleCalendar
import ReveilleCore
import ReveilleKit
import ReveilleRules
import ReveilleSystem
import ReveilleTimeZone
import ReveilleWords
import SystemPackage

/// `reveille sync`: your alarms on every computer, through your calendar server (CalDAV).
struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: L("Share your alarms between computers through a CalDAV calendar server."),
        discussion: L("Nothing is sent anywhere before `reveille sync add`. Your own alarms travel (apps' alarms stay here), each as an event in a calendar of its own; Stop and snooze on one computer reach the others within the sync interval. The password is kept in the Secret Service (GNOME Keyring, KWallet), never in a file."),
        subcommands: [SyncAdd.self, SyncStatusCommand.self, SyncRemove.self])
}

struct SyncAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: L("Start syncing with a calendar collection (made when it is not there)."),
        discussion: L("The URL names a calendar collection for Reveille alone, such as https://cloud.example.com/remote.php/dav/calendars/NAME/reveille/ (Nextcloud), https://caldav.fastmail.com/dav/calendars/user/NAME@fastmail.com/reveille/ (Fastmail) or http://localhost:5232/NAME/reveille/ (Radicale). The password (an app password works) is asked on the terminal, or read from the first line of standard input."))

    @Argument(help: ArgumentHelp(L("The collection's URL."), valueName: "url"))
    var url: String

    @Option(help: ArgumentHelp(L("The user name on the server.")))
    var user: String

    func run() async throws {
        let password = try Self.readPassword(L("Password for %@: ", user))
        let status = try await AgentConnection.perform { client async throws(AlarmError) in
            try Self.decode(try await client.call(.syncAdd(url: url, user: user, password: password)))
        }
        Output.line(L("Syncing with %@ as %@.", status.url ?? url, user))
        // The first round says whether the server answers.
        for _ in 0..<100 {
            let now = try await AgentConnection.perform { client async throws(AlarmError) in try Self.decode(try await client.call(.syncStatus)) }
            if now.rounds > 0 || now.problem != nil {
                if let problem = now.problem {
                    Output.note(L("Not synced yet: %@. Reveille tries again every %@ seconds.", problem, String(Int(now.interval))))
                    Glibc.exit(69)
                }
                return Output.line(Ln("%@ alarm travels.", "%@ alarms travel.", now.alarms, String(now.alarms)))
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        Output.note(L("The server has not answered yet; `reveille sync status` tells when it does."))
    }

    /// The password from the terminal without echo, or the first line of standard input.
    static func readPassword(_ prompt: String) throws -> String {
        let input = FileDescriptor.standardInput
        let saved = input.isTerminal ? try? input.terminalSettings() : nil
        if let saved {
            Output.write(prompt)
            try? input.setTerminalSettings(saved.withoutEcho)
        }
        defer { if let saved { try? input.setTerminalSettings(saved); Output.line("") } }
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw ValidationError(L("no password was given; type it when asked, or give it on the first line of standard input"))
        }
        return line
    }

    static func decode(_ json: String) throws(AlarmError) -> SyncStatus {
        do { return try JSONCoding.decoder.decode(SyncStatus.self, from: Data(json.utf8)) } catch {
            throw .agentUnavailable("reveille-agent sent a sync status this reveille cannot read: \(error)")
        }
    }
}

struct SyncStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: L("Show whether sync works, and what failed last."))

    @Flag(help: ArgumentHelp(L("Print the status as JSON: configured, url, user, rounds, lastRound, problem, alarms, interval, removalsInLastDay, stateKeptAside, stateKeptAsideAs.")))
    var json = false

    func run() async throws {
        let status = try await AgentConnection.perform { client async throws(AlarmError) in try SyncAdd.decode(try await client.call(.syncStatus)) }
        if json { return try Output.json(status) }
        for line in Self.lines(status, timeZone: GLibTimeZone.local) { Output.line(line) }
    }

    /// What `reveille sync status` says of `status`, a line each, times in `timeZone`.
    static func lines(_ status: SyncStatus, timeZone: any TimeZoneRules) -> [String] {
        let when = { (date: Date) in AlarmSummary.dateAndTime(ISO8601Local.string(from: date, in: timeZone)) }
        var lines: [String] = []
        if status.configured, let url = status.url, let user = status.user {
            lines.append(L("Syncing with %@ as %@, every %@ seconds.", url, user, String(Int(status.interval))))
            lines.append(Ln("%@ alarm travels.", "%@ alarms travel.", status.alarms, String(status.alarms)))
            if let last = status.lastRound { lines.append(L("Last round: %@", when(last))) }
        } else {
            lines.append(L("Sync is off: nothing is sent anywhere. `reveille sync add URL --user NAME` turns it on."))
        }
        if let removed = status.removalsInLastDay, removed > 0 {
            lines.append(Ln("In the last 24 hours, %@ alarm was removed here because it was deleted on the server or on another computer.",
                            "In the last 24 hours, %@ alarms were removed here because they were deleted on the server or on another computer.",
                            removed, String(removed)))
        }
        if let aside = status.stateKeptAside {
            lines.append(L("On %@ the sync state was damaged: it was kept aside as %@ and sync started again from what the server lists. Your alarms were kept.",
                           when(aside), status.stateKeptAsideAs ?? "sync.json"))
        }
        if status.configured, status.url != nil, status.user != nil {
            lines.append(status.problem.map { L("Last problem: %@", $0) } ?? L("The last round worked."))
        } else if let problem = status.problem {
            lines.append(L("Last problem: %@", problem))
        }
        return lines
    }
}

struct SyncRemove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: L("Stop syncing, and forget the account and its password."),
        discussion: L("The alarms here stay, and so does the collection on the server."))

    func run() async throws {
        _ = try await AgentConnection.perform { client async throws(AlarmError) in try await client.call(.syncRemove) }
        Output.line(L("Sync is off; the alarms here stay."))
    }
}
