import Foundation
import Testing
import ReveilleCore
import ReveilleTestSupport

/// What a packager and a desktop expect of the agent's logs.
@Suite("Logs end to end", .serialized)
struct LogTests {
    @Test func underSystemdEachLogLineCarriesItsPriorityForTheJournal() throws {
        let session = try TestSession(audio: .none)
        // systemd sets JOURNAL_STREAM when a service's stderr is the journal.
        try session.startAgent(environment: ["JOURNAL_STREAM": "8:12345"])
        #expect(try session.cli("timer", "1h").status == 0)
        _ = try session.cli("stop", "ffffffff")  // refused: a notice
        let lines = try eventually("the agent's log") { () -> [String]? in
            let log = (try? String(contentsOfFile: session.agentLog, encoding: .utf8)) ?? ""
            return log.contains("<5>") ? log.split(separator: "\n").map(String.init) : nil
        }
        #expect(lines.allSatisfy { $0.wholeMatch(of: /<[2-7]>.*/) != nil }, "every line starts with <N>: \(lines.prefix(3))")
        #expect(lines.contains { $0.hasPrefix("<6>") && $0.contains("owns io.github.reveille.Reveille") }, "info is 6")
        #expect(!lines.contains { $0.contains(" info reveille-agent") }, "no level word repeating the priority")
    }

    @Test func theLogOfAnAgentTheCLIStartsStaysBounded() throws {
        let session = try TestSession(audio: .none)
        try FileManager.default.createDirectory(atPath: session.stateDirectory, withIntermediateDirectories: true)
        let log = session.stateDirectory + "/agent.log"
        try Data(repeating: UInt8(ascii: "x"), count: 2 << 20).write(to: URL(fileURLWithPath: log))
        let started = try session.cli("list")
        #expect(started.stderr.contains("started reveille-agent"), "\(started.stderr)")
        let pid = try #require(started.stderr.firstMatch(of: /pid (\d+)/).flatMap { Int32($0.1) })
        defer { kill(pid, SIGTERM) }
        let old = try FileManager.default.attributesOfItem(atPath: log + ".1")[.size] as? Int
        #expect(old == 2 << 20, "the old log is kept once, as agent.log.1")
        let new = try FileManager.default.attributesOfItem(atPath: log)[.size] as? Int ?? .max
        #expect(new < 64 << 10, "a new log begins: \(new) bytes")
    }
}
