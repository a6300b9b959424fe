import Foundation
import ReveilleCore
import ReveilleModel
import ReveilleRules
import ReveilleTestSupport
import ReveilleTestTraits
import ReveilleTimeZone
import SystemPackage
import Testing

/// Faults under load. `REVEILLE_LONG_TESTS=1` runs the long variants (1,000 mutations,
/// 10,000 fuzz cases); the default counts keep `make test` short.
@Suite("Faults end to end", .waitsOnItsOwnThread)
struct FaultTests {
    static let long = ProcessInfo.processInfo.environment["REVEILLE_LONG_TESTS"] != nil

    /// Thread-safe record of what the clients were told.
    final class Ledger: @unchecked Sendable {
        private let lock = NSLock()
        private var added: Set<String> = []
        private var cancelled: Set<String> = []
        private var triedToCancel: Set<String> = []
        func add(_ id: String) { lock.withLock { _ = added.insert(id) } }
        /// A cancel sent; it may take effect even when the agent is killed before it answers.
        func tryToCancel(_ id: String) { lock.withLock { _ = triedToCancel.insert(id) } }
        func cancel(_ id: String) { lock.withLock { _ = cancelled.insert(id) } }
        /// How many changes were acknowledged so far.
        var acknowledged: Int { lock.withLock { added.count + cancelled.count } }
        var snapshot: (added: Set<String>, cancelled: Set<String>, triedToCancel: Set<String>) {
            lock.withLock { (added, cancelled, triedToCancel) }
        }
    }

