// reveille-bench: figures for Reveille against real peers (run by `make bench`).
//
// Due instant → Notify: schedules N fixed alarms through the D-Bus API at instants
// 150 ms apart and measures, for each, the delay from its due instant to the moment the
// recording notification server received its Notify (both clocks are this machine's).
// Due instant → first audible chunk, and Stop → silence: one alarm at a time, heard on
// the null sink's monitor through parec (10 ms chunks, timed on arrival, so each figure
// includes up to one chunk of recording latency).
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
    let notifyDelays = received.map { ($0.time - due[$0.summary!]!.timeIntervalSince1970) * 1000 }
    // Clear the alerts before measuring sound, one alarm at a time.
    for alarm in try session.cliJSON([AlarmJSON].self, "list") { try session.cli("cancel", alarm.id) }

    let rounds = Int(ProcessInfo.processInfo.environment["REVEILLE_BENCH_SOUNDS"] ?? "") ?? 8
    let recorder = try SinkRecorder(session: session)
    var audibleDelays: [Double] = [], silenceDelays: [Double] = []
    for round in 0..<rounds {
        let instant = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 2.5).rounded(.up))
        let alarm = try session.cliJSON(AlarmJSON.self, "add", String(ISO8601Local.string(from: instant, in: TimeZone(identifier: "UTC")!).prefix(19)),
                                        "--title", "sound-\(round)")
        let heard = try eventually(timeout: 6, "sound \(round)") { recorder.firstAudible(after: instant.addingTimeInterval(-0.5)) }
        audibleDelays.append(heard.timeIntervalSince(instant) * 1000)
        usleep(300_000)
        let stop = Date()
        try session.cli("stop", alarm.id)
        usleep(600_000)
        silenceDelays.append(max(0, (recorder.lastAudible() ?? stop).timeIntervalSince(stop)) * 1000)
    }
    recorder.stop()

    print("Reveille benchmark (binaries: \(session.binaries))")
    print("")
    let columns = ["samples", "min", "p50", "p90", "p99", "max"]
    print("| measure                           | " + columns.map { $0.padding(toLength: 7, withPad: " ", startingAt: 0) }.joined(separator: " | ") + " |")
    print("|-----------------------------------|" + String(repeating: "---------|", count: columns.count))
    for (label, values) in [("due instant → Notify (ms)", notifyDelays), ("due instant → first audible (ms)", audibleDelays),
                            ("Stop → silence (ms)", silenceDelays)] {
        let sorted = values.sorted()
        let cells = [String(sorted.count)] + [sorted.first!, percentile(sorted, 0.5), percentile(sorted, 0.9),
                                              percentile(sorted, 0.99), sorted.last!].map { String(format: "%.1f", $0) }
        print("| " + label.padding(toLength: 33, withPad: " ", startingAt: 0) + " | "
              + cells.map { $0.padding(toLength: 7, withPad: " ", startingAt: 0) }.joined(separator: " | ") + " |")
    }
} catch {
    FileHandle.standardError.write(Data("reveille-bench: \(error)\n".utf8))
    exit(1)
}
