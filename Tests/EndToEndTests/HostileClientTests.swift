import Foundation
import ReveilleCore
import ReveilleRules
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// What a hostile or careless app can do over D-Bus, driven by `hostile-client.py` (Debian's
/// python3-dbus): every limit holds and says which limit it is.
@Suite("Hostile clients end to end", .waitsOnItsOwnThread)
struct HostileClientTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Support/hostile-client/hostile-client.py").path

    func run(_ session: TestSession, _ arguments: String...) throws -> [String: Any] {
        guard (try? Subprocess.run("/usr/bin/python3", ["-c", "import dbus, gi"], environment: session.environment).status) == 0 else {
            throw Subprocess.Failure("/usr/bin/python3 with dbus and gi is missing (Debian packages python3-dbus, python3-gi)")
        }
        let result = try Subprocess.run("/usr/bin/python3", [Self.script] + arguments, environment: session.environment)
        guard result.status == 0, let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else {
            throw Subprocess.Failure("hostile-client.py \(arguments.joined(separator: " ")) failed: \(result.stderr)")
        }
        return object
    }

    @Test func aConnectionIntroducesOneAppSoItCannotRaiseAPromptPerName() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let answers = try run(session, "two-hellos", "org.test.One", "org.test.Two")
        #expect(answers["first"] as? String == "ok")
        #expect((answers["second"] as? String)?.contains("a connection introduces one app") == true, "\(answers)")
    }

    @Test func callsWaitingForTheUsersDecisionAreBounded() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let answers = try run(session, "park", "org.test.Flood", "40")
        #expect(answers["refused"] as? Int == 32, "8 calls wait per connection, the rest are refused at once: \(answers)")
        #expect((answers["sample"] as? [String])?.first?.contains("at most 8 per connection") == true, "\(answers)")
        #expect(try session.notifications(titled: "org.test.Flood wants to schedule alarms").count == 1, "one prompt")
    }

    @Test func aClientCallingAgainAndAgainCannotFillTheLog() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let started = Date()
        let answers = try run(session, "hammer", "2000")
        // Every press is answered: refused as naming no alarm, or, past what answering calls may
        // cost together, as busy (the caller's to call again).
        #expect(answers["answered"] as? Int == 2000 && (answers["refused"] as? Int ?? 0) + (answers["busy"] as? Int ?? 0) == 2000
                && (answers["refused"] as? Int ?? 0) >= 1000, "every press answered, refused: \(answers)")
        func refusalLines() -> [Substring] {
            ((try? String(contentsOfFile: session.agentLog, encoding: .utf8)) ?? "").split(separator: "\n").filter { $0.contains("PressButton from") }
        }
        // A burst, then one a second: 2,000 refusals write a few lines, one each.
        let written = refusalLines().count, seconds = Date().timeIntervalSince(started)
        #expect(written >= 1 && Double(written) <= 20 + seconds.rounded(.up) + 1, "\(written) lines in \(seconds) s")
        #expect(!((try? String(contentsOfFile: session.agentLog, encoding: .utf8)) ?? "").contains("button stop on"), "one line a refusal")
        // The next refusal let through says how many were held back.
        _ = try eventually(timeout: 20, "a refusal that counts those not logged") {
            _ = try session.gdbusCall(destination: AgentInterface.busName, path: AgentInterface.objectPath,
                                      method: "\(AgentInterface.interface).PressButton", ["00000000-0000-4000-8000-00000000dead", "stop"])
            return refusalLines().last { $0.contains("line(s) of clients' calls before it were not logged") }
        }
    }

    @Test func subscribersAreBounded() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let answers = try run(session, "subscribe", "20")
        #expect(answers["ok"] as? Int == 16)
        #expect((answers["refused"] as? [String])?.first?.contains("at most 16 may") == true, "\(answers)")
    }

    @Test func appsNeverTakeTheSubscriberSlotsKeptForTheUsersTools() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        // One process, eight app ids, sixteen connections each (N9): it had every one of the 128 slots.
        let answers = try run(session, "apps-subscribe", "8")
        #expect(answers["apps"] as? Int == 112, "\(answers)")
        #expect((answers["refused"] as? [String])?.first?.contains("the rest are kept for the user's own tools") == true, "\(answers)")
        #expect(answers["user"] as? String == "ok", "the user's alert window and CLI can still subscribe: \(answers)")
    }

    @Test func reveilleWatchSaysWhyWhenEverySubscriberSlotIsTaken() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        // 16 connections of the user's tools hold every slot the user's tools have.
        let answers = try run(session, "subscribed-run", "16", session.binaries + "/reveille", "watch", "--json")
        #expect(answers["status"] as? Int != nil, "reveille watch waited on a subscription it never got: \(answers)")
        #expect((answers["stderr"] as? String)?.contains("at most 16 may") == true, "\(answers)")
    }

    @Test func subscribersHearWhatChangedNotTheWholeList() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let answers = try run(session, "listen", "16", "300")
        let added = try #require(answers["added"] as? String)
        let heard = try #require(answers["heard"] as? [[[String: Any]]])
        #expect(heard.count == 16, "16 connections of the user subscribe (the most one app may)")
        for updates in heard {
            // With 300 alarms stored, each update carries the one alarm that changed.
            #expect(updates.count == 2, "one update for the new alarm, one for its end: \(updates)")
            #expect(updates.first?["changed"] as? Int == 1 && (updates.first?["removed"] as? [String])?.isEmpty == true)
            #expect((updates.first?["bytes"] as? Int ?? .max) < 4096, "\(updates.first ?? [:])")
            #expect(updates.last?["changed"] as? Int == 0)
            #expect((updates.last?["removed"] as? [String])?.map { $0.uppercased() } == [added.uppercased()])
        }
    }

    @Test func appsGetSoundNamesButNotWhereTheFilesAre() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let sounds = try #require(try run(session, "sounds", "org.test.Listener")["sounds"] as? [[String: Any]])
        #expect(sounds.contains { $0["name"] as? String == "alarm" })
        #expect(sounds.allSatisfy { ($0["path"] as? String ?? "").isEmpty }, "\(sounds.prefix(2))")
    }

    @Test func badAuthorizationIdsAndPreviewLengthsAreRefused() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        for id in ["", "../x", "reveille", String(repeating: "a", count: 100_000)] {
            let result = try session.cli("auth", "allow", id)
            #expect(result.status != 0, "auth allow '\(id.prefix(20))' was accepted")
        }
        #expect(try session.cliJSON([AppAuthorizationJSON].self, "auth", "list").isEmpty)
        for seconds in ["nan", "inf", "-1", "1000"] {
            let result = try session.gdbusCall(destination: AgentInterface.busName, path: AgentInterface.objectPath,
                                               method: "\(AgentInterface.interface).PlaySound", ["default", seconds])
            #expect(result.status != 0 && result.stderr.contains("accepted: 0.1 to 60"), "\(seconds): \(result.stderr)")
        }
    }
}

struct AppAuthorizationJSON: Decodable { var appID: String }