    @Test func noAcknowledgedChangeIsLostWhenTheAgentIsKilledMidStream() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let mutations = Self.long ? 1000 : 90, clients = 3, kills = Self.long ? 25 : 4
        let ledger = Ledger()
        let group = DispatchGroup()
        // The clients run the real CLI concurrently; they share only these values.
        let cli = session.binaries + "/reveille", environment = session.environment
        let run = { @Sendable (arguments: [String]) in try? Subprocess.run(cli, arguments, environment: environment) }
        for client in 0..<clients {
            DispatchQueue.global().async(group: group) {
                var mine: [String] = []
                for step in 0..<(mutations / clients) {
                    // Two adds for every cancel of one of this client's acknowledged alarms.
                    if step % 3 == 2, let id = mine.popLast() {
                        ledger.tryToCancel(id)
                        if run(["cancel", id])?.status == 0 { ledger.cancel(id) }
                        continue
                    }
                    guard let result = run(["add", "2031-0\(client + 1)-1\(step % 10) 08:00", "--title", "c\(client)-\(step)", "--json"]),
                          result.status == 0, let alarm = try? JSONDecoder().decode(AlarmJSON.self, from: Data(result.stdout.utf8)) else { continue }
                    ledger.add(alarm.id)
                    mine.append(alarm.id)
                }
            }
        }
        // Meanwhile: kill -9 whoever owns the bus name after a random few more acknowledged
        // changes, wherever the clients then are (mid-call, mid-write). The CLI starts a new agent
        // itself when it finds none, as it would for a person.
        let finished = { group.wait(timeout: .now()) == .success }
        var killed = 0
        for _ in 0..<kills {
            let target = ledger.acknowledged + Int.random(in: 2...6)
            _ = try eventually(timeout: 60, "\(target) acknowledged changes") { ledger.acknowledged >= target || finished() ? true : nil }
            if finished() { break }
            if let pid = try session.ownerPID(of: AgentInterface.busName) {
                kill(pid, SIGKILL)
                killed += 1
            }
        }
        group.wait()
        #expect(killed > 1, "the agent was killed while the clients ran, \(killed) times")
        #expect(try session.cli("list").status == 0)
        defer { if let pid = try? session.ownerPID(of: AgentInterface.busName) { kill(pid, SIGTERM) } }
        let listed = Set(try session.cliJSON([AlarmJSON].self, "list").map(\.id))
        let (added, cancelled, triedToCancel) = ledger.snapshot
        #expect(added.count > mutations / 3, "most mutations were acknowledged: \(added.count)")
        #expect(added.subtracting(triedToCancel).isSubset(of: listed), "every acknowledged alarm survives")
        #expect(cancelled.isDisjoint(with: listed), "every acknowledged cancel stays cancelled")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: session.stateDirectory).filter { $0.contains("unreadable") }
        #expect(leftovers.isEmpty, "the store always loaded: \(leftovers)")
    }

    @Test func randomAndMalformedDBusCallsGetErrorsAndLoseNothing() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let keep = try session.cliJSON(AlarmJSON.self, "add", "2031-05-05 05:05", "--title", "Keep me")
        var generator = SystemRandomNumberGenerator()
        let methods = ["Schedule", "Cancel", "Stop", "Countdown", "Pause", "Resume", "Get", "List", "Hello", "Subscribe",
                       "RequestAuthorization", "SetAuthorization", "PlaySound", "Nope"]
        let fragments = ["", "{", "}", "[", "null", "\"", "\\u0000", "{\"schedule\":", "{\"fixed\":\"2031-13-45T99:99\"}",
                         "{\"presentation\":{\"alert\":{\"title\":", String(repeating: "é", count: 3000), "../", "%s%n",
                         "{\"countdownDuration\":{\"preAlert\":-1e308}}", "ffff", keep.id.prefix(4).description, "true", "1e999"]
        let cases = Self.long ? 10_000 : 150
        var answered = 0, sent = 0
        for _ in 0..<cases {
            let method = methods.randomElement(using: &generator)!
            var arguments: [String]
            // A Cancel or Stop naming the kept alarm (its prefix is a fragment) would remove it
            // rightly; such a call is drawn again, so a missing alarm can only mean a loss.
            repeat {
                arguments = (0..<Int.random(in: 0...3, using: &generator)).map { _ in
                    (0..<Int.random(in: 1...4, using: &generator)).map { _ in fragments.randomElement(using: &generator)! }.joined()
                }
            } while ["Cancel", "Stop"].contains(method) && arguments.first.map { !$0.isEmpty && keep.id.hasPrefix($0) } == true
            let result = try session.gdbusCall(destination: AgentInterface.busName, path: AgentInterface.objectPath,
                                               method: "\(AgentInterface.interface).\(method)", arguments.map { "'\($0.replacingOccurrences(of: "'", with: ""))'" })
            // Every call the agent receives gets an answer: a result, or an error with its name and
            // a message. gdbus refusing to send a malformed call proves nothing, nor does an
            // error from the bus itself (a dead agent's ServiceUnknown, NoReply).
            if result.stderr.contains("Error parsing") || result.stderr.contains("is not a valid") { continue }
            sent += 1
            if result.status == 0 || result.stderr.contains("GDBus.Error:io.github.reveille.Error.")
                || result.stderr.contains("GDBus.Error:org.freedesktop.DBus.Error.InvalidArgs")
                || result.stderr.contains("GDBus.Error:org.freedesktop.DBus.Error.UnknownMethod") { answered += 1 }
        }
        #expect(sent > cases / 3, "most calls reach the agent: \(sent) of \(cases)")
        #expect(answered == sent, "every call that reached the agent was answered by it")
        #expect(session.agent?.isRunning == true, "the agent survived \(cases) random calls")
        #expect(try session.cliJSON(AlarmJSON.self, "show", keep.id).title == "Keep me", "nothing stored was lost")
    }

    @Test func losingTheBusExitsNonZeroSoTheServiceManagerRestartsTheAgent() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let agent = try #require(session.agent)
        session.killBus()
        let status = agent.wait(timeout: 10)
        #expect(status != 0, "Restart=on-failure restarts only a failed agent")
        let log = try String(contentsOfFile: session.agentLog, encoding: .utf8)
        #expect(log.contains("lost the session bus"), "\(log)")
        #expect(!log.contains("another reveille-agent replaced"), "the log says what happened: \(log)")
    }

    @Test func aSecondAgentOnAnotherBusRefusesTheSameStateFolderAndNamesTheHolder() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let first = try #require(session.agent)
        #expect(try session.cli("timer", "1h", "--title", "Once").status == 0)
        // A second session bus (another login, a nested session) with the same XDG_STATE_HOME.
        let daemon = try Subprocess.find("dbus-daemon", package: "dbus-daemon")
        let bus = try Subprocess.run(daemon, ["--session", "--fork", "--nopidfile", "--print-address=1", "--print-pid=1"],
                                     environment: session.environment)
        let lines = bus.stdout.split(separator: "\n").map(String.init)
        let busPID = try #require(lines.count >= 2 ? Int32(lines[1]) : nil)
        defer { kill(busPID, SIGTERM) }
        var environment = session.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = lines[0]
        let second = try Subprocess.run(session.binaries + "/reveille-agent", [], environment: environment)
        #expect(second.status == 1)
        #expect(second.stderr.contains("another reveille-agent (process \(first.pid)) keeps its alarms in"), "\(second.stderr)")
        #expect(try session.cliJSON([AlarmJSON].self, "list").map(\.title) == ["Once"])
    }

    @Test func aRingingAlarmIsStoppedEvenWhenTheStateFolderIsFull() throws {
        let session = try TestSession(audio: .none)
        // The state folder on a small file system of its own, filled up while the alarm rings.
        let state = session.directory + "/small-state"
        let mount = try session.mountTmpfs(at: state, options: "size=256k,mode=700")
        guard mount.status == 0 else {
            Issue.record("this test needs to mount a small tmpfs (root with CAP_SYS_ADMIN): \(mount.stderr)"); return
        }
        try session.startAgent(environment: ["XDG_STATE_HOME": state])
        let cli = { (arguments: [String]) in
            try Subprocess.run(session.binaries + "/reveille", arguments, environment: session.environment.merging(["XDG_STATE_HOME": state]) { $1 })
        }
        let timer = try cli(["timer", "1s", "--title", "Full", "--json"])
        #expect(timer.status == 0, "\(timer.stderr)")
        _ = try eventually(timeout: 20, "the alert") { try session.alerts(titled: "Full").first }
        // Fill it: write until the file system says it is full.
        let filler = open(state + "/filler", O_WRONLY | O_CREAT, 0o600)
        let block = [UInt8](repeating: 0, count: 4096)
        while write(filler, block, block.count) == block.count {}
        close(filler)
        // New alarms fill what is left of the journal's last page, then are refused.
        var refused: Subprocess.Result?
        for _ in 0..<60 {
            let attempt = try cli(["timer", "1h", "--title", "No room"])
            if attempt.status != 0 { refused = attempt; break }
        }
        #expect(refused?.stderr.contains("could not write") == true, "a new alarm is refused: \(refused?.stderr ?? "never")")
        let id = try JSONDecoder().decode(AlarmJSON.self, from: Data(timer.stdout.utf8)).id
        let stop = try cli(["stop", id])
        #expect(stop.status == 0, "Stop is never refused: \(stop.stderr)")
        let list = try cli(["list", "--json"])
        #expect(!list.stdout.contains("alerting"), "\(list.stdout)")
        _ = try eventually("the user to be told the stop was not saved") {
            try session.notifications(titled: "Reveille could not save a change").first
        }
    }

    @Test func aRefusedChangeLeavesNothingBehindWhenOnlyTheJournalCannotBeWritten() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        // A folder where the journal should be: it cannot be opened for writing, even by root,
        // while the snapshot still can. (The agent holds the journal it opened at start: it must
        // see that it is no longer the one at that name, which a restart would read.) The agent
        // opens it once it holds the state folder, a moment after it owns the bus name.
        _ = try eventually("the agent's journal") {
            FileManager.default.fileExists(atPath: session.stateDirectory + "/alarms.journal") ? true : nil
        }
        try FileManager.default.removeItem(atPath: session.stateDirectory + "/alarms.journal")
        try FileManager.default.createDirectory(atPath: session.stateDirectory + "/alarms.journal", withIntermediateDirectories: true)
        for title in ["First", "Second"] {
            let refused = try session.cli("timer", "1h", "--title", title)
            #expect(refused.status != 0 && refused.stderr.contains("alarms.journal"), "the error names the journal: \(refused.stderr)")
        }
        try session.killAgent(signal: SIGTERM)
        try FileManager.default.removeItem(atPath: session.stateDirectory + "/alarms.journal")
        try session.startAgent()
        #expect(try session.cliJSON([AlarmJSON].self, "list").isEmpty, "what was refused did not come back")
    }

    /// `chattr +i` on the journal, as the attack did: a refused Schedule came back after a
    /// restart, and a refused Cancel applied (the snapshot was written before the journal's
    /// truncation failed). Now every change is refused and none is there after a restart.
    @Test func anImmutableJournalRefusesChangesAndNothingRefusedComesBack() throws {
        let session = try TestSession(audio: .none)
        // An alarm in the snapshot, from an earlier agent.
        let request = AlarmRequest(schedule: .fixed(Date().addingTimeInterval(86_400)), countdownDuration: nil,
                                   presentation: AlarmPresentation(alert: .init(title: "Kept")))
        let kept = try AlarmRecord(id: UUID(), request: request, appID: ClientIdentity.userAppID, now: Date(), timeZone: UTCTimeZone())
        try AlarmStore(directory: FilePath(session.stateDirectory)).save([kept])
        try session.startAgent()
        // One change goes through: the agent holds the journal open from here on.
        #expect(try session.cli("add", "2031-05-05 05:05", "--title", "Other").status == 0)
        let journal = session.stateDirectory + "/alarms.journal"
        let chattr = try Subprocess.find("chattr", package: "e2fsprogs")
        let immutable = try Subprocess.run(chattr, ["+i", journal], environment: session.environment)
        guard immutable.status == 0 else {
            Issue.record("this test needs chattr +i (root, ext4 or tmpfs): \(immutable.stderr)"); return
        }
        defer { _ = try? Subprocess.run(chattr, ["-i", journal], environment: session.environment) }
        let first = try session.cli("add", "2031-06-06 06:06", "--title", "First")
        #expect(first.status != 0 && first.stderr.contains("alarms.journal"), "refused, naming the journal: \(first.stderr)")
        let cancel = try session.cli("cancel", kept.id.uuidString)
        #expect(cancel.status != 0, "the cancel is refused: \(cancel.stdout)")
        let second = try session.cli("add", "2031-07-07 07:07", "--title", "Second")
        #expect(second.status != 0, "refused: \(second.stdout)")
        try session.killAgent(signal: SIGTERM)
        _ = try Subprocess.run(chattr, ["-i", journal], environment: session.environment)
        try session.startAgent()
        #expect(try session.cliJSON([AlarmJSON].self, "list").map(\.title).sorted() == ["Kept", "Other"],
                "no refused alarm is there, the refused cancel did not apply")
    }

    /// One damaged line of 300 in the snapshot cost 257 alarms and no one was told.
    @Test func aDamagedSnapshotLineCostsThatAlarmOnlyAndTheUserIsTold() throws {
        let session = try TestSession(audio: .none)
        let request = AlarmRequest(schedule: .fixed(Date().addingTimeInterval(86_400)), countdownDuration: nil,
                                   presentation: AlarmPresentation(alert: .init(title: "Stored")))
        let records = try (0..<300).map { _ in
            try AlarmRecord(id: UUID(), request: request, appID: ClientIdentity.userAppID, now: Date(), timeZone: UTCTimeZone())
        }
        try AlarmStore(directory: FilePath(session.stateDirectory)).save(records)
        let snapshot = session.stateDirectory + "/alarms.json"
        var lines = try String(contentsOfFile: snapshot, encoding: .utf8).split(separator: "\n").map(String.init)
        lines[44] = String(lines[44].dropFirst(3))   // one damaged line, as the attack made
        try (lines.joined(separator: "\n") + "\n").write(toFile: snapshot, atomically: false, encoding: .utf8)
        try session.startAgent()
        #expect(try session.cliJSON([AlarmJSON].self, "list").count == 299)
        let notice = try eventually(timeout: 20, "the notice of the damaged entry") {
            try session.notifications(titled: "Some stored alarms could not be read").first
        }
        #expect(notice.body?.contains("alarms.json.unreadable-") == true, "it names where the damaged bytes are: \(notice.body ?? "")")
        let aside = try #require(try FileManager.default.contentsOfDirectory(atPath: session.stateDirectory).first { $0.hasPrefix("alarms.json.unreadable-") })
        #expect(try String(contentsOfFile: session.stateDirectory + "/" + aside, encoding: .utf8).contains(lines[44]), "the damaged line is kept")
    }

    @Test func randomCommandLinesFailCleanly() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        var generator = SystemRandomNumberGenerator()
        let words = ["add", "timer", "next", "stop", "list", "--days", "--count", "--from", "--snooze", "--volume", "--fade",
                     "--ring-limit", "--secondary", "--sound", "25:00", "7:30pm", "0s", "-5m", "1:61", "mon-", "run:", "open:",
                     "run:'x", "999999999999999999999", "2026-02-30 10:00", "--json", "é", "--", "%n", "tomorrow 7:30", "101%"]
        let cases = Self.long ? 10_000 : 150
        for _ in 0..<cases {
            let argv = (0..<Int.random(in: 1...5, using: &generator)).map { _ in words.randomElement(using: &generator)! }
            let result = try Subprocess.run(session.binaries + "/reveille", argv, environment: session.environment)
            // 0 (it made sense), 1 (refused in that state), 64 (usage), 65 (refused by the agent)
            // or 66 (no such alarm), as the man page lists them: never a crash.
            #expect([0, 1, 64, 65, 66].contains(result.status), "reveille \(argv) exited \(result.status): \(result.stderr)")
            if result.status != 0 { #expect(!result.stderr.isEmpty, "reveille \(argv) failed without saying why") }
        }
        #expect(session.agent?.isRunning == true)
    }
}
