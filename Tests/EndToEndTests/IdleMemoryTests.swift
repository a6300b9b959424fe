import Foundation
import ReveilleCore
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// What the idle agent keeps of the memory it used to start and to answer: the store read at
/// start and a page of the list are freed, and their pages go back to the kernel.
@Suite("Idle memory", .waitsOnItsOwnThread)
struct IdleMemoryTests {
    /// The agent's heap once it has loaded this many alarms and listed them.
    static let alarms = 1000
    /// Untrimmed the heap kept 7.2 MiB here; trimmed 1.4 MiB when first measured, 3.0 MiB
    /// (release, 2-core machine) before the runtime read the parts' outboxes, 3.1 MiB with its
    /// twelve reading tasks: the bound tells a trimmed heap from an untrimmed one.
    static let heapBound = 7 << 19

    /// A store of `count` alarms far ahead, as the agent writes its snapshot (one alarm per line).
    private func writeStore(_ count: Int, in directory: String) throws {
        let lines = (0..<count).map { index in
            #"{"alarm":{"id":"\#(UUID().uuidString)","schedule":{"fixed":"2099-01-01T07:00:00.000Z"},"state":"scheduled"},"appID":"reveille","fireDate":"2099-01-01T07:00:00.000Z","presentation":{"alert":{"title":"idle-\#(index)"}}}"#
        }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let snapshot = #"{"format":"reveille-alarms","version":1,"alarms":["# + "\n" + lines.joined(separator: ",\n") + "\n]}\n"
        try snapshot.write(toFile: directory + "/alarms.json", atomically: true, encoding: .utf8)
    }

    /// Resident bytes of `pid`'s heap (`[heap]` in /proc/PID/smaps).
    private func heapBytes(_ pid: Int32) throws -> Int {
        try residentBytes(pid) { $0.hasSuffix("[heap]") }
    }

    /// Resident bytes of every mapping of `pid` whose /proc/PID/smaps header line matches.
    private func residentBytes(_ pid: Int32, of mapping: (Substring) -> Bool) throws -> Int {
        // Read to its end: /proc files report no size, so a read sized by it would stop early.
        let file = try #require(FileHandle(forReadingAtPath: "/proc/\(pid)/smaps"))
        let smaps = String(decoding: file.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        return smaps.indices.filter { mapping(smaps[$0]) }.reduce(0) { total, header in
            guard let rss = smaps[header...].first(where: { $0.hasPrefix("Rss:") }) else { return total }
            return total + (Int(rss.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0) * 1024
        }
    }

    @Test func theHeapIsGivenBackAfterLoadingAndListing() throws {
        let session = try TestSession(audio: .none)
        try writeStore(Self.alarms, in: session.stateDirectory)
        try session.startAgent()
        let agent = try #require(session.agent)
        let list = try session.cli("list", "--json")
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.components(separatedBy: "\"idle-").count - 1 == Self.alarms, "the agent loaded every alarm")
        #expect(try heapBytes(agent.pid) > 0, "the agent's heap is found in its smaps")
        // The agent trims once it has had nothing to do for IdleTrim.idleDelay (0.5 s) after the list.
        let heap = try? eventually(timeout: 10, "the agent's heap under \(Self.heapBound >> 20) MiB") { () -> Int? in
            let bytes = try heapBytes(agent.pid)
            return bytes < Self.heapBound ? bytes : nil
        }
        let kept = try heapBytes(agent.pid)
        print("the idle agent's heap: \(kept >> 10) KiB (bound \(Self.heapBound >> 10) KiB)")
        #expect(heap != nil, "the idle agent keeps \(kept >> 10) KiB of heap (bound \(Self.heapBound >> 10) KiB)")

        // Trimmed, the agent comes to rest: a window of the trim's delay in which no thread of
        // it runs. Not at once: the CLI leaving the bus after the list (the agent forgets the
        // client) is work that may come after the first trim and earn a second. That an agent
        // idle since its trim is never woken is IdleTrimTests' (the pure policy), and make
        // bench counts the idle agent's wakeups over a minute.
        #expect(contextSwitches(agent.pid).values.contains { $0 > 0 }, "the agent's threads are read from /proc")
        var last: ([String: Int], [String: Int]) = ([:], [:])
        let rested = try? eventually(timeout: 10, "a quiet window of the idle agent") { () -> Bool? in
            let before = contextSwitches(agent.pid)
            usleep(500_000) // IdleTrim.idleDelay
            last = (before, contextSwitches(agent.pid))
            return last.0 == last.1 ? true : nil
        }
        #expect(rested != nil, "the trimmed, idle agent kept waking: \(last.0) → \(last.1)")
    }

    /// Each thread's context switches (voluntary and not), by thread id.
    private func contextSwitches(_ pid: Int32) -> [String: Int] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return Dictionary(uniqueKeysWithValues: tasks.map { task in
            let status = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)) ?? ""
            return (task, status.split(separator: "\n").filter { $0.contains("ctxt_switches:") }
                .compactMap { Int($0.split(separator: "\t").last ?? "") }.reduce(0, +))
        })
    }
}
