import Foundation
import ReveilleCore
import ReveilleRules
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// AlarmKit's synchronous calls (`alarms`, `authorizationState`, cancel, stop, countdown,
/// pause, resume), made by reveille-test-app from the main thread, a plain thread and the
/// thread that runs the GLib loop, against a live agent; and with no agent running yet.
@Suite("Synchronous AlarmManager calls end to end", .waitsOnItsOwnThread)
struct SynchronousAPITests {
    func app(_ session: TestSession, _ app: String, _ command: String...) throws -> Subprocess.Result {
        try Subprocess.run(session.binaries + "/reveille-test-app", [app, "Synchronous calls"] + command,
                           environment: session.environment, timeout: 60)
    }

    static let expected = ["authorizationState authorized", "alarms 2", "pause paused", "resume countdown",
                           "cancel gone", "fired alerting", "countdown countdown", "stop gone"]

    @Test(arguments: ["main", "plain", "loop"])
    func everySynchronousCallWorksOnThisThread(_ thread: String) throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        #expect(try session.cli("auth", "allow", "org.test.Sync").status == 0)
        let result = try app(session, "org.test.Sync", "sync-calls", thread)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").map(String.init) == Self.expected, "\(result.stdout)\(result.stderr)")
    }

    @Test func theFirstSynchronousCallStartsTheAgentByActivation() throws {
        let services = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-services-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: services, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: services) }
        let session = try TestSession(audio: .none, serviceDirectories: [services])
        try Data("[D-BUS Service]\nName=\(AgentInterface.busName)\nExec=\(session.binaries)/reveille-agent\n".utf8)
            .write(to: URL(fileURLWithPath: services + "/\(AgentInterface.busName).service"))
        try session.waitForName(AgentInterface.busName, owned: false)

        let state = try app(session, "org.test.Sync", "state")
        #expect(state.stdout == "notDetermined\n", "\(state.stderr)")
        let owner = try session.gdbusCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                          method: "org.freedesktop.DBus.GetConnectionUnixProcessID", [AgentInterface.busName])
        let pid = try #require(owner.stdout.firstMatch(of: /uint32 (\d+)/).flatMap { Int32($0.1) }, "the call started the agent")
        defer { kill(pid, SIGTERM) }
        #expect(try session.cli("auth", "allow", "org.test.Sync").status == 0)
        let result = try app(session, "org.test.Sync", "sync-calls", "plain")
        #expect(result.stdout.split(separator: "\n").map(String.init) == Self.expected, "\(result.stdout)\(result.stderr)")
    }

    @Test func anAppStaysItselfWhenTheAgentRestarts() throws {
        // A restarted agent does not know the app; a call that reached it unintroduced was
        // once taken for the user's, and the app saw every alarm.
        let session = try TestSession(audio: .none)
        try session.startAgent()
        #expect(try session.cli("auth", "allow", "org.test.Sync").status == 0)
        #expect(try session.cli("timer", "1h", "--title", "The user's").status == 0)
        let mine = try JSONDecoder().decode([String: String].self,
                                            from: Data(try app(session, "org.test.Sync", "timer", "600").stdout.utf8))["id"]!
        let output = session.directory + "/twice.out", go = session.directory + "/go"
        let lister = try Subprocess.start(session.binaries + "/reveille-test-app", ["org.test.Sync", "-", "list-twice", "", go],
                                          environment: session.environment, stdout: output, stderr: output + ".err")
        defer { lister.terminate() }
        _ = try eventually(timeout: 10, "the first list") { (try? String(contentsOfFile: output, encoding: .utf8))?.isEmpty == false ? true : nil }
        try session.killAgent(signal: SIGTERM)
        try session.startAgent()
        FileManager.default.createFile(atPath: go, contents: Data())
        #expect(lister.wait(timeout: 20) == 0, "\((try? String(contentsOfFile: output + ".err", encoding: .utf8)) ?? "")")
        let lists = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lists == ["[\"\(mine)\"]", "[\"\(mine)\"]"], "the app sees its own alarm only, before and after: \(lists)")
    }

    /// The client's asynchronous calls wait on its one thread: 64 calls held by a stopped
    /// agent add no thread each (a thread per call, as the client once made, would be 64 more).
    @Test func concurrentCallsWaitWithoutAThreadEach() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let agent = try #require(session.agent)
        #expect(try session.cli("auth", "allow", "org.test.Many").status == 0)
        let output = session.directory + "/many.out", go = session.directory + "/go"
        let app = try Subprocess.start(session.binaries + "/reveille-test-app", ["org.test.Many", "-", "concurrent-calls", "64", go],
                                       environment: session.environment, stdout: output, stderr: output + ".err")
        defer { app.terminate() }
        func said(_ word: String) -> Int? {
            (try? String(contentsOfFile: output, encoding: .utf8))?.split(separator: "\n")
                .first { $0.hasPrefix(word + " ") }.flatMap { Int($0.dropFirst(word.count + 1)) }
        }
        let idle = try eventually(timeout: 10, "the first call") { said("idle") }
        kill(agent.pid, SIGSTOP)
        FileManager.default.createFile(atPath: go, contents: Data())
        let waiting = try eventually(timeout: 10, "the calls sent") { said("waiting") }
        kill(agent.pid, SIGCONT)
        #expect(app.wait(timeout: 30) == 0, "\((try? String(contentsOfFile: output + ".err", encoding: .utf8)) ?? "")")
        #expect(said("answered") == 64)
        #expect(waiting - idle <= 8, "\(idle) threads before, \(waiting) with 64 calls waiting")
    }
}
