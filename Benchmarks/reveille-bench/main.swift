// reveille-bench: figures for Reveille against real peers (run by `make bench`).
//
// Due instant → Notify: schedules N fixed alarms through the D-Bus API at instants
// 150 ms apart and measures, for each, the delay from its due instant to the moment the
// recording notification server received its Notify (both clocks are this machine's).
import Foundation
import ReveilleCore
import ReveilleTestSupport

let count = Int(ProcessInfo.processInfo.environment["REVEILLE_BENCH_ALARMS"] ?? "") ?? 25
let spacing = 0.15

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

do {
    let session = try TestSession()
    try session.startAgent()
    let start = Date().addingTimeInterval(2)
    var due: [String: Date] = [:]
    for index in 0..<count {
        let title = "bench-\(index)"
        let instant = start.addingTimeInterval(Double(index) * spacing)
        due[title] = instant
        let configuration = #"{"schedule":{"fixed":"\#(ISO8601Local.utcString(from: instant))"},"presentation":{"alert":{"title":"\#(title)"}}}"#
        let result = try session.gdbusCall(destination: AgentInterface.busName, path: AgentInterface.objectPath,
                                           method: "\(AgentInterface.interface).Schedule", ["", configuration, "{}"])
        guard result.status == 0 else { throw Subprocess.Failure("Schedule failed: \(result.stderr)") }
    }
    let received = try eventually(timeout: Double(count) * spacing + 10, "\(count) alerts") { () -> [TestSession.Event]? in
        let events = try session.events.filter { $0.event == "notify" && ($0.summary ?? "").hasPrefix("bench-") }
        return events.count >= count ? events : nil
    }
    let delays = received.map { ($0.time - due[$0.summary!]!.timeIntervalSince1970) * 1000 }.sorted()
    let figures = [("alarms", Double(delays.count)), ("min", delays.first!), ("p50", percentile(delays, 0.5)),
                   ("p90", percentile(delays, 0.9)), ("p99", percentile(delays, 0.99)), ("max", delays.last!)]
    print("Reveille benchmark (binaries: \(session.binaries))")
    print("")
    print("| measure                     | " + figures.map { $0.0.padding(toLength: 7, withPad: " ", startingAt: 0) }.joined(separator: " | ") + " |")
    print("|-----------------------------|" + String(repeating: "---------|", count: figures.count))
    print("| due instant → Notify (ms)   | " + figures.map {
        ($0.0 == "alarms" ? String(Int($0.1)) : String(format: "%.2f", $0.1)).padding(toLength: 7, withPad: " ", startingAt: 0)
    }.joined(separator: " | ") + " |")
} catch {
    FileHandle.standardError.write(Data("reveille-bench: \(error)\n".utf8))
    exit(1)
}
